// SPDX-License-Identifier: Apache-2.0
/*
 * tls_fetch - an HTTPS client of one keep-alive connection to 127.0.0.1, for bench/tls-file-speed
 * and test/guest/ktls. It asks for PATH, checks the response (status 200, the body the bytes of
 * FILE) and says whether kernel TLS took the connection's sending and receiving side; then either
 * asks again --count times, each response checked, or (--seconds) asks again and again for that
 * long and counts what came back without decrypting it: it reads the TLS records from the socket
 * and adds up their plaintext lengths, so that the client's own decryption does not share the
 * guest's CPU with the server it measures (the first response has told the header's length; a
 * response whose records add up to anything else ends the run with an error).
 *
 * --ktls asks OpenSSL for kernel TLS (SSL_OP_ENABLE_KTLS): the kernel's tls_sw then decrypts
 * what this client receives, where OpenSSL and the kernel support it (OpenSSL 3.0: TLS 1.2 only),
 * and --seconds is refused (there is no record left to count).
 *
 * Prints "verified=N ktls-send=0|1 ktls-recv=0|1 protocol=P suite=S", and for --seconds
 * "requests=N bytes=B seconds=S busy=X client=Y": busy is every CPU's busy time in the guest
 * (/proc/stat: the server, the interrupts and kernel threads working for it, and this client),
 * client this process's own CPU time, both in seconds.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "benchutil.h"

#define RECORD_HEADER	 5
#define APPLICATION_DATA 23

struct fetch {
	SSL *ssl;
	int fd;
	const char *request;
	const unsigned char *body;
	size_t body_len;
	size_t header_len; /* of the response, learnt from the first */
	size_t overhead; /* of one record: the record's length less its plaintext's */
};

static void die_tls(const char *what)
{
	ERR_print_errors_fp(stderr);
	die("%s", what);
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *data;
	long size;

	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		die("cannot read %s", path);
	data = malloc(size + 1);
	if (!data || fread(data, 1, size, f) != (size_t)size)
		die("cannot read %s", path);
	fclose(f);
	*len = size;
	return data;
}

static void send_request(struct fetch *f)
{
	if (SSL_write(f->ssl, f->request, strlen(f->request)) != (int)strlen(f->request))
		die_tls("cannot send the request");
}

/* One response read through OpenSSL, its status and body checked; learns the header's length. */
static void fetch_checked(struct fetch *f)
{
	size_t cap = f->body_len + 4096, len = 0;
	unsigned char *buf = malloc(cap);
	char *end = NULL, *length;
	int n;

	if (!buf)
		die("out of memory");
	send_request(f);
	while (!end || len < (size_t)(end + 4 - (char *)buf) + f->body_len) {
		if (len == cap)
			die("the response is longer than its body should be");
		n = SSL_read(f->ssl, buf + len, cap - len);
		if (n <= 0)
			die_tls("the response ended early");
		len += n;
		buf[len < cap ? len : cap - 1] = 0;
		if (!end)
			end = strstr((char *)buf, "\r\n\r\n");
	}
	*end = 0;
	if (strncmp((char *)buf, "HTTP/1.1 200 ", 13))
		die("the response is not 200: %.60s", (char *)buf);
	length = strstr((char *)buf, "\r\nContent-Length: ");
	if (!length || strtoull(length + 18, NULL, 10) != f->body_len)
		die("the response's Content-Length is not %zu", f->body_len);
	f->header_len = end + 4 - (char *)buf;
	if (len != f->header_len + f->body_len || memcmp(end + 4, f->body, f->body_len))
		die("the body differs from the file's bytes");
	free(buf);
}

/*
 * Responses for @seconds, their records read from the socket and counted, not decrypted:
 * OpenSSL's sequence numbers for receiving are left behind, so the connection can only be closed
 * afterwards. Returns the number of responses.
 */
static unsigned long fetch_counted(struct fetch *f, double seconds, double start)
{
	static unsigned char buf[65536];
	unsigned long responses = 0;

	if (SSL_pending(f->ssl) || SSL_has_pending(f->ssl))
		die("OpenSSL holds received bytes: records cannot be counted from the socket");
	do {
		size_t want = f->header_len + f->body_len, got = 0, have = 0, record = 0;
		size_t header = 0; /* bytes of the current record's header seen */
		unsigned char hdr[RECORD_HEADER];

		send_request(f);
		while (got < want || record) {
			size_t i = 0;
			ssize_t n = read(f->fd, buf, sizeof(buf));

			if (n <= 0)
				die("the connection ended in a response");
			have = n;
			while (i < have) {
				if (record) { /* inside a record's body: skip it */
					size_t take = have - i < record ? have - i : record;

					record -= take;
					i += take;
					continue;
				}
				hdr[header++] = buf[i++];
				if (header < RECORD_HEADER)
					continue;
				header = 0;
				record = hdr[3] << 8 | hdr[4];
				if (hdr[0] != APPLICATION_DATA || record <= f->overhead)
					die("a record of type %u, %zu bytes, in a response", hdr[0],
					    record);
				got += record - f->overhead;
			}
		}
		if (got != want || header)
			die("a response of %zu bytes, not %zu: the records do not add up", got,
			    want);
		responses++;
	} while (now() - start < seconds);
	return responses;
}

static int connect_to(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		die("cannot connect to 127.0.0.1:%d", port);
	return fd;
}

static SSL_CTX *new_ctx(const char *protocol, const char *suite, const char *cafile, int ktls)
{
	int version = !strcmp(protocol, "1.3") ? TLS1_3_VERSION : TLS1_2_VERSION;
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (strcmp(protocol, "1.3") && strcmp(protocol, "1.2"))
		die("the protocol is 1.2 or 1.3, not %s", protocol);
	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, version) ||
	    !SSL_CTX_set_max_proto_version(ctx, version) ||
	    !(version == TLS1_3_VERSION ? SSL_CTX_set_ciphersuites(ctx, suite)
					: SSL_CTX_set_cipher_list(ctx, suite)))
		die_tls("cannot set the protocol and suite");
	if (cafile) {
		if (!SSL_CTX_load_verify_locations(ctx, cafile, NULL))
			die_tls("cannot read the CA file");
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	}
	if (ktls)
		SSL_CTX_set_options(ctx, SSL_OP_ENABLE_KTLS);
	return ctx;
}

static int usage(void)
{
	fprintf(stderr, "usage: tls_fetch [--ktls] [--cafile FILE] [--count N | --seconds S] PORT "
			"PATH FILE 1.2|1.3 SUITE\n");
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option options[] = { { "ktls", no_argument, NULL, 'k' },
						 { "cafile", required_argument, NULL, 'a' },
						 { "count", required_argument, NULL, 'c' },
						 { "seconds", required_argument, NULL, 's' },
						 { 0 } };
	const char *cafile = NULL;
	double seconds = 0;
	unsigned long count = 1, i;
	int ktls = 0, opt;
	struct fetch f = { 0 };
	char request[512];
	SSL_CTX *ctx;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt == 'k')
			ktls = 1;
		else if (opt == 'a')
			cafile = optarg;
		else if (opt == 'c')
			count = strtoul(optarg, NULL, 10);
		else if (opt == 's')
			seconds = strtod(optarg, NULL);
		else
			return usage();
	}
	if (argc - optind != 5 || !count || seconds < 0 || (ktls && seconds))
		return usage();
	snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n",
		 argv[optind + 1]);
	f.request = request;
	f.body = read_file(argv[optind + 2], &f.body_len);
	ctx = new_ctx(argv[optind + 3], argv[optind + 4], cafile, ktls);
	f.fd = connect_to(atoi(argv[optind]));
	f.ssl = SSL_new(ctx);
	if (!f.ssl || !SSL_set_fd(f.ssl, f.fd) || !SSL_set_tlsext_host_name(f.ssl, "localhost") ||
	    !SSL_set1_host(f.ssl, "localhost") || SSL_connect(f.ssl) != 1)
		die_tls("the handshake failed");
	/* TLS 1.2 GCM: an 8-byte explicit nonce and the tag; TLS 1.3: the tag and the type */
	f.overhead = SSL_version(f.ssl) == TLS1_3_VERSION ? 16 + 1 : 8 + 16;
	for (i = 0; i < count; i++)
		fetch_checked(&f);
	printf("verified=%lu ktls-send=%d ktls-recv=%d protocol=%s suite=%s\n", count,
	       BIO_get_ktls_send(SSL_get_wbio(f.ssl)) ? 1 : 0,
	       BIO_get_ktls_recv(SSL_get_rbio(f.ssl)) ? 1 : 0, SSL_get_version(f.ssl),
	       SSL_get_cipher_name(f.ssl));
	if (seconds) {
		struct usage start, end;
		unsigned long responses;

		usage_now(&start);
		responses = fetch_counted(&f, seconds, start.wall);
		usage_now(&end);
		printf("requests=%lu bytes=%zu seconds=%.3f busy=%.2f client=%.2f\n", responses,
		       responses * f.body_len, end.wall - start.wall, end.busy - start.busy,
		       end.caller - start.caller);
	} else {
		SSL_shutdown(f.ssl);
	}
	SSL_free(f.ssl);
	close(f.fd);
	SSL_CTX_free(ctx);
	free((void *)f.body);
	return 0;
}
