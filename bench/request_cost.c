// SPDX-License-Identifier: Apache-2.0
/*
 * Where an engine request's time goes, and how near it comes to what the emulated hardware
 * allows. A benchmark, not a test: it asserts nothing about speed. bench/request-cost runs it in
 * a guest.
 *
 *   request_cost [-n OPERATIONS] [-r ROUNDS] [-p PROBES] CASE...
 *	CASE is DRIVER:BYTES[:decrypt]: AES-128-CBC operations of BYTES on the driver named, by
 *	the provider's own transport (backend/transport.c, one call of hwoff_skcipher_crypt() per
 *	operation), encrypting unless :decrypt. Through AF_ALG a sendmsg() and a read() per kernel
 *	request of at most the socket buffer; a path of the engine's own device
 *	("dev.hwoffload0.cbc-aes-hwoffload-dma", backend/device.c) one ioctl per operation, its
 *	requests in flight together. :split=N makes an operation N calls of BYTES/N, one after
 *	the other (against one call whose requests are in flight together).
 *	DRIVER "provider.MODE" is the whole provider instead: hwoffload.so loaded in a library
 *	context of its own beside the default provider, with HWOFFLOAD_MODE=MODE and fallback off
 *	(from HWOFFLOAD_PROVIDER_DIR, else provider/.libs), one EVP_CipherUpdate() per call on one
 *	context. It is measured as a device case (below): the device is where the provider sends
 *	the engine's requests, and it fails if none of them reached the device.
 *
 * One clock: user space reads CLOCK_MONOTONIC around each operation, the driver stamps every
 * skcipher request with ktime_get_ns(), the same clock (debugfs "requests": entry, start in the
 * crypto_engine thread or the caller, doorbell, completion seen, interrupt thread, finalize)
 * with the engine's own time for it (its busy counter, kernel/ENGINE.md section 8, read by the
 * driver at the doorbell and at the completion). So every operation splits into phases that add
 * up to its wall time:
 *
 *   to driver     the call until the driver's encrypt(): sendmsg() (the copy in), recvmsg()
 *   hand-off      encrypt() until the crypto_engine thread takes the request; a PIO request
 *                 run in its caller (synchronous PIO) has almost none
 *   submit        until the doorbell: PIO copies into the FIFO, DMA maps and fills descriptors
 *   engine        the engine's own time for the request (its counter)
 *   delivery      doorbell to completion seen, less the engine's time: the doorbell reaching
 *                 the engine and its completion reaching the driver (poll or hard interrupt)
 *   irq thread    DMA: hard interrupt until the interrupt thread runs
 *   complete      completion seen until finalize: PIO copies out of the FIFO, DMA unmaps
 *   to caller     finalize until the call returns: the wake-up of the caller (none for
 *                 synchronous PIO) and the return
 *   between       for operations of several kernel requests, from one's finalize to the next's
 *                 encrypt() (a return, the next sendmsg() and recvmsg())
 *
 * The bound, measured in the same boot (debugfs "roundtrip", PROBES times, spread over the
 * rounds): the least request of each path timed from its doorbell to the poll that sees it
 * done (PIO) or to the hard interrupt (DMA), less the engine's time for it, is the emulation's
 * own round trip. What the hardware allows an operation is then that round trip for each of its
 * kernel requests plus the engine's time for them; the table prints each phase in µs and as a
 * share of that bound, and the total over it.
 *
 * A device case is timed whole: its requests overlap on the ring, and the driver logs only
 * AF_ALG's. Its engine time is the engine's busy counters (debugfs stats) over the batch, its
 * requests the driver's device_* counts, each per operation; its bound as above. The last row,
 * speed/bound, is the bound over the total: the operation's speed as a share of the bound's.
 *
 * Operations run in batches of up to MAX_BATCH back to back, each timed, after one more that
 * is not (the first after a read of the log runs cold); the driver's log is read after each
 * batch. Each figure is the median over the operations (so the phases need not add up to the
 * total's median exactly); operations and probes are spread over ROUNDS rounds that take turns,
 * so a noisy host spreads over all of them. Runs in the guest as root (debugfs), with the hwoffload
 * driver loaded and nothing else using it (test/vm/run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend/transport.h"
#include "bench/benchutil.h"

#define KEY_LEN	  16
#define MAX_CASES 12
#define MAX_RECS  64 /* HWOFFLOAD_REQ_LOG in the driver */
#define MAX_BATCH 8 /* operations timed back to back between two reads of the driver's log */

/* A case's DRIVER "provider.MODE": the whole of hwoffload.so in that mode */
#define PROVIDER_CASE "provider."

static const uint8_t key[KEY_LEN] = "0123456789abcdef";
static const uint8_t iv[16] = "fedcba9876543210";

enum phase {
	PHASE_TO_DRIVER,
	PHASE_HAND_OFF,
	PHASE_SUBMIT,
	PHASE_ENGINE,
	PHASE_DELIVERY,
	PHASE_IRQ_THREAD,
	PHASE_COMPLETE,
	PHASE_TO_CALLER,
	PHASE_BETWEEN,
	PHASE_TOTAL,
	PHASE_BOUND,
	PHASE_COUNT
};

static const char *const phase_names[PHASE_COUNT] = {
	[PHASE_TO_DRIVER] = "to driver", [PHASE_HAND_OFF] = "hand-off",
	[PHASE_SUBMIT] = "submit",	 [PHASE_ENGINE] = "engine",
	[PHASE_DELIVERY] = "delivery",	 [PHASE_IRQ_THREAD] = "irq thread",
	[PHASE_COMPLETE] = "complete",	 [PHASE_TO_CALLER] = "to caller",
	[PHASE_BETWEEN] = "between",	 [PHASE_TOTAL] = "total",
	[PHASE_BOUND] = "bound",
};

/* One line of debugfs "requests". */
struct record {
	unsigned long long seq;
	char path[8];
	unsigned int len;
	int decrypt;
	int err;
	unsigned long long enter, start, doorbell, seen, thread, done, engine_ns;
};

struct bench_case {
	char *driver;
	size_t len;
	bool decrypt;
	bool engine; /* a hwoffload driver: the driver's records and the engine's counters */
	bool device; /* through the engine's own device (a path of it, or the provider's): timed
		      * whole, counters only */
	unsigned int split; /* calls per operation, each waited for: none in flight together */
	struct hwoff_skcipher *ctx; /* by the transport; NULL for the provider */
	/* the provider: its library context, the providers loaded there, the cipher's context */
	OSSL_LIB_CTX *libctx;
	OSSL_PROVIDER *hwoffload, *fallback;
	EVP_CIPHER_CTX *evp;
	double *phase[PHASE_COUNT]; /* µs per operation; PHASE_BOUND filled in at the end */
	double *requests; /* kernel requests per operation */
	double *dma_requests; /* of them by DMA */
	unsigned int ops;
	unsigned int batch; /* operations per batch: their requests and a warm-up's in the log */
};

static unsigned int operations = 200, probes = 100;
static struct bench_case cases[MAX_CASES];
static unsigned int ncases;
static uint8_t *in, *out;
static char requests_path[512], roundtrip_path[512];

/* Probes: the emulation's own round trips, in µs. */
enum { PIO_ROUND_TRIP, PIO_ENGINE, DMA_ROUND_TRIP, DMA_THREAD, DMA_ENGINE, PROBE_FIGURES };
static double *probe[PROBE_FIGURES];
static unsigned int nprobes;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double *alloc_figures(unsigned int n)
{
	double *v = calloc(n, sizeof(*v));

	if (!v)
		die("out of memory");
	return v;
}

/* The records of the driver's log with a sequence number above @after; returns how many. */
static unsigned int read_records(unsigned long long after, struct record *recs)
{
	struct record r;
	unsigned int n = 0;
	char line[512];
	FILE *f = fopen(requests_path, "r");

	if (!f)
		die("cannot open %s: %s", requests_path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llu %7s %u %d %d %llu %llu %llu %llu %llu %llu %llu", &r.seq,
			   r.path, &r.len, &r.decrypt, &r.err, &r.enter, &r.start, &r.doorbell,
			   &r.seen, &r.thread, &r.done, &r.engine_ns) != 12)
			die("%s: cannot read '%s'", requests_path, line);
		if (r.seq > after && n < MAX_RECS)
			recs[n++] = r;
	}
	fclose(f);
	return n;
}

static unsigned long long last_seq(void)
{
	struct record recs[MAX_RECS];
	unsigned int n = read_records(0, recs);

	return n ? recs[n - 1].seq : 0;
}

/* One read of debugfs "roundtrip". */
static void run_probe(void)
{
	static const char *const names[PROBE_FIGURES] = {
		[PIO_ROUND_TRIP] = "pio_polled_ns",    [PIO_ENGINE] = "pio_engine_ns",
		[DMA_ROUND_TRIP] = "dma_interrupt_ns", [DMA_THREAD] = "dma_thread_ns",
		[DMA_ENGINE] = "dma_engine_ns",
	};
	char name[64];
	unsigned long long v;
	unsigned int i, found = 0;
	FILE *f = fopen(roundtrip_path, "r");

	if (!f)
		die("cannot open %s: %s", roundtrip_path, strerror(errno));
	while (fscanf(f, " %63[^:]: %llu", name, &v) == 2)
		for (i = 0; i < PROBE_FIGURES; i++)
			if (!strcmp(name, names[i])) {
				probe[i][nprobes] = v / 1e3;
				found |= 1U << i;
			}
	if (ferror(f) || found != (1U << PROBE_FIGURES) - 1)
		die("%s: cannot read the round trips (%s)", roundtrip_path, strerror(errno));
	fclose(f);
	nprobes++;
}

/*
 * One operation: one call of the transport or of the provider, or c->split calls one after the
 * other.
 */
static void run_op(struct bench_case *c)
{
	size_t part = c->len / c->split;
	int outl;

	for (unsigned int i = 0; i < c->split; i++) {
		if (!c->evp) {
			if (hwoff_skcipher_crypt(c->ctx, !c->decrypt, in + i * part, out + i * part,
						 part))
				die("%s", hwoff_skcipher_error(c->ctx));
		} else if (!EVP_CipherUpdate(c->evp, out + i * part, &outl, in + i * part,
					     (int)part) ||
			   outl != (int)part) {
			ERR_print_errors_fp(stderr);
			die("%s: an update of %zu bytes failed or held bytes back", c->driver,
			    part);
		}
	}
}

/* A benchmark of wrong results would be worthless: check each case once against OpenSSL. */
static void check_case(struct bench_case *c)
{
	uint8_t *want = alloc_buffer();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int len;

	if (!ctx || !EVP_CipherInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, iv, !c->decrypt) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, 0) ||
	    !EVP_CipherUpdate(ctx, want, &len, in, (int)c->len))
		die("OpenSSL's AES-128-CBC failed");
	EVP_CIPHER_CTX_free(ctx);
	run_op(c);
	if (memcmp(out, want, c->len))
		die("%s: wrong result for %zu bytes", c->driver, c->len);
	free(want);
}

/* µs from @from to @to, two of the driver's ktime_get_ns() stamps (or the bench's own). */
static double us(double from, double to)
{
	return (to - from) / 1e3;
}

/*
 * The operation timed from @t0 to @t1 (the bench's clock), from its driver records starting at
 * recs[*next]: each phase, the kernel requests, and *next moved past them.
 */
static void split_op(struct bench_case *c, double t0, double t1, const struct record *recs,
		     unsigned int n, unsigned int *next)
{
	unsigned int op = c->ops++, k, bytes = 0;
	double *p[PHASE_COUNT], prev = t0;

	for (k = 0; k < PHASE_COUNT; k++) {
		p[k] = &c->phase[k][op];
		*p[k] = 0;
	}
	*p[PHASE_TOTAL] = us(t0, t1);
	c->requests[op] = 0;
	c->dma_requests[op] = 0;
	if (!c->engine)
		return;
	while (bytes < c->len) {
		const struct record *r = &recs[*next];
		bool dma = !strcmp(r->path, "dma");

		if (*next == n)
			die("%s: the driver's records end within an operation", c->driver);
		if (r->err || !r->doorbell || r->enter < prev || r->done < r->enter ||
		    r->decrypt != c->decrypt)
			die("%s: a request without its times, of the other direction, or failed "
			    "(error %d)",
			    c->driver, r->err);
		*p[c->requests[op] ? PHASE_BETWEEN : PHASE_TO_DRIVER] += us(prev, r->enter);
		*p[PHASE_HAND_OFF] += us(r->enter, r->start);
		*p[PHASE_SUBMIT] += us(r->start, r->doorbell);
		*p[PHASE_ENGINE] += r->engine_ns / 1e3;
		*p[PHASE_DELIVERY] += us(r->doorbell, r->seen) - r->engine_ns / 1e3;
		*p[PHASE_IRQ_THREAD] += dma ? us(r->seen, r->thread) : 0;
		*p[PHASE_COMPLETE] += us(dma ? r->thread : r->seen, r->done);
		c->requests[op]++;
		c->dma_requests[op] += dma;
		bytes += r->len;
		prev = r->done;
		(*next)++;
	}
	if (bytes != c->len)
		die("%s: driver records of %u bytes for an operation of %zu", c->driver, bytes,
		    c->len);
	*p[PHASE_TO_CALLER] = us(prev, t1);
}

/* The engine's busy time (ns) and the device's requests, PIO and DMA, from debugfs stats. */
static void device_counters(double *busy, double *pio, double *dma)
{
	*busy = stat_value("engine_pio_busy_ns") + stat_value("engine_dma_busy_ns");
	*pio = stat_value("device_pio_requests");
	*dma = stat_value("device_dma_requests");
}

/* A device case's @count operations, timed one by one, the counters over all of them. */
static void measure_device_batch(struct bench_case *c, unsigned int count)
{
	double t0[MAX_BATCH], t1[MAX_BATCH], busy0, pio0, dma0, busy, pio, dma;
	unsigned int b, k;

	run_op(c);
	device_counters(&busy0, &pio0, &dma0);
	for (b = 0; b < count; b++) {
		t0[b] = now_ns();
		run_op(c);
		t1[b] = now_ns();
	}
	device_counters(&busy, &pio, &dma);
	if (pio == pio0 && dma == dma0)
		die("%s: no request reached the engine's device", c->driver);
	for (b = 0; b < count; b++) {
		unsigned int op = c->ops++;

		for (k = 0; k < PHASE_COUNT; k++)
			c->phase[k][op] = 0;
		c->phase[PHASE_TOTAL][op] = us(t0[b], t1[b]);
		c->phase[PHASE_ENGINE][op] = (busy - busy0) / 1e3 / count;
		c->requests[op] = (pio - pio0 + dma - dma0) / count;
		c->dma_requests[op] = (dma - dma0) / count;
	}
}

/*
 * @count operations back to back, timed one by one, after one more that is not: the first
 * after a read of the driver's log runs cold. Then the log, once, for all of them.
 */
static void measure_batch(struct bench_case *c, unsigned int count)
{
	unsigned long long seq = c->engine ? last_seq() : 0;
	double t0[MAX_BATCH], t1[MAX_BATCH];
	struct record recs[MAX_RECS];
	unsigned int n = 0, next = 0, b;

	if (c->device) {
		measure_device_batch(c, count);
		return;
	}
	run_op(c);
	for (b = 0; b < count; b++) {
		t0[b] = now_ns();
		run_op(c);
		t1[b] = now_ns();
	}
	if (c->engine) {
		n = read_records(seq, recs);
		if (n == MAX_RECS)
			die("%s: more requests than the driver's log keeps (another user of the "
			    "engine?)",
			    c->driver);
		/* the warm-up's records */
		for (b = 0; b < c->len && next < n; next++)
			b += recs[next].len;
	}
	for (b = 0; b < count; b++)
		split_op(c, t0[b], t1[b], recs, n, &next);
	if (next != n)
		die("%s: %u driver records for %u operations (another user of the engine?)",
		    c->driver, n, count + 1);
}

/*
 * What the hardware allows each operation of @c: the emulation's round trip (less the engine's
 * part) per kernel request of its path, plus the engine's time for the operation.
 */
static void fill_bounds(struct bench_case *c)
{
	double pio =
		median_of(probe[PIO_ROUND_TRIP], nprobes) - median_of(probe[PIO_ENGINE], nprobes);
	double dma =
		median_of(probe[DMA_ROUND_TRIP], nprobes) - median_of(probe[DMA_ENGINE], nprobes);
	unsigned int op;

	for (op = 0; op < c->ops; op++)
		c->phase[PHASE_BOUND][op] = (c->requests[op] - c->dma_requests[op]) * pio +
					    c->dma_requests[op] * dma + c->phase[PHASE_ENGINE][op];
}

/*
 * @c through hwoffload.so loaded in @mode (fallback off) into a library context of its own
 * beside the default provider, as the provider's tests load it: a context keyed, its IV set.
 */
static void open_provider(struct bench_case *c, const char *mode)
{
	const char *dir = getenv("HWOFFLOAD_PROVIDER_DIR");
	EVP_CIPHER *cipher = NULL;

	setenv("HWOFFLOAD_MODE", mode, 1);
	setenv("HWOFFLOAD_FALLBACK", "no", 1);
	c->libctx = OSSL_LIB_CTX_new();
	if (!c->libctx ||
	    !OSSL_PROVIDER_set_default_search_path(c->libctx, dir ? dir : "provider/.libs") ||
	    !(c->fallback = OSSL_PROVIDER_load(c->libctx, "default")) ||
	    !(c->hwoffload = OSSL_PROVIDER_load(c->libctx, "hwoffload")) ||
	    !(cipher = EVP_CIPHER_fetch(c->libctx, "AES-128-CBC", "provider=hwoffload")) ||
	    !(c->evp = EVP_CIPHER_CTX_new()) ||
	    !EVP_CipherInit_ex2(c->evp, cipher, key, iv, !c->decrypt, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(c->evp, 0)) {
		ERR_print_errors_fp(stderr);
		die("%s: cannot set up AES-128-CBC through hwoffload.so in mode %s", c->driver,
		    mode);
	}
	EVP_CIPHER_free(cipher);
	unsetenv("HWOFFLOAD_MODE");
	unsetenv("HWOFFLOAD_FALLBACK");
}

/* @c by the provider's transport to its driver: a context keyed, its IV set. */
static void open_transport(struct bench_case *c)
{
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	unsigned int k;

	if (hwoff_skcipher_new(&c->ctx, hwoff_alg_by_name("AES-128-CBC"), c->driver, key, KEY_LEN,
			       err, sizeof(err)))
		die("%s", err);
	if (hwoff_skcipher_set_iv(c->ctx, iv, sizeof(iv)))
		die("%s: cannot set the IV", c->driver);
	k = (c->len + hwoff_skcipher_chunk_bytes(c->ctx) - 1) / hwoff_skcipher_chunk_bytes(c->ctx);
	c->batch = MAX_RECS / k - 1 < MAX_BATCH ? MAX_RECS / k - 1 : MAX_BATCH;
	if (c->batch < 1)
		die("%s: %zu bytes take more kernel requests than the driver's log keeps",
		    c->driver, c->len);
}

static void close_case(struct bench_case *c)
{
	hwoff_skcipher_free(c->ctx);
	EVP_CIPHER_CTX_free(c->evp);
	if (c->hwoffload)
		OSSL_PROVIDER_unload(c->hwoffload);
	if (c->fallback)
		OSSL_PROVIDER_unload(c->fallback);
	OSSL_LIB_CTX_free(c->libctx);
}

static void parse_case(char *spec)
{
	struct bench_case *c = &cases[ncases];
	char *rest = spec, *bytes, *opt, *tail;
	unsigned int k;

	if (ncases == MAX_CASES)
		die("at most %d cases", MAX_CASES);
	c->driver = strsep(&rest, ":");
	bytes = strsep(&rest, ":");
	if (!bytes)
		die("a case is DRIVER:BYTES[:decrypt][:split=N], not '%s'", spec);
	c->len = strtoul(bytes, &tail, 0);
	if (!c->len || c->len % 16 || *tail)
		die("%s: the bytes are a multiple of 16, not '%s'", c->driver, bytes);
	c->split = 1;
	while ((opt = strsep(&rest, ":"))) {
		if (!strcmp(opt, "decrypt"))
			c->decrypt = true;
		else if (!strncmp(opt, "split=", 6) && atoi(opt + 6) > 0)
			c->split = (unsigned int)atoi(opt + 6);
		else
			die("%s: unknown option '%s'", c->driver, opt);
	}
	if (c->len % (16 * c->split))
		die("%s: %zu bytes do not split into %u parts of whole blocks", c->driver, c->len,
		    c->split);
	if (c->len > max_size)
		max_size = c->len;
	if (!strncmp(c->driver, PROVIDER_CASE, strlen(PROVIDER_CASE))) {
		c->engine = c->device = true;
		c->batch = MAX_BATCH;
		open_provider(c, c->driver + strlen(PROVIDER_CASE));
	} else {
		c->engine = strstr(c->driver, "hwoffload") != NULL;
		c->device = !strncmp(c->driver, "dev.", 4);
		open_transport(c);
	}
	for (k = 0; k < PHASE_COUNT; k++)
		c->phase[k] = alloc_figures(operations);
	c->requests = alloc_figures(operations);
	c->dma_requests = alloc_figures(operations);
	ncases++;
}

static void case_label(const struct bench_case *c, char *buf, size_t size)
{
	const char *dash = strstr(c->driver, "-aes-");

	char split[16] = "";

	if (c->split > 1)
		snprintf(split, sizeof(split), "/%u", c->split);
	snprintf(buf, size, "%s%s %zu%s%s", c->device && !c->evp ? "dev " : "",
		 dash ? dash + 5 : c->driver, c->len, split, c->decrypt ? " dec" : "");
}

/* A device case has its total, the engine's part and the bound only. */
static bool shown(const struct bench_case *c, unsigned int phase)
{
	return !c->device || phase == PHASE_TOTAL || phase == PHASE_ENGINE || phase == PHASE_BOUND;
}

static void print_tables(void)
{
	double bound[MAX_CASES];
	unsigned int i, k;
	char label[64];

	printf("\nthe emulation's round trips (debugfs roundtrip, median of %u, µs): PIO polled "
	       "%.1f (the engine's part %.1f), DMA to the hard interrupt %.1f (the engine's part "
	       "%.1f), then to the interrupt thread %.1f\n",
	       nprobes, median_of(probe[PIO_ROUND_TRIP], nprobes),
	       median_of(probe[PIO_ENGINE], nprobes), median_of(probe[DMA_ROUND_TRIP], nprobes),
	       median_of(probe[DMA_ENGINE], nprobes), median_of(probe[DMA_THREAD], nprobes));
	printf("\nAES-128-CBC by the provider's transports (dev: the engine's own device, else "
	       "AF_ALG; provider.MODE: the whole of hwoffload.so in that mode), median µs per "
	       "operation (%u operations per case)\n%-12s",
	       operations, "phase");
	for (i = 0; i < ncases; i++) {
		case_label(&cases[i], label, sizeof(label));
		printf(" %13s", label);
		fill_bounds(&cases[i]);
		bound[i] = median_of(cases[i].phase[PHASE_BOUND], cases[i].ops);
	}
	for (k = 0; k < PHASE_COUNT; k++) {
		printf("\n%-12s", phase_names[k]);
		for (i = 0; i < ncases; i++)
			if (k == PHASE_TOTAL || (cases[i].engine && shown(&cases[i], k)))
				print_figure(median_of(cases[i].phase[k], cases[i].ops), 13);
			else
				printf(" %13s", "-");
	}
	printf("\n%-12s", "requests");
	for (i = 0; i < ncases; i++)
		if (cases[i].engine)
			print_figure(median_of(cases[i].requests, cases[i].ops), 13);
		else
			printf(" %13s", "-");
	printf("\n%-12s", "ops/s");
	for (i = 0; i < ncases; i++)
		print_figure(1e6 / median_of(cases[i].phase[PHASE_TOTAL], cases[i].ops), 13);
	printf("\n%-12s", "engine MB/s");
	for (i = 0; i < ncases; i++) {
		double engine = median_of(cases[i].phase[PHASE_ENGINE], cases[i].ops);

		if (cases[i].engine && engine > 0)
			print_figure(cases[i].len / engine, 13);
		else
			printf(" %13s", "-");
	}
	printf("\n\neach phase over the bound (the emulation's round trip per kernel request plus "
	       "the engine's time)\n%-12s",
	       "phase");
	for (i = 0; i < ncases; i++) {
		case_label(&cases[i], label, sizeof(label));
		printf(" %13s", label);
	}
	for (k = 0; k < PHASE_BOUND; k++) {
		printf("\n%-12s", k == PHASE_TOTAL ? "total/bound" : phase_names[k]);
		for (i = 0; i < ncases; i++)
			if (cases[i].engine && shown(&cases[i], k) && bound[i] > 0)
				print_figure(median_of(cases[i].phase[k], cases[i].ops) / bound[i],
					     13);
			else
				printf(" %13s", "-");
	}
	printf("\n%-12s", "speed/bound");
	for (i = 0; i < ncases; i++) {
		double total = median_of(cases[i].phase[PHASE_TOTAL], cases[i].ops);

		if (cases[i].engine && bound[i] > 0)
			print_figure(bound[i] / total, 13);
		else
			printf(" %13s", "-");
	}
	printf("\n");
}

static void usage(void)
{
	fputs("usage: request_cost [-n OPERATIONS] [-r ROUNDS] [-p PROBES] "
	      "DRIVER:BYTES[:decrypt][:split=N]... (DRIVER: a driver, dev.NODE.DRIVER or "
	      "provider.MODE)\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned int r, i, k, per_round, count;
	int opt;

	rounds = 5;
	while ((opt = getopt(argc, argv, "n:r:p:")) != -1) {
		if (opt == 'n')
			operations = atoi(optarg);
		else if (opt == 'p')
			probes = atoi(optarg);
		else if (!bench_option(opt, optarg, 16))
			usage();
	}
	if (rounds < 1 || operations < rounds || probes < rounds || optind == argc)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	find_path(DEBUGFS_DIR "requests", requests_path, sizeof(requests_path));
	find_path(DEBUGFS_DIR "roundtrip", roundtrip_path, sizeof(roundtrip_path));
	max_size = 0;
	for (i = optind; i < (unsigned int)argc; i++)
		parse_case(argv[i]);
	in = alloc_buffer();
	out = alloc_buffer();
	if (RAND_bytes(in, (int)max_size) != 1)
		die("RAND_bytes failed");
	for (k = 0; k < PROBE_FIGURES; k++)
		probe[k] = alloc_figures(probes);
	for (i = 0; i < ncases; i++) {
		check_case(&cases[i]);
		run_op(&cases[i]); /* warm up */
	}

	for (r = 0; r < rounds; r++) {
		per_round = probes / rounds + (r < probes % rounds);
		for (k = 0; k < per_round; k++)
			run_probe();
		per_round = operations / rounds + (r < operations % rounds);
		for (i = 0; i < ncases; i++) {
			struct bench_case *c = &cases[(i + r) % ncases];

			for (k = 0; k < per_round; k += count) {
				count = per_round - k < c->batch ? per_round - k : c->batch;
				measure_batch(c, count);
			}
		}
	}
	print_tables();
	for (i = 0; i < ncases; i++)
		close_case(&cases[i]);
	free(in);
	free(out);
	return 0;
}
