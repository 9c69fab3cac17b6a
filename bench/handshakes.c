// SPDX-License-Identifier: Apache-2.0
/*
 * handshakes - full TLS handshakes in one process, client and server over a BIO pair, for
 * bench/handshake-speed (handshakes per second) and bench/handshake-cost (instructions per
 * handshake under callgrind). Each handshake is a new client and a new server SSL on the same two
 * SSL_CTXs, with no session cache and no tickets, so every one is a full handshake (key exchange,
 * the server's certificate and signature, the transcript hash, the key schedule); no application
 * data. The providers are the configuration's (OPENSSL_CONF): the default provider alone, or
 * hwoffload as the README's openssl.cnf loads it. The client does not check the certificate's
 * chain (it is self-signed), but it does verify the server's signature.
 *
 * Prints "handshakes=N seconds=S per_second=R protocol=P suite=C".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

#define BIO_PAIR_BUFFER 65536

static int usage(void)
{
	fprintf(stderr, "usage: handshakes CERT KEY 1.2|1.3 SUITE COUNT|-SECONDS\n"
			"  COUNT handshakes, or (-SECONDS) as many as fit in SECONDS seconds\n");
	return 2;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int fail(const char *what)
{
	fprintf(stderr, "handshakes: %s\n", what);
	ERR_print_errors_fp(stderr);
	return 1;
}

static SSL_CTX *new_ctx(int server, int version, const char *suite)
{
	SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());

	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, version) ||
	    !SSL_CTX_set_max_proto_version(ctx, version) ||
	    !(version == TLS1_3_VERSION ? SSL_CTX_set_ciphersuites(ctx, suite)
					: SSL_CTX_set_cipher_list(ctx, suite))) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	/* every handshake a full one */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
	if (server && !SSL_CTX_set_num_tickets(ctx, 0)) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

/* One side's handshake run until it waits for the other (or is done): 0 when it failed. */
static int handshake_step(SSL *ssl, int *done)
{
	int r;

	if (*done)
		return 1;
	r = SSL_do_handshake(ssl);
	if (r == 1)
		*done = 1;
	return r == 1 || SSL_get_error(ssl, r) == SSL_ERROR_WANT_READ;
}

/* One full handshake between a new client and a new server: 1, or 0 with the error queued. */
static int handshake(SSL_CTX *client_ctx, SSL_CTX *server_ctx, char *suite, size_t suite_size)
{
	SSL *client = SSL_new(client_ctx), *server = SSL_new(server_ctx);
	BIO *client_bio = NULL, *server_bio = NULL;
	int client_done = 0, server_done = 0, ok = 0;

	if (!client || !server ||
	    !BIO_new_bio_pair(&client_bio, BIO_PAIR_BUFFER, &server_bio, BIO_PAIR_BUFFER))
		goto out;
	SSL_set_bio(client, client_bio, client_bio);
	SSL_set_bio(server, server_bio, server_bio);
	SSL_set_connect_state(client);
	SSL_set_accept_state(server);
	/* Each side runs until it waits for the other; nothing lost: the pair's buffers hold it. */
	for (int round = 0; round < 32 && !(client_done && server_done); round++)
		if (!handshake_step(client, &client_done) || !handshake_step(server, &server_done))
			goto out;
	ok = client_done && server_done;
	if (ok && suite)
		snprintf(suite, suite_size, "%s", SSL_get_cipher_name(client));
out:
	SSL_free(client);
	SSL_free(server);
	return ok;
}

int main(int argc, char **argv)
{
	SSL_CTX *client_ctx, *server_ctx;
	double seconds = 0, start, elapsed;
	long count = 0, done = 0;
	char suite[64] = "";
	int version;

	if (argc != 6)
		return usage();
	if (!strcmp(argv[3], "1.2"))
		version = TLS1_2_VERSION;
	else if (!strcmp(argv[3], "1.3"))
		version = TLS1_3_VERSION;
	else
		return usage();
	if (argv[5][0] == '-')
		seconds = strtod(argv[5] + 1, NULL);
	else
		count = strtol(argv[5], NULL, 10);
	if (count < 1 && seconds <= 0)
		return usage();

	server_ctx = new_ctx(1, version, argv[4]);
	client_ctx = new_ctx(0, version, argv[4]);
	if (!server_ctx || !client_ctx)
		return fail("the SSL_CTXs (is the suite one of the protocol's?)");
	if (SSL_CTX_use_certificate_file(server_ctx, argv[1], SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_use_PrivateKey_file(server_ctx, argv[2], SSL_FILETYPE_PEM) != 1)
		return fail("the certificate or the key");
	/* one to warm up (and to name the suite), outside the count and the clock */
	if (!handshake(client_ctx, server_ctx, suite, sizeof(suite)))
		return fail("a handshake failed");
	start = now();
	do {
		if (!handshake(client_ctx, server_ctx, NULL, 0))
			return fail("a handshake failed");
		done++;
		elapsed = now() - start;
	} while (count ? done < count : elapsed < seconds);
	printf("handshakes=%ld seconds=%.3f per_second=%.2f protocol=TLSv%s suite=%s\n", done,
	       elapsed, done / elapsed, argv[3], suite);
	SSL_CTX_free(client_ctx);
	SSL_CTX_free(server_ctx);
	return 0;
}
