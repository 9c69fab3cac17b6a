// SPDX-License-Identifier: Apache-2.0
/*
 * engine_test.c - unit tests of the emulated engine, driven through its registers.
 *
 * Each test plays the guest driver: BAR2 is a memfd mapped twice (one mapping for the
 * "driver", one for the engine), guest RAM a second memfd, doorbells and MSI-X eventfds,
 * and the engine core runs its real event loop in a thread. Results are compared with
 * OpenSSL EVP on random keys and data. Waits have a hang guard but assert nothing on time.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "kernel/hwoffload_regs.h"
#include "emulator/engine.h"
#include "emulator/eventloop.h"
#include "emulator/timing.h"

#define RAM_SIZE		(8U << 20)
#define RING_GPA		0x10000ULL
#define RING_ENTRIES		32U
#define HEAP_GPA		0x20000ULL
#define VECTORS			2
#define HANG_GUARD_NS		(10ULL * 1000000000ULL)
#define POLL_INTERVAL_NS	20000L

static struct {
	uint8_t *bar2;			/* the driver's mapping */
	uint8_t *bar2_engine;
	uint8_t *ram;			/* the driver's view of guest RAM */
	uint8_t *ram_engine;
	int doorbell[VECTORS];
	int irq[VECTORS];
	int stop;
	struct hwemu_engine engine;
	pthread_t thread;
	uint32_t head;			/* next descriptor index, published or not */
	uint32_t pio_seq;
	uint64_t heap;			/* bump allocator in guest RAM */
} t;

struct aes_params {
	uint32_t mode;
	uint32_t keylen;
	bool decrypt;
	uint32_t ctr_offset;
	uint8_t key[32];
	uint8_t iv[16];
};

/* ---- the "driver": register access ---- */

static uint32_t rd32(uint32_t off)
{
	return le32toh(__atomic_load_n((uint32_t *)(t.bar2 + off), __ATOMIC_ACQUIRE));
}

static uint64_t rd64(uint32_t off)
{
	return le64toh(__atomic_load_n((uint64_t *)(t.bar2 + off), __ATOMIC_ACQUIRE));
}

static void wr32(uint32_t off, uint32_t val)
{
	__atomic_store_n((uint32_t *)(t.bar2 + off), htole32(val), __ATOMIC_RELEASE);
}

static void wr64(uint32_t off, uint64_t val)
{
	__atomic_store_n((uint64_t *)(t.bar2 + off), htole64(val), __ATOMIC_RELEASE);
}

/* The driver's half of write-1-to-clear: a locked AND-NOT. */
static void w1c(uint32_t off, uint32_t bits)
{
	__atomic_fetch_and((uint32_t *)(t.bar2 + off), htole32(~bits), __ATOMIC_SEQ_CST);
}

static void ring_doorbell(unsigned int vector)
{
	uint64_t one = 1;

	ck_assert_int_eq(write(t.doorbell[vector], &one, sizeof(one)), sizeof(one));
}

static void pause_briefly(void)
{
	struct timespec ts = { .tv_nsec = POLL_INTERVAL_NS };

	nanosleep(&ts, NULL);
}

/* Wait until (register & mask) == val; a hang guard only, never a timing assertion. */
static void wait_reg(uint32_t off, uint32_t mask, uint32_t val)
{
	uint64_t limit = hwemu_now_ns() + HANG_GUARD_NS;

	while ((rd32(off) & mask) != val) {
		if (hwemu_now_ns() > limit)
			ck_abort_msg("register 0x%x is 0x%x, waited for 0x%x under mask 0x%x", off,
				     rd32(off), val, mask);
		pause_briefly();
	}
}

static void wait_reg64(uint32_t off, uint64_t val)
{
	uint64_t limit = hwemu_now_ns() + HANG_GUARD_NS;

	while (rd64(off) != val) {
		if (hwemu_now_ns() > limit)
			ck_abort_msg("register 0x%x is %llu, waited for %llu", off,
				     (unsigned long long)rd64(off), (unsigned long long)val);
		pause_briefly();
	}
}

/* MSI-X messages already raised on @vector (and consumed now). */
static uint64_t irqs_pending(unsigned int vector)
{
	uint64_t count;

	if (read(t.irq[vector], &count, sizeof(count)) != sizeof(count)) {
		ck_assert_int_eq(errno, EAGAIN);
		return 0;
	}
	return count;
}

static uint64_t wait_irq(unsigned int vector)
{
	struct pollfd pfd = { .fd = t.irq[vector], .events = POLLIN };

	ck_assert_msg(poll(&pfd, 1, HANG_GUARD_NS / 1000000) == 1, "no MSI-X on vector %u",
		      vector);
	return irqs_pending(vector);
}

static void engine_reset(void)
{
	__atomic_fetch_or((uint32_t *)(t.bar2 + HWE_REG_CTRL), htole32(HWE_CTRL_RESET),
			  __ATOMIC_SEQ_CST);
	ring_doorbell(HWE_DB_PIO);
	wait_reg(HWE_REG_CTRL, HWE_CTRL_RESET, 0);
}

/* ---- fixture ---- */

static uint8_t *map_memfd(size_t size, uint8_t **second)
{
	int fd = memfd_create("engine_test", MFD_CLOEXEC);
	void *a, *b;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, size), 0);
	a = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ck_assert(a != MAP_FAILED && b != MAP_FAILED);
	close(fd);
	*second = b;
	return a;
}

static uint64_t loop_watch_ns; /* the event loop's doorbell watch (0: none) */

static void *engine_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)hwemu_loop_run(&t.engine, t.doorbell, VECTORS, t.stop,
						loop_watch_ns);
}

static void setup(void)
{
	struct hwemu_engine_config cfg = {
		.ram_size = RAM_SIZE,
		.vectors = VECTORS,
		.raise_irq = hwemu_eventfd_raise,
		.irq_opaque = t.irq,
		.quiet = true,
	};
	int v;

	memset(&t, 0, sizeof(t));
	t.bar2 = map_memfd(HWE_BAR2_SIZE, &t.bar2_engine);
	t.ram = map_memfd(RAM_SIZE, &t.ram_engine);
	for (v = 0; v < VECTORS; v++) {
		/* non-blocking, as QEMU leaves them */
		t.doorbell[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		t.irq[v] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		ck_assert(t.doorbell[v] >= 0 && t.irq[v] >= 0);
	}
	t.stop = eventfd(0, EFD_CLOEXEC);
	ck_assert(hwemu_timing_profile("native", &cfg.timing));
	cfg.bar2 = t.bar2_engine;
	cfg.ram = t.ram_engine;
	ck_assert_int_eq(hwemu_engine_init(&t.engine, &cfg), 0);
	ck_assert_int_eq(pthread_create(&t.thread, NULL, engine_thread, NULL), 0);

	t.heap = HEAP_GPA;
	wr64(HWE_REG_RING_BASE, RING_GPA);
	wr32(HWE_REG_RING_SIZE, RING_ENTRIES);
	engine_reset();
	ck_assert(rd32(HWE_REG_STATUS) & HWE_STATUS_RING_VALID);
	wr32(HWE_REG_INT_ENABLE, HWE_INT_DMA_DONE | HWE_INT_DMA_ERROR);
}

static void teardown(void)
{
	uint64_t one = 1;
	void *ret;
	int v;

	ck_assert_int_eq(write(t.stop, &one, sizeof(one)), sizeof(one));
	pthread_join(t.thread, &ret);
	ck_assert_int_eq((intptr_t)ret, 0);
	hwemu_engine_fini(&t.engine);
	for (v = 0; v < VECTORS; v++) {
		close(t.doorbell[v]);
		close(t.irq[v]);
	}
	close(t.stop);
	munmap(t.bar2, HWE_BAR2_SIZE);
	munmap(t.bar2_engine, HWE_BAR2_SIZE);
	munmap(t.ram, RAM_SIZE);
	munmap(t.ram_engine, RAM_SIZE);
}

/* ---- random data and the OpenSSL reference ---- */

static void random_bytes(void *buf, size_t len)
{
	ck_assert_int_eq(RAND_bytes(buf, (int)len), 1);
}

static uint32_t random_below(uint32_t n)
{
	uint32_t r;

	random_bytes(&r, sizeof(r));
	return r % n;
}

static void random_params(struct aes_params *p, uint32_t mode, uint32_t keylen, bool decrypt)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->keylen = keylen;
	p->decrypt = decrypt;
	random_bytes(p->key, sizeof(p->key));
	random_bytes(p->iv, sizeof(p->iv));
}

static uint32_t cfg_word(const struct aes_params *p)
{
	return HWE_CFG(HWE_UNIT_AES, p->mode, p->keylen, p->decrypt);
}

static const EVP_CIPHER *reference_cipher(uint32_t mode, uint32_t keylen)
{
	static const char *const names[3][3] = {
		{ "AES-128-ECB", "AES-192-ECB", "AES-256-ECB" },
		{ "AES-128-CBC", "AES-192-CBC", "AES-256-CBC" },
		{ "AES-128-CTR", "AES-192-CTR", "AES-256-CTR" },
	};

	return EVP_get_cipherbyname(names[mode - 1][keylen / 8 - 2]);
}

/* One-shot OpenSSL over the whole stream from @p's IV (offset 0); @iv_out may be NULL. */
static void reference_crypt(const struct aes_params *p, const uint8_t *in, uint8_t *out,
			    size_t len, uint8_t *iv_out)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int outl;

	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(EVP_CipherInit_ex2(ctx, reference_cipher(p->mode, p->keylen), p->key,
					    p->mode == HWE_MODE_ECB ? NULL : p->iv,
					    !p->decrypt, NULL), 1);
	EVP_CIPHER_CTX_set_padding(ctx, 0);
	ck_assert_int_eq(EVP_CipherUpdate(ctx, out, &outl, in, (int)len), 1);
	ck_assert_int_eq(outl, (int)len);
	if (iv_out)
		ck_assert_int_eq(EVP_CIPHER_CTX_get_updated_iv(ctx, iv_out, 16), 1);
	EVP_CIPHER_CTX_free(ctx);
}

/* ---- PIO ---- */

static void pio_load_context(const struct aes_params *p)
{
	wr32(HWE_REG_PIO_UNIT, HWE_UNIT_AES);
	wr32(HWE_REG_AES_CFG, cfg_word(p));
	wr32(HWE_REG_AES_CTR_OFFSET, p->ctr_offset);
	memcpy(t.bar2 + HWE_REG_AES_KEY, p->key, sizeof(p->key));
	memcpy(t.bar2 + HWE_REG_AES_IV, p->iv, sizeof(p->iv));
}

static void pio_post(const uint8_t *in, uint32_t level)
{
	if (in)
		memcpy(t.bar2 + HWE_FIFO_IN, in, level);
	wr32(HWE_REG_FIFO_IN_LEVEL, level);
	wr32(HWE_REG_PIO_SEQ, ++t.pio_seq);
	ring_doorbell(HWE_DB_PIO);
}

/* One polled PIO request through the FIFO; returns PIO_RESULT. */
static uint32_t pio_run(const uint8_t *in, uint8_t *out, uint32_t len)
{
	uint32_t result;

	pio_post(in, len);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	result = rd32(HWE_REG_PIO_RESULT);
	ck_assert_uint_eq(rd32(HWE_REG_FIFO_IN_LEVEL), 0);
	if (result == HWE_ERR_NONE) {
		ck_assert_uint_eq(rd32(HWE_REG_FIFO_OUT_LEVEL), len);
		memcpy(out, t.bar2 + HWE_FIFO_OUT, len);
		wr32(HWE_REG_FIFO_OUT_LEVEL, 0);
	}
	return result;
}

/* ---- DMA ---- */

static uint64_t ram_alloc(size_t len)
{
	uint64_t addr = (t.heap + 63) & ~63ULL;

	t.heap = addr + len;
	ck_assert_uint_le(t.heap, RAM_SIZE);
	return addr;
}

static uint64_t ram_alloc_random(size_t len)
{
	uint64_t addr = ram_alloc(len);

	random_bytes(t.ram + addr, len);
	return addr;
}

static uint64_t put_context(const struct aes_params *p)
{
	uint64_t addr = ram_alloc(sizeof(struct hwe_aes_ctx));
	struct hwe_aes_ctx *rec = (struct hwe_aes_ctx *)(t.ram + addr);

	memset(rec, 0, sizeof(*rec));
	rec->cfg = htole32(cfg_word(p));
	rec->ctr_offset = htole32(p->ctr_offset);
	memcpy(rec->iv, p->iv, sizeof(rec->iv));
	memcpy(rec->key, p->key, sizeof(rec->key));
	return addr;
}

static struct hwe_aes_ctx *context_at(uint64_t addr)
{
	return (struct hwe_aes_ctx *)(t.ram + addr);
}

static struct hwe_desc *desc_at(uint32_t index)
{
	return (struct hwe_desc *)(t.ram + RING_GPA +
				   (index & (RING_ENTRIES - 1)) * sizeof(struct hwe_desc));
}

/* Write a descriptor at HEAD without publishing it; returns its index. */
static uint32_t push_desc(uint64_t src, uint64_t dst, uint32_t len, uint32_t flags)
{
	struct hwe_desc *d = desc_at(t.head);

	d->src = htole64(src);
	d->dst = htole64(dst);
	d->len = htole32(len);
	d->flags = htole32(flags);
	d->status = 0;
	d->reserved = 0;
	return t.head++;
}

static uint32_t push_load_ctx(uint64_t ctx_addr)
{
	return push_desc(ctx_addr, 0, sizeof(struct hwe_aes_ctx), HWE_DESC_LOAD_CTX);
}

/* LOAD_CTX + one DATA descriptor; returns the index of the DATA descriptor. */
static uint32_t push_request(uint64_t ctx_addr, uint64_t src, uint64_t dst, uint32_t len)
{
	push_load_ctx(ctx_addr);
	return push_desc(src, dst, len, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
}

static void publish(void)
{
	wr32(HWE_REG_RING_HEAD, t.head);
	ring_doorbell(HWE_DB_DMA);
}

static uint32_t desc_status(uint32_t index)
{
	return le32toh(__atomic_load_n(&desc_at(index)->status, __ATOMIC_ACQUIRE));
}

/* Publish, take the one interrupt, check every descriptor up to HEAD is finished. */
static void publish_and_wait(void)
{
	publish();
	ck_assert_uint_eq(wait_irq(HWE_MSIX_DMA), 1);
	ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), t.head);
}

static void check_dma_request(const struct aes_params *p, uint64_t ctx_addr, uint64_t src_copy,
			      uint64_t dst, uint32_t len)
{
	uint8_t *expect = malloc(len), iv_out[16];

	reference_crypt(p, t.ram + src_copy, expect, len, iv_out);
	ck_assert_mem_eq(t.ram + dst, expect, len);
	if (p->mode != HWE_MODE_ECB)
		ck_assert_mem_eq(context_at(ctx_addr)->iv, iv_out, 16);
	else
		ck_assert_mem_eq(context_at(ctx_addr)->iv, p->iv, 16);
	free(expect);
}

/* ======== tests ======== */

START_TEST(test_identification)
{
	ck_assert_uint_eq(rd32(HWE_REG_ID), HWE_ID_MAGIC);
	ck_assert_uint_eq(rd32(HWE_REG_VERSION), HWE_VERSION);
	ck_assert(rd32(HWE_REG_CAPS) & HWE_CAP_DMA);
	ck_assert(rd32(HWE_REG_CAPS) & HWE_CAP_HASH);
	ck_assert_uint_eq(rd32(HWE_REG_PEER_ID), HWEMU_ENGINE_PEER_ID);
	ck_assert_uint_eq(rd32(HWE_REG_NUM_VECTORS), VECTORS);
	ck_assert_uint_eq(rd32(HWE_REG_FIFO_DEPTH), HWE_FIFO_DEPTH);
	ck_assert_uint_eq(rd32(HWE_REG_DMA_ALIGN), HWE_DMA_ALIGN);
	ck_assert_uint_eq(rd64(HWE_REG_RAM_SIZE), RAM_SIZE);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_RESETS), 1);		/* the fixture's */
}
END_TEST

/* Every mode, key size and direction, random length, output and IV read back. */
START_TEST(test_pio_modes)
{
	static const uint32_t keylens[] = { 16, 24, 32 };
	uint8_t in[HWE_FIFO_DEPTH], out[HWE_FIFO_DEPTH], expect[HWE_FIFO_DEPTH], iv[16];
	struct aes_params p;
	uint32_t mode, k, dir, len;

	for (mode = HWE_MODE_ECB; mode <= HWE_MODE_CTR; mode++) {
		for (k = 0; k < 3; k++) {
			for (dir = 0; dir < 2; dir++) {
				random_params(&p, mode, keylens[k], dir);
				len = mode == HWE_MODE_CTR ? 1 + random_below(HWE_FIFO_DEPTH) :
				      16 * (1 + random_below(HWE_FIFO_DEPTH / 16));
				random_bytes(in, len);
				pio_load_context(&p);
				ck_assert_uint_eq(pio_run(in, out, len), HWE_ERR_NONE);
				reference_crypt(&p, in, expect, len, iv);
				ck_assert_mem_eq(out, expect, len);
				if (mode != HWE_MODE_ECB)
					ck_assert_mem_eq(t.bar2 + HWE_REG_AES_IV, iv, 16);
				if (mode == HWE_MODE_CTR)
					ck_assert_uint_eq(rd32(HWE_REG_AES_CTR_OFFSET), len % 16);
			}
		}
	}
	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_REQUESTS), 18);
}
END_TEST

/*
 * With the doorbell watched after each request: requests right after one another (seen while
 * watching) and after a pause longer than the watch (seen by poll() again) are all served.
 */
START_TEST(test_watch_serves_within_and_after)
{
	uint8_t in[64], out[64], expect[64], iv[16];
	struct aes_params p;
	int i;

	for (i = 0; i < 40; i++) {
		random_params(&p, HWE_MODE_CBC, 16, i % 2);
		random_bytes(in, sizeof(in));
		pio_load_context(&p);
		ck_assert_uint_eq(pio_run(in, out, sizeof(in)), HWE_ERR_NONE);
		reference_crypt(&p, in, expect, sizeof(in), iv);
		ck_assert_mem_eq(out, expect, sizeof(in));
		if (i % 4 == 3)
			usleep(2 * loop_watch_ns / 1000);
	}
	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_REQUESTS), 40);
}
END_TEST

/* CBC longer than the FIFO: chunks chained by the IV the engine writes back. */
START_TEST(test_pio_cbc_chunks_chain_through_iv)
{
	enum { LEN = 10000 - 10000 % 16 };
	static uint8_t in[LEN], out[LEN], expect[LEN];
	struct aes_params p;
	uint32_t done, n;

	random_params(&p, HWE_MODE_CBC, 32, false);
	random_bytes(in, LEN);
	pio_load_context(&p);
	for (done = 0; done < LEN; done += n) {
		n = LEN - done < HWE_FIFO_DEPTH ? LEN - done : HWE_FIFO_DEPTH;
		ck_assert_uint_eq(pio_run(in + done, out + done, n), HWE_ERR_NONE);
	}
	reference_crypt(&p, in, expect, LEN, NULL);
	ck_assert_mem_eq(out, expect, LEN);
}
END_TEST

/* CTR split at random byte boundaries continues exactly, then carries on over DMA. */
START_TEST(test_ctr_partial_blocks_continue)
{
	enum { PIO_LEN = 3001, DMA_LEN = 4096, LEN = PIO_LEN + DMA_LEN };
	static uint8_t in[LEN], out[LEN], expect[LEN];
	struct aes_params p, resume;
	uint64_t ctx, src, dst;
	uint32_t done, n;
	uint8_t iv[16];

	random_params(&p, HWE_MODE_CTR, 16, false);
	random_bytes(in, LEN);
	pio_load_context(&p);
	for (done = 0; done < PIO_LEN; done += n) {
		n = 1 + random_below(100);
		if (n > PIO_LEN - done)
			n = PIO_LEN - done;
		ck_assert_uint_eq(pio_run(in + done, out + done, n), HWE_ERR_NONE);
	}
	reference_crypt(&p, in, expect, PIO_LEN, iv);
	ck_assert_mem_eq(out, expect, PIO_LEN);
	ck_assert_mem_eq(t.bar2 + HWE_REG_AES_IV, iv, 16);
	ck_assert_uint_eq(rd32(HWE_REG_AES_CTR_OFFSET), PIO_LEN % 16);

	/* the read-back counter and offset resume the stream on the other path */
	resume = p;
	memcpy(resume.iv, t.bar2 + HWE_REG_AES_IV, 16);
	resume.ctr_offset = rd32(HWE_REG_AES_CTR_OFFSET);
	ctx = put_context(&resume);
	src = ram_alloc(DMA_LEN);
	dst = ram_alloc(DMA_LEN);
	memcpy(t.ram + src, in + PIO_LEN, DMA_LEN);
	push_request(ctx, src, dst, DMA_LEN);
	publish_and_wait();
	reference_crypt(&p, in, expect, LEN, iv);
	ck_assert_mem_eq(t.ram + dst, expect + PIO_LEN, DMA_LEN);
	ck_assert_mem_eq(context_at(ctx)->iv, iv, 16);
	ck_assert_uint_eq(le32toh(context_at(ctx)->ctr_offset), LEN % 16);
}
END_TEST

/* The counter is 128-bit big-endian: check the carry against a keystream built with ECB. */
START_TEST(test_ctr_counter_carries_across_128_bits)
{
	static const uint8_t starts[2][16] = {
		{ 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe },
		{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	uint8_t in[64], out[64], counters[64], keystream[64], expect_iv[16];
	struct aes_params p, ecb;
	int s, b, i;

	for (s = 0; s < 2; s++) {
		random_params(&p, HWE_MODE_CTR, 24, false);
		memcpy(p.iv, starts[s], 16);
		memcpy(counters, starts[s], 16);
		for (b = 1; b < 4; b++) {
			memcpy(counters + 16 * b, counters + 16 * (b - 1), 16);
			for (i = 15; i >= 0 && ++counters[16 * b + i] == 0; i--)
				;
		}
		memcpy(expect_iv, counters + 48, 16);
		for (i = 15; i >= 0 && ++expect_iv[i] == 0; i--)
			;
		ecb = p;
		ecb.mode = HWE_MODE_ECB;
		reference_crypt(&ecb, counters, keystream, sizeof(counters), NULL);

		random_bytes(in, sizeof(in));
		pio_load_context(&p);
		ck_assert_uint_eq(pio_run(in, out, sizeof(in)), HWE_ERR_NONE);
		for (i = 0; i < 64; i++)
			ck_assert_uint_eq(out[i], in[i] ^ keystream[i]);
		ck_assert_mem_eq(t.bar2 + HWE_REG_AES_IV, expect_iv, 16);
	}
}
END_TEST

static void check_pio_error(uint32_t expected)
{
	ck_assert_uint_eq(rd32(HWE_REG_PIO_RESULT), expected);
	ck_assert_uint_eq(rd32(HWE_REG_LAST_ERROR), expected);
	ck_assert(rd32(HWE_REG_ERR_STATUS) & HWE_BIT(expected));
	w1c(HWE_REG_ERR_STATUS, HWE_BIT(expected));
	ck_assert_uint_eq(rd32(HWE_REG_ERR_STATUS), 0);
}

START_TEST(test_pio_errors)
{
	uint8_t in[64], out[64], expect[64];
	struct aes_params p;

	random_bytes(in, sizeof(in));
	random_params(&p, HWE_MODE_ECB, 16, false);
	pio_load_context(&p);
	ck_assert_uint_eq(pio_run(in, out, 20), HWE_ERR_BAD_LEN);
	check_pio_error(HWE_ERR_BAD_LEN);
	ck_assert_uint_eq(pio_run(in, out, 0), HWE_ERR_BAD_LEN);
	check_pio_error(HWE_ERR_BAD_LEN);

	/* overflow: more than the FIFO holds */
	ck_assert_uint_eq(pio_run(NULL, out, HWE_FIFO_DEPTH + 1), HWE_ERR_FIFO);
	check_pio_error(HWE_ERR_FIFO);

	p.keylen = 20;
	pio_load_context(&p);
	ck_assert_uint_eq(pio_run(in, out, 16), HWE_ERR_BAD_CTX);
	check_pio_error(HWE_ERR_BAD_CTX);
	p.keylen = 16;
	p.mode = 0;
	pio_load_context(&p);
	ck_assert_uint_eq(pio_run(in, out, 16), HWE_ERR_BAD_CTX);
	check_pio_error(HWE_ERR_BAD_CTX);
	p.mode = HWE_MODE_CBC;
	p.ctr_offset = 3;	/* an offset only means something in CTR */
	pio_load_context(&p);
	ck_assert_uint_eq(pio_run(in, out, 16), HWE_ERR_BAD_CTX);
	check_pio_error(HWE_ERR_BAD_CTX);
	p.ctr_offset = 0;
	pio_load_context(&p);
	wr32(HWE_REG_AES_CFG, HWE_CFG(HWE_UNIT_HASH, HWE_MODE_CBC, 16, 0));
	ck_assert_uint_eq(pio_run(in, out, 16), HWE_ERR_BAD_CTX);
	check_pio_error(HWE_ERR_BAD_CTX);

	/* back-pressure: output not drained refuses the next request */
	pio_load_context(&p);
	pio_post(in, 32);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	ck_assert_uint_eq(rd32(HWE_REG_PIO_RESULT), HWE_ERR_NONE);
	pio_post(in, 32);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	check_pio_error(HWE_ERR_FIFO);
	ck_assert_uint_eq(rd32(HWE_REG_FIFO_OUT_LEVEL), 32);

	/* the engine carries on: drain, and a good request works */
	wr32(HWE_REG_FIFO_OUT_LEVEL, 0);
	pio_load_context(&p);
	ck_assert_uint_eq(pio_run(in, out, 64), HWE_ERR_NONE);
	reference_crypt(&p, in, expect, 64, NULL);
	ck_assert_mem_eq(out, expect, 64);
}
END_TEST

/* One request per mode, out of place and in place; the context record gets the IV back. */
START_TEST(test_dma_single_request)
{
	struct aes_params p;
	uint64_t ctx, src, copy, dst;
	uint32_t mode, len, data;
	int in_place;

	for (mode = HWE_MODE_ECB; mode <= HWE_MODE_CTR; mode++) {
		for (in_place = 0; in_place < 2; in_place++) {
			random_params(&p, mode, 32, random_below(2));
			len = 16 * (1 + random_below(1024));
			ctx = put_context(&p);
			src = ram_alloc_random(len);
			copy = ram_alloc(len);
			memcpy(t.ram + copy, t.ram + src, len);
			dst = in_place ? src : ram_alloc(len);
			data = push_request(ctx, src, dst, len);
			publish_and_wait();
			ck_assert_uint_eq(desc_status(data - 1), HWE_DSTAT_DONE);
			ck_assert_uint_eq(desc_status(data), HWE_DSTAT_DONE);
			check_dma_request(&p, ctx, copy, dst, len);
			ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), HWE_INT_DMA_DONE);
			w1c(HWE_REG_INT_STATUS, HWE_INT_DMA_DONE);
		}
	}
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_REQUESTS), 6);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_IRQS), 6);
}
END_TEST

/* The engine reads the source at every request: nothing cached from the last one. */
START_TEST(test_dma_reads_memory_every_time)
{
	struct aes_params p;
	uint64_t ctx, src, dst;
	uint8_t first[256];

	random_params(&p, HWE_MODE_ECB, 16, false);
	ctx = put_context(&p);
	src = ram_alloc_random(256);
	dst = ram_alloc(256);
	push_request(ctx, src, dst, 256);
	publish_and_wait();
	memcpy(first, t.ram + dst, 256);
	t.ram[src + 100] ^= 1;
	push_request(ctx, src, dst, 256);
	publish_and_wait();
	ck_assert_mem_ne(t.ram + dst + 96, first + 96, 16);
	ck_assert_mem_eq(t.ram + dst, first, 96);
}
END_TEST

/*
 * Three requests with different keys and modes, one of them scattered over two DATA
 * descriptors, published by one HEAD write and one doorbell: one interrupt for all.
 */
START_TEST(test_dma_chain_one_interrupt)
{
	struct aes_params p[3];
	uint64_t ctx[3], src[3], copy[3], dst[3];
	uint32_t len[3] = { 4096 + 512, 16, 2048 }, i, first;

	random_params(&p[0], HWE_MODE_CBC, 16, false);
	random_params(&p[1], HWE_MODE_CTR, 32, true);
	random_params(&p[2], HWE_MODE_CBC, 24, true);
	for (i = 0; i < 3; i++) {
		ctx[i] = put_context(&p[i]);
		src[i] = ram_alloc_random(len[i]);
		copy[i] = ram_alloc(len[i]);
		memcpy(t.ram + copy[i], t.ram + src[i], len[i]);
		dst[i] = ram_alloc(len[i]);
	}
	first = t.head;
	push_load_ctx(ctx[0]);
	push_desc(src[0], dst[0], 4096, HWE_DESC_DATA);		/* CBC state runs on */
	push_desc(src[0] + 4096, dst[0] + 4096, 512, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	push_request(ctx[1], src[1], dst[1], len[1]);
	push_request(ctx[2], src[2], dst[2], len[2]);
	publish_and_wait();

	ck_assert_uint_eq(irqs_pending(HWE_MSIX_DMA), 0);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_IRQS), 1);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_REQUESTS), 3);
	for (i = first; i != t.head; i++)
		ck_assert_uint_eq(desc_status(i), HWE_DSTAT_DONE);
	for (i = 0; i < 3; i++)
		check_dma_request(&p[i], ctx[i], copy[i], dst[i], len[i]);
}
END_TEST

/* Bad descriptors fail their own request only, with the right code, and touch nothing. */
START_TEST(test_dma_errors_are_contained)
{
	struct {
		uint64_t src_offset;	/* added to a good source */
		uint64_t dst_override;	/* instead of a good destination, if non-zero */
		uint32_t len;
		uint32_t type;
		bool load_ctx;
		uint32_t expect;
	} cases[] = {
		{ 0, 0, 256, HWE_DESC_DATA, true, HWE_ERR_NONE },
		{ 8, 0, 256, HWE_DESC_DATA, true, HWE_ERR_MISALIGNED },
		{ 0, 0, 24, HWE_DESC_DATA, true, HWE_ERR_MISALIGNED },
		{ 0, RAM_SIZE - 128, 256, HWE_DESC_DATA, true, HWE_ERR_BAD_ADDR },
		{ 0, 0xfffffffffffffff0ULL, 256, HWE_DESC_DATA, true, HWE_ERR_BAD_ADDR },
		{ 0, 0, 0, HWE_DESC_DATA, true, HWE_ERR_BAD_LEN },
		{ 0, 0, 256, HWE_DESC_DATA, false, HWE_ERR_NO_CTX },
		{ 0, 0, 256, 0xf, true, HWE_ERR_BAD_DESC },
		{ 0, 0, 256, HWE_DESC_DATA, true, HWE_ERR_NONE },
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	uint64_t ctx[N], src[N], copy[N], dst[N], bad_ctx;
	uint32_t data[N], load[N], i, errors = 0;
	struct aes_params p[N], broken;
	uint8_t poison[256];

	memset(poison, 0xa5, sizeof(poison));
	for (i = 0; i < N; i++) {
		random_params(&p[i], HWE_MODE_CBC, 16, false);
		ctx[i] = put_context(&p[i]);
		src[i] = ram_alloc_random(256 + 16);
		copy[i] = ram_alloc(256);
		memcpy(t.ram + copy[i], t.ram + src[i], 256);
		dst[i] = cases[i].dst_override ? cases[i].dst_override : ram_alloc(256);
		if (!cases[i].dst_override)
			memcpy(t.ram + dst[i], poison, sizeof(poison));
		load[i] = cases[i].load_ctx ? push_load_ctx(ctx[i]) : 0;
		data[i] = push_desc(src[i] + cases[i].src_offset, dst[i], cases[i].len,
				    cases[i].type | HWE_DESC_END_OF_REQ);
		if (cases[i].expect != HWE_ERR_NONE)
			errors |= HWE_BIT(cases[i].expect);
	}
	/* a broken context record: its request's DATA descriptor is aborted */
	random_params(&broken, HWE_MODE_CTR, 17, false);
	bad_ctx = put_context(&broken);
	push_load_ctx(bad_ctx);
	i = push_desc(src[0], dst[0], 16, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish_and_wait();

	ck_assert_uint_eq(desc_status(i - 1), HWE_DSTAT_DONE | HWE_ERR_BAD_CTX);
	ck_assert_uint_eq(desc_status(i), HWE_DSTAT_DONE | HWE_ERR_ABORTED);
	ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), HWE_INT_DMA_DONE | HWE_INT_DMA_ERROR);
	ck_assert_uint_eq(rd32(HWE_REG_ERR_STATUS), errors | HWE_BIT(HWE_ERR_BAD_CTX));
	for (i = 0; i < N; i++) {
		ck_assert_msg(desc_status(data[i]) == (HWE_DSTAT_DONE | cases[i].expect),
			      "case %u: status 0x%x", i, desc_status(data[i]));
		if (cases[i].load_ctx)
			ck_assert_uint_eq(desc_status(load[i]), HWE_DSTAT_DONE);
		if (cases[i].expect == HWE_ERR_NONE)
			check_dma_request(&p[i], ctx[i], copy[i], dst[i], 256);
		else if (!cases[i].dst_override)
			ck_assert_mem_eq(t.ram + dst[i], poison, sizeof(poison));
		if (cases[i].expect != HWE_ERR_NONE)	/* no write-back for a failed request */
			ck_assert_mem_eq(context_at(ctx[i])->iv, p[i].iv, 16);
	}
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_REQUESTS), 2);
}
END_TEST

/* The engine takes only what HEAD publishes, and the ring wraps on free-running indices. */
START_TEST(test_ring_head_cur_ownership)
{
	struct aes_params p;
	uint64_t ctx[2], src, dst[2];
	uint32_t round, second;
	uint8_t poison[64];

	random_params(&p, HWE_MODE_CTR, 16, false);
	memset(poison, 0x5a, sizeof(poison));
	for (round = 0; round < 3 * RING_ENTRIES / 4; round++) {
		ctx[0] = put_context(&p);	/* one each: the engine writes the IV back */
		ctx[1] = put_context(&p);
		src = ram_alloc_random(64);
		dst[0] = ram_alloc(64);
		dst[1] = ram_alloc(64);
		memcpy(t.ram + dst[1], poison, 64);
		push_request(ctx[0], src, dst[0], 64);
		second = push_request(ctx[1], src, dst[1], 64);

		/* publish the first request only: the second is still the driver's */
		wr32(HWE_REG_RING_HEAD, t.head - 2);
		ring_doorbell(HWE_DB_DMA);
		ck_assert_uint_eq(wait_irq(HWE_MSIX_DMA), 1);
		ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), t.head - 2);
		ck_assert_uint_eq(rd64(HWE_REG_RING_CUR_ADDR),
				  RING_GPA + ((t.head - 2) & (RING_ENTRIES - 1)) * 32);
		ck_assert_uint_eq(desc_status(second), 0);
		ck_assert_mem_eq(t.ram + dst[1], poison, 64);

		publish_and_wait();
		ck_assert_uint_eq(desc_status(second), HWE_DSTAT_DONE);
		ck_assert_mem_eq(t.ram + dst[1], t.ram + dst[0], 64);
	}
	ck_assert_uint_gt(t.head, RING_ENTRIES);	/* wrapped at least once */
}
END_TEST

/* HEAD more than a ring ahead halts DMA until reset; reset resumes at HEAD. */
START_TEST(test_ring_overrun_halts_until_reset)
{
	struct aes_params p;
	uint64_t ctx, src, copy, dst;

	t.head += RING_ENTRIES + 1;
	publish();
	ck_assert_uint_eq(wait_irq(HWE_MSIX_DMA), 1);
	ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), HWE_INT_DMA_ERROR);
	ck_assert(rd32(HWE_REG_STATUS) & HWE_STATUS_DMA_HALTED);
	ck_assert_uint_eq(rd32(HWE_REG_LAST_ERROR), HWE_ERR_RING);
	ring_doorbell(HWE_DB_DMA);	/* still halted */
	ck_assert_uint_eq(wait_irq(HWE_MSIX_DMA), 1);
	ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), t.head - RING_ENTRIES - 1);

	engine_reset();
	ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), t.head);
	ck_assert_uint_eq(rd32(HWE_REG_STATUS), HWE_STATUS_RING_VALID);
	ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), 0);
	random_params(&p, HWE_MODE_CBC, 16, false);
	ctx = put_context(&p);
	src = ram_alloc_random(128);
	copy = ram_alloc(128);
	memcpy(t.ram + copy, t.ram + src, 128);
	dst = ram_alloc(128);
	push_request(ctx, src, dst, 128);
	publish_and_wait();
	check_dma_request(&p, ctx, copy, dst, 128);
}
END_TEST

START_TEST(test_ring_config_checked_at_reset)
{
	wr64(HWE_REG_RING_BASE, RAM_SIZE - 4 * 32);	/* ring runs past the end of RAM */
	wr32(HWE_REG_RING_SIZE, 8);
	engine_reset();
	ck_assert(!(rd32(HWE_REG_STATUS) & HWE_STATUS_RING_VALID));
	ck_assert_uint_eq(rd32(HWE_REG_LAST_ERROR), HWE_ERR_RING);
	publish();
	ck_assert_uint_eq(wait_irq(HWE_MSIX_DMA), 1);
	ck_assert(rd32(HWE_REG_INT_STATUS) & HWE_INT_DMA_ERROR);

	wr64(HWE_REG_RING_BASE, RING_GPA);
	wr32(HWE_REG_RING_SIZE, 12);			/* not a power of two */
	engine_reset();
	ck_assert(!(rd32(HWE_REG_STATUS) & HWE_STATUS_RING_VALID));
	wr32(HWE_REG_RING_SIZE, RING_ENTRIES);
	engine_reset();
	ck_assert(rd32(HWE_REG_STATUS) & HWE_STATUS_RING_VALID);
}
END_TEST

/* BREAK_CHAIN stops the walk and interrupts; the next doorbell resumes. */
START_TEST(test_break_chain)
{
	struct aes_params p;
	uint64_t ctx, src, dst;
	uint32_t first, second;

	random_params(&p, HWE_MODE_ECB, 16, false);
	ctx = put_context(&p);
	src = ram_alloc_random(32);
	dst = ram_alloc(32);
	push_load_ctx(ctx);
	first = push_desc(src, dst, 16,
			  HWE_DESC_DATA | HWE_DESC_END_OF_REQ | HWE_DESC_BREAK_CHAIN);
	second = push_request(ctx, src + 16, dst + 16, 16);
	publish();
	ck_assert_uint_eq(wait_irq(HWE_MSIX_DMA), 1);
	ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), first + 1);
	ck_assert_uint_eq(desc_status(second), 0);
	ring_doorbell(HWE_DB_DMA);
	ck_assert_uint_eq(wait_irq(HWE_MSIX_DMA), 1);
	ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), t.head);
	ck_assert_uint_eq(desc_status(second), HWE_DSTAT_DONE);
}
END_TEST

/* A good request over DMA; checks the result and the interrupt. */
static void dma_request_succeeds(void)
{
	struct aes_params p;
	uint64_t ctx, src, copy, dst;
	uint32_t data;

	random_params(&p, HWE_MODE_CTR, 24, false);
	ctx = put_context(&p);
	src = ram_alloc_random(512);
	copy = ram_alloc(512);
	memcpy(t.ram + copy, t.ram + src, 512);
	dst = ram_alloc(512);
	data = push_request(ctx, src, dst, 512);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(data), HWE_DSTAT_DONE);
	check_dma_request(&p, ctx, copy, dst, 512);
}

/* A good request over PIO (the reset wiped the key registers: load a fresh context). */
static void pio_request_succeeds(void)
{
	uint8_t in[100], out[100], expect[100];
	struct aes_params p;

	random_params(&p, HWE_MODE_CTR, 16, true);
	random_bytes(in, sizeof(in));
	pio_load_context(&p);
	ck_assert_uint_eq(pio_run(in, out, sizeof(in)), HWE_ERR_NONE);
	reference_crypt(&p, in, expect, sizeof(in), NULL);
	ck_assert_mem_eq(out, expect, sizeof(in));
}

START_TEST(test_fault_dma_error)
{
	struct aes_params p;
	uint64_t ctx, src, dst;
	uint32_t i, data[3];

	random_params(&p, HWE_MODE_CBC, 16, false);
	ctx = put_context(&p);
	src = ram_alloc_random(64);
	dst = ram_alloc(64);
	wr32(HWE_REG_FAULT_DMA_ERROR, 2);
	for (i = 0; i < 3; i++)
		data[i] = push_request(ctx, src, dst, 64);
	publish_and_wait();
	for (i = 0; i < 2; i++) {
		ck_assert_uint_eq(desc_status(data[i] - 1), HWE_DSTAT_DONE | HWE_ERR_DMA_FAULT);
		ck_assert_uint_eq(desc_status(data[i]), HWE_DSTAT_DONE | HWE_ERR_ABORTED);
	}
	ck_assert_uint_eq(desc_status(data[2]), HWE_DSTAT_DONE);
	ck_assert(rd32(HWE_REG_INT_STATUS) & HWE_INT_DMA_ERROR);
	ck_assert_uint_eq(rd32(HWE_REG_FAULT_DMA_ERROR), 0);

	wr32(HWE_REG_FAULT_DMA_ERROR, 1);
	data[0] = push_request(ctx, src, dst, 64);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(data[0] - 1), HWE_DSTAT_DONE | HWE_ERR_DMA_FAULT);
	engine_reset();
	dma_request_succeeds();
}
END_TEST

/* A stalled DMA request never completes; the driver's timeout resets, and work resumes. */
START_TEST(test_fault_stall_dma)
{
	struct aes_params p;
	uint64_t ctx, src, dst;
	uint32_t cur = t.head, data;

	random_params(&p, HWE_MODE_CBC, 16, false);
	ctx = put_context(&p);
	src = ram_alloc_random(64);
	dst = ram_alloc(64);
	wr32(HWE_REG_FAULT_STALL, 1);
	data = push_request(ctx, src, dst, 64);
	publish();
	wait_reg(HWE_REG_FAULT_STALL, ~0U, 0);		/* the engine took the fault */
	ck_assert(rd32(HWE_REG_STATUS) & HWE_STATUS_DMA_BUSY);
	ring_doorbell(HWE_DB_DMA);			/* deaf while stalled */
	pio_post(NULL, 16);
	wait_reg64(HWE_REG_CNT_DOORBELLS, 4);		/* fixture reset + 3 */
	ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), cur);
	ck_assert_uint_eq(desc_status(data), 0);
	ck_assert_uint_eq(irqs_pending(HWE_MSIX_DMA), 0);
	ck_assert_uint_ne(rd32(HWE_REG_PIO_DONE_SEQ), t.pio_seq);

	engine_reset();
	ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), t.head);	/* pending work dropped */
	ck_assert_uint_eq(rd32(HWE_REG_PIO_DONE_SEQ), t.pio_seq);
	ck_assert_uint_eq(rd32(HWE_REG_STATUS), HWE_STATUS_RING_VALID);
	dma_request_succeeds();
	pio_request_succeeds();
}
END_TEST

START_TEST(test_fault_stall_pio)
{
	uint8_t in[32] = { 0 };

	random_bytes(in, sizeof(in));
	wr32(HWE_REG_FAULT_STALL, 1);
	pio_post(in, sizeof(in));
	wait_reg(HWE_REG_FAULT_STALL, ~0U, 0);
	ck_assert(rd32(HWE_REG_STATUS) & HWE_STATUS_PIO_BUSY);
	ck_assert_uint_ne(rd32(HWE_REG_PIO_DONE_SEQ), t.pio_seq);
	engine_reset();
	ck_assert_uint_eq(rd32(HWE_REG_PIO_DONE_SEQ), t.pio_seq);
	pio_request_succeeds();
}
END_TEST

/* A lost interrupt: the work is done and INT_STATUS says so, but no MSI-X arrives. */
START_TEST(test_fault_lost_interrupt)
{
	struct aes_params p;
	uint64_t ctx, src, dst;
	uint32_t data;

	random_params(&p, HWE_MODE_ECB, 32, false);
	ctx = put_context(&p);
	src = ram_alloc_random(64);
	dst = ram_alloc(64);
	wr32(HWE_REG_FAULT_LOST_IRQ, 1);
	data = push_request(ctx, src, dst, 64);
	publish();
	wait_reg64(HWE_REG_CNT_IRQS_LOST, 1);
	ck_assert_uint_eq(irqs_pending(HWE_MSIX_DMA), 0);
	ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), HWE_INT_DMA_DONE);
	ck_assert_uint_eq(desc_status(data), HWE_DSTAT_DONE);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_IRQS), 0);
	engine_reset();
	dma_request_succeeds();
}
END_TEST

START_TEST(test_fault_fifo_error)
{
	uint8_t in[48], out[48];
	struct aes_params p;

	random_params(&p, HWE_MODE_CBC, 24, false);
	random_bytes(in, sizeof(in));
	pio_load_context(&p);
	wr32(HWE_REG_FAULT_FIFO_ERROR, 1);
	ck_assert_uint_eq(pio_run(in, out, sizeof(in)), HWE_ERR_FIFO);
	check_pio_error(HWE_ERR_FIFO);
	ck_assert_mem_eq(t.bar2 + HWE_REG_AES_IV, p.iv, 16);	/* no IV update */
	engine_reset();
	pio_request_succeeds();
}
END_TEST

START_TEST(test_reset_wipes_context_and_disarms_faults)
{
	static const uint8_t zero[32];
	struct aes_params p;

	random_params(&p, HWE_MODE_CBC, 32, false);
	pio_load_context(&p);
	wr32(HWE_REG_FAULT_DMA_ERROR, 5);
	wr32(HWE_REG_FAULT_LOST_IRQ, 5);
	engine_reset();
	ck_assert_mem_eq(t.bar2 + HWE_REG_AES_KEY, zero, 32);
	ck_assert_mem_eq(t.bar2 + HWE_REG_AES_IV, zero, 16);
	ck_assert_uint_eq(rd32(HWE_REG_AES_CFG), 0);
	ck_assert_uint_eq(rd32(HWE_REG_FAULT_DMA_ERROR), 0);
	ck_assert_uint_eq(rd32(HWE_REG_FAULT_LOST_IRQ), 0);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_RESETS), 2);
	dma_request_succeeds();
}
END_TEST

/* A masked source sets its status bit without a message; PIO can interrupt if asked to. */
START_TEST(test_interrupt_enable_and_w1c)
{
	struct aes_params p;
	uint64_t ctx, src, dst;

	wr32(HWE_REG_INT_ENABLE, 0);
	random_params(&p, HWE_MODE_ECB, 16, false);
	ctx = put_context(&p);
	src = ram_alloc_random(32);
	dst = ram_alloc(32);
	push_request(ctx, src, dst, 32);
	push_request(ctx, src + 8, dst, 32);	/* misaligned: DMA_ERROR too */
	publish();
	wait_reg(HWE_REG_INT_STATUS, ~0U, HWE_INT_DMA_DONE | HWE_INT_DMA_ERROR);
	ck_assert_uint_eq(irqs_pending(HWE_MSIX_DMA), 0);

	w1c(HWE_REG_INT_STATUS, HWE_INT_DMA_DONE);	/* clears only the bit written */
	ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), HWE_INT_DMA_ERROR);
	w1c(HWE_REG_INT_STATUS, HWE_INT_DMA_ERROR);

	wr32(HWE_REG_INT_ENABLE, HWE_INT_PIO_DONE);
	pio_request_succeeds();
	ck_assert_uint_eq(wait_irq(HWE_MSIX_PIO), 1);
	ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), HWE_INT_PIO_DONE);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_IRQS), 1);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_IRQS), 0);
}
END_TEST

START_TEST(test_counters)
{
	uint64_t pio_busy, dma_busy;

	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_BUSY_NS), 0);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_BUSY_NS), 0);
	/* each request's busy time is in its path's counter once its completion is visible */
	pio_request_succeeds();
	pio_busy = rd64(HWE_REG_CNT_PIO_BUSY_NS);
	ck_assert_uint_gt(pio_busy, 0);
	pio_request_succeeds();
	ck_assert_uint_gt(rd64(HWE_REG_CNT_PIO_BUSY_NS), pio_busy);
	pio_busy = rd64(HWE_REG_CNT_PIO_BUSY_NS);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_BUSY_NS), 0);
	dma_request_succeeds();
	dma_busy = rd64(HWE_REG_CNT_DMA_BUSY_NS);
	ck_assert_uint_gt(dma_busy, 0);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_BUSY_NS), pio_busy);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_REQUESTS), 2);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_BYTES), 200);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_REQUESTS), 1);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_BYTES), 512);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_DESCS), 2);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_IRQS), 1);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_ERRORS), 0);
}
END_TEST

/* ======== hash unit ======== */

static const struct {
	uint32_t alg;
	const char *name;	/* OpenSSL's, for the reference */
	uint32_t block;
} hash_algs[] = {
	{ HWE_HASH_MD5, "MD5", 64 },
	{ HWE_HASH_SHA1, "SHA1", 64 },
	{ HWE_HASH_SHA224, "SHA224", 64 },
	{ HWE_HASH_SHA256, "SHA256", 64 },
	{ HWE_HASH_SHA384, "SHA384", 128 },
	{ HWE_HASH_SHA512, "SHA512", 128 },
};

#define NUM_HASH_ALGS	(sizeof(hash_algs) / sizeof(hash_algs[0]))

enum hash_path { PATH_PIO, PATH_DMA, PATH_ALTERNATE };

/*
 * The driver keeps each stream's context in the record layout whichever path it uses:
 * PIO loads it into the hash registers and saves it back after the request.
 */
static void hash_ctx_init(struct hwe_hash_ctx *ctx, size_t a)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->cfg = htole32(HWE_CFG(HWE_UNIT_HASH, hash_algs[a].alg, 0, 0) | HWE_HASH_INIT);
}

static void hash_ctx_flags(struct hwe_hash_ctx *ctx, uint32_t clear, uint32_t set)
{
	ctx->cfg = htole32((le32toh(ctx->cfg) & ~clear) | set);
}

/* One PIO hash request: restore @ctx, run @in, save it back on success; returns the result. */
static uint32_t pio_hash(struct hwe_hash_ctx *ctx, const uint8_t *in, uint32_t len)
{
	uint32_t result;

	wr32(HWE_REG_PIO_UNIT, HWE_UNIT_HASH);
	wr32(HWE_REG_HASH_CFG, le32toh(ctx->cfg));
	wr64(HWE_REG_HASH_LEN_LO, le64toh(ctx->len_lo));
	wr64(HWE_REG_HASH_LEN_HI, le64toh(ctx->len_hi));
	memcpy(t.bar2 + HWE_REG_HASH_STATE, ctx->state, sizeof(ctx->state));
	pio_post(in, len);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	result = rd32(HWE_REG_PIO_RESULT);
	ck_assert_uint_eq(rd32(HWE_REG_FIFO_IN_LEVEL), 0);
	ck_assert_uint_eq(rd32(HWE_REG_FIFO_OUT_LEVEL), 0);	/* a hash has no output */
	if (result == HWE_ERR_NONE) {
		ctx->len_lo = htole64(rd64(HWE_REG_HASH_LEN_LO));
		ctx->len_hi = htole64(rd64(HWE_REG_HASH_LEN_HI));
		memcpy(ctx->state, t.bar2 + HWE_REG_HASH_STATE, sizeof(ctx->state));
	}
	return result;
}

/*
 * One DMA hash request: LOAD_CTX of a copy of @ctx, then @in as two DATA descriptors (whole
 * blocks, then the rest); copies the record back. Returns the first descriptor error.
 */
static uint32_t dma_hash(struct hwe_hash_ctx *ctx, const uint8_t *in, uint32_t len)
{
	uint64_t rec = ram_alloc(sizeof(*ctx)), src = ram_alloc(len);
	uint32_t whole = len / 2 - len / 2 % HWE_HASH_BLOCK_MAX, first, i, status, err = 0;

	memcpy(t.ram + rec, ctx, sizeof(*ctx));
	memcpy(t.ram + src, in, len);
	first = push_desc(rec, 0, sizeof(*ctx),
			  HWE_DESC_LOAD_CTX | (len == 0 ? HWE_DESC_END_OF_REQ : 0));
	if (whole)
		push_desc(src, 0, whole,
			  HWE_DESC_DATA | (whole == len ? HWE_DESC_END_OF_REQ : 0));
	if (len > whole)
		push_desc(src + whole, 0, len - whole, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	for (i = first; i != t.head; i++) {
		status = desc_status(i);
		ck_assert(status & HWE_DSTAT_DONE);
		if (!err)
			err = status & HWE_DSTAT_ERR_MASK;
	}
	memcpy(ctx, t.ram + rec, sizeof(*ctx));
	w1c(HWE_REG_INT_STATUS, HWE_INT_DMA_DONE | HWE_INT_DMA_ERROR);
	return err;
}

static uint32_t hash_request(struct hwe_hash_ctx *ctx, const uint8_t *in, uint32_t len, bool dma)
{
	return dma ? dma_hash(ctx, in, len) : pio_hash(ctx, in, len);
}

static bool path_is_dma(enum hash_path path, size_t request)
{
	return path == PATH_DMA || (path == PATH_ALTERNATE && request % 2);
}

/* Hash @msg in requests of @chunk bytes (whole blocks) and a FINAL rest, on @path. */
static void hash_message(struct hwe_hash_ctx *ctx, size_t a, const uint8_t *msg, size_t len,
			 size_t chunk, enum hash_path path)
{
	size_t done = 0, k = 0;

	hash_ctx_init(ctx, a);
	for (; len - done > chunk; done += chunk, k++) {
		ck_assert_uint_eq(hash_request(ctx, msg + done, chunk, path_is_dma(path, k)),
				  HWE_ERR_NONE);
		ck_assert_uint_eq(le64toh(ctx->len_lo), done + chunk);
		hash_ctx_flags(ctx, HWE_HASH_INIT, 0);
	}
	hash_ctx_flags(ctx, 0, HWE_HASH_FINAL);
	ck_assert_uint_eq(hash_request(ctx, msg + done, len - done, path_is_dma(path, k)),
			  HWE_ERR_NONE);
}

/* The record holds the digest of @msg, zeros after it, and the total length. */
static void check_digest(const struct hwe_hash_ctx *ctx, size_t a, const uint8_t *msg, size_t len)
{
	static const uint8_t zero[HWE_HASH_STATE_SIZE];
	uint8_t md[EVP_MAX_MD_SIZE];
	unsigned int md_len;

	ck_assert_int_eq(EVP_Digest(msg, len, md, &md_len, EVP_get_digestbyname(hash_algs[a].name),
				    NULL), 1);
	ck_assert_msg(memcmp(ctx->state, md, md_len) == 0, "%s digest of %zu bytes differs",
		      hash_algs[a].name, len);
	ck_assert_mem_eq(ctx->state + md_len, zero, sizeof(ctx->state) - md_len);
	ck_assert_uint_eq(le64toh(ctx->len_lo), len);
	ck_assert_uint_eq(le64toh(ctx->len_hi), 0);
}

/* Every algorithm by PIO and by DMA, one request; then a long message over both paths. */
START_TEST(test_hash_algorithms)
{
	static uint8_t msg[20000];
	struct hwe_hash_ctx ctx;
	size_t a, len, chunk;
	int path;

	random_bytes(msg, sizeof(msg));
	for (a = 0; a < NUM_HASH_ALGS; a++) {
		for (path = PATH_PIO; path <= PATH_DMA; path++) {
			len = random_below(3 * 1024 + 1);
			hash_message(&ctx, a, msg, len, HWE_FIFO_DEPTH, path);
			check_digest(&ctx, a, msg, len);
		}
		/* the state saved from one path resumes on the other */
		len = 5000 + random_below(sizeof(msg) - 5000 + 1);
		chunk = hash_algs[a].block;
		chunk *= 1 + random_below(HWE_FIFO_DEPTH / chunk);
		hash_message(&ctx, a, msg, len, chunk, PATH_ALTERNATE);
		check_digest(&ctx, a, msg, len);
	}
}
END_TEST

/* The engine pads the final block at every length around the block boundary. */
START_TEST(test_hash_padding_boundaries)
{
	static const uint32_t lens[] = { 0, 1, 55, 56, 57, 63, 64, 65, 111, 112, 113, 119, 120,
					 127, 128, 129, 191, 192, 255, 256 };
	uint8_t msg[256];
	struct hwe_hash_ctx ctx;
	size_t a, i;
	int path;

	random_bytes(msg, sizeof(msg));
	for (a = 0; a < NUM_HASH_ALGS; a++) {
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			for (path = PATH_PIO; path <= PATH_ALTERNATE; path++) {
				hash_message(&ctx, a, msg, lens[i], HWE_FIFO_DEPTH, path);
				check_digest(&ctx, a, msg, lens[i]);
				/* block by block: the restored length counter feeds the padding */
				hash_message(&ctx, a, msg, lens[i], hash_algs[a].block, path);
				check_digest(&ctx, a, msg, lens[i]);
			}
		}
	}
}
END_TEST

struct hash_stream {
	struct hwe_hash_ctx ctx;
	size_t alg;
	uint8_t msg[6000];
	size_t len, done;
};

/* One request of a random number of blocks (FINAL when the rest fits), on a random path. */
static void hash_stream_step(struct hash_stream *s)
{
	size_t chunk = hash_algs[s->alg].block * (1 + random_below(8));

	if (s->len - s->done <= chunk) {
		chunk = s->len - s->done;
		hash_ctx_flags(&s->ctx, 0, HWE_HASH_FINAL);
	}
	ck_assert_uint_eq(hash_request(&s->ctx, s->msg + s->done, chunk, random_below(2)),
			  HWE_ERR_NONE);
	hash_ctx_flags(&s->ctx, HWE_HASH_INIT, 0);
	s->done += chunk;
}

/* Two streams share the engine, their contexts saved and restored around every request. */
START_TEST(test_hash_streams_interleaved)
{
	static struct hash_stream s[2];
	size_t a, i;

	for (a = 0; a < NUM_HASH_ALGS; a++) {
		for (i = 0; i < 2; i++) {
			s[i].alg = (a + 3 * i) % NUM_HASH_ALGS;	/* mixes the block sizes */
			s[i].len = 1000 + random_below(sizeof(s[i].msg) - 1000 + 1);
			s[i].done = 0;
			random_bytes(s[i].msg, s[i].len);
			hash_ctx_init(&s[i].ctx, s[i].alg);
		}
		while (!(le32toh(s[0].ctx.cfg) & HWE_HASH_FINAL) ||
		       !(le32toh(s[1].ctx.cfg) & HWE_HASH_FINAL)) {
			i = random_below(2);
			if (!(le32toh(s[i].ctx.cfg) & HWE_HASH_FINAL))
				hash_stream_step(&s[i]);
		}
		for (i = 0; i < 2; i++)
			check_digest(&s[i].ctx, s[i].alg, s[i].msg, s[i].len);
	}
}
END_TEST

START_TEST(test_hash_pio_errors)
{
	static const uint8_t zero[HWE_HASH_STATE_SIZE];
	struct hwe_hash_ctx ctx;
	uint8_t msg[200];

	random_bytes(msg, sizeof(msg));
	hash_ctx_init(&ctx, 3);
	ck_assert_uint_eq(pio_hash(&ctx, msg, 100), HWE_ERR_BAD_LEN);	/* not whole blocks */
	check_pio_error(HWE_ERR_BAD_LEN);
	ck_assert_uint_eq(rd64(HWE_REG_HASH_LEN_LO), 0);	/* nothing written back */
	ck_assert_mem_eq(t.bar2 + HWE_REG_HASH_STATE, zero, sizeof(zero));
	ck_assert_uint_eq(pio_hash(&ctx, msg, 0), HWE_ERR_BAD_LEN);	/* empty, not final */
	check_pio_error(HWE_ERR_BAD_LEN);

	ctx.cfg = htole32(HWE_CFG(HWE_UNIT_HASH, 7, 0, 0) | HWE_HASH_INIT);
	ck_assert_uint_eq(pio_hash(&ctx, msg, 64), HWE_ERR_BAD_CTX);
	check_pio_error(HWE_ERR_BAD_CTX);
	ctx.cfg = htole32(HWE_CFG(HWE_UNIT_HASH, HWE_HASH_SHA1, 16, 0) | HWE_HASH_INIT);
	ck_assert_uint_eq(pio_hash(&ctx, msg, 64), HWE_ERR_BAD_CTX);	/* a key length */
	check_pio_error(HWE_ERR_BAD_CTX);
	ctx.cfg = htole32(HWE_CFG(HWE_UNIT_AES, HWE_HASH_SHA1, 0, 0) | HWE_HASH_INIT);
	ck_assert_uint_eq(pio_hash(&ctx, msg, 64), HWE_ERR_BAD_CTX);
	check_pio_error(HWE_ERR_BAD_CTX);
	hash_ctx_init(&ctx, 0);
	hash_ctx_flags(&ctx, HWE_HASH_INIT, 0);
	ctx.len_lo = htole64(100);	/* a saved state is always at a block boundary */
	ck_assert_uint_eq(pio_hash(&ctx, msg, 64), HWE_ERR_BAD_CTX);
	check_pio_error(HWE_ERR_BAD_CTX);
	wr32(HWE_REG_PIO_UNIT, 2);
	pio_post(msg, 64);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	check_pio_error(HWE_ERR_BAD_CTX);

	hash_message(&ctx, 5, msg, sizeof(msg), 128, PATH_PIO);
	check_digest(&ctx, 5, msg, sizeof(msg));
}
END_TEST

/* Hash DMA errors fail their request only, and leave its record untouched. */
START_TEST(test_hash_dma_errors)
{
	struct hwe_hash_ctx ctx, saved;
	uint64_t rec, src;
	uint32_t d[2];
	uint8_t msg[256];

	random_bytes(msg, sizeof(msg));
	hash_ctx_init(&ctx, 3);
	saved = ctx;
	ck_assert_uint_eq(dma_hash(&ctx, msg, 100), HWE_ERR_BAD_LEN);	/* not final */
	ck_assert_mem_eq(&ctx, &saved, sizeof(ctx));

	rec = ram_alloc(sizeof(ctx));
	src = ram_alloc_random(256);
	memcpy(t.ram + rec, &ctx, sizeof(ctx));
	push_desc(rec, 0, sizeof(ctx), HWE_DESC_LOAD_CTX);
	d[0] = push_desc(src, src, 64, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d[0]), HWE_DSTAT_DONE | HWE_ERR_BAD_DESC);

	push_desc(rec, 0, sizeof(ctx), HWE_DESC_LOAD_CTX);
	d[0] = push_desc(src + 8, 0, 64, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d[0]), HWE_DSTAT_DONE | HWE_ERR_MISALIGNED);

	/* in a FINAL request only the last data may end in a partial block */
	hash_ctx_flags((struct hwe_hash_ctx *)(t.ram + rec), 0, HWE_HASH_FINAL);
	push_desc(rec, 0, sizeof(ctx), HWE_DESC_LOAD_CTX);
	d[0] = push_desc(src, 0, 100, HWE_DESC_DATA);
	d[1] = push_desc(src + 112, 0, 64, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d[0]), HWE_DSTAT_DONE);
	ck_assert_uint_eq(desc_status(d[1]), HWE_DSTAT_DONE | HWE_ERR_BAD_LEN);

	d[0] = push_desc(rec, 0, 80, HWE_DESC_LOAD_CTX | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d[0]), HWE_DSTAT_DONE | HWE_ERR_BAD_LEN);
	/* the length picks the record type, and the cfg must match it */
	d[0] = push_desc(rec, 0, sizeof(struct hwe_aes_ctx),
			 HWE_DESC_LOAD_CTX | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d[0]), HWE_DSTAT_DONE | HWE_ERR_BAD_CTX);
	ck_assert_mem_eq(t.ram + rec + 16, &saved.len_lo, sizeof(ctx) - 16);	/* untouched */

	hash_message(&ctx, 1, msg, sizeof(msg), 64, PATH_DMA);
	check_digest(&ctx, 1, msg, sizeof(msg));
}
END_TEST

/* A good SHA-256 request on each path (after a reset). */
static void hash_requests_succeed(void)
{
	struct hwe_hash_ctx ctx;
	uint8_t msg[300];

	random_bytes(msg, sizeof(msg));
	hash_message(&ctx, 3, msg, sizeof(msg), 64, PATH_PIO);
	check_digest(&ctx, 3, msg, sizeof(msg));
	hash_message(&ctx, 3, msg, sizeof(msg), 64, PATH_DMA);
	check_digest(&ctx, 3, msg, sizeof(msg));
}

/* The AES faults apply to hash requests; each shows, and a reset recovers. */
START_TEST(test_hash_faults)
{
	static const uint8_t zero[HWE_REG_HASH_END - HWE_REG_HASH_BASE];
	struct hwe_hash_ctx ctx, saved;
	uint8_t msg[256];	/* the same 128 bytes twice */
	uint64_t rec, src;
	uint32_t load;

	random_bytes(msg, 128);
	memcpy(msg + 128, msg, 128);
	hash_ctx_init(&ctx, 4);
	ck_assert_uint_eq(pio_hash(&ctx, msg, 128), HWE_ERR_NONE);
	hash_ctx_flags(&ctx, HWE_HASH_INIT, 0);
	saved = ctx;
	wr32(HWE_REG_FAULT_FIFO_ERROR, 1);
	ck_assert_uint_eq(pio_hash(&ctx, msg, 128), HWE_ERR_FIFO);
	check_pio_error(HWE_ERR_FIFO);
	ck_assert_mem_eq(t.bar2 + HWE_REG_HASH_STATE, saved.state, sizeof(saved.state));
	ck_assert_uint_eq(rd64(HWE_REG_HASH_LEN_LO), 128);
	engine_reset();
	ck_assert_mem_eq(t.bar2 + HWE_REG_HASH_BASE, zero, sizeof(zero));	/* wiped */
	ck_assert_uint_eq(rd32(HWE_REG_PIO_UNIT), HWE_UNIT_AES);
	hash_requests_succeed();

	wr32(HWE_REG_FAULT_DMA_ERROR, 1);
	load = t.head;
	ck_assert_uint_eq(dma_hash(&ctx, msg, 128), HWE_ERR_DMA_FAULT);
	ck_assert_uint_eq(desc_status(load + 1), HWE_DSTAT_DONE | HWE_ERR_ABORTED);
	ck_assert_mem_eq(&ctx, &saved, sizeof(ctx));	/* no write-back */
	engine_reset();
	hash_requests_succeed();

	wr32(HWE_REG_FAULT_STALL, 1);
	pio_post(msg, 64);
	wait_reg(HWE_REG_FAULT_STALL, ~0U, 0);
	ck_assert(rd32(HWE_REG_STATUS) & HWE_STATUS_PIO_BUSY);
	engine_reset();
	hash_requests_succeed();

	wr32(HWE_REG_FAULT_STALL, 1);
	rec = ram_alloc(sizeof(ctx));
	src = ram_alloc(128);
	memcpy(t.ram + rec, &saved, sizeof(saved));
	memcpy(t.ram + src, msg, 128);
	push_desc(rec, 0, sizeof(ctx), HWE_DESC_LOAD_CTX);
	push_desc(src, 0, 128, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish();
	wait_reg(HWE_REG_FAULT_STALL, ~0U, 0);
	ck_assert(rd32(HWE_REG_STATUS) & HWE_STATUS_DMA_BUSY);
	ck_assert_uint_eq(rd32(HWE_REG_RING_CUR), t.head - 2);
	engine_reset();
	ck_assert_mem_eq(t.ram + rec, &saved, sizeof(saved));
	hash_requests_succeed();

	/* a lost interrupt: the digest is in the record and INT_STATUS says so */
	w1c(HWE_REG_INT_STATUS, HWE_INT_PIO_DONE);
	wr32(HWE_REG_FAULT_LOST_IRQ, 1);
	hash_ctx_flags((struct hwe_hash_ctx *)(t.ram + rec), 0, HWE_HASH_FINAL);
	push_desc(rec, 0, sizeof(ctx), HWE_DESC_LOAD_CTX);
	push_desc(src, 0, 128, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish();
	wait_reg64(HWE_REG_CNT_IRQS_LOST, 1);
	ck_assert_uint_eq(irqs_pending(HWE_MSIX_DMA), 0);
	ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), HWE_INT_DMA_DONE);
	memcpy(&ctx, t.ram + rec, sizeof(ctx));
	check_digest(&ctx, 4, msg, 256);
}
END_TEST

/* ======== GCM mode of the AES unit ======== */

static const uint32_t gcm_tag_lens[] = { 4, 8, 12, 13, 14, 15, 16 };

#define NUM_GCM_TAG_LENS (sizeof(gcm_tag_lens) / sizeof(gcm_tag_lens[0]))

/* One message and what OpenSSL makes of it: the streams AAD || plaintext and AAD || ciphertext. */
struct gcm_message {
	uint32_t keylen;
	uint32_t tag_len;
	uint32_t aad_len;
	uint32_t data_len;
	uint8_t key[32];
	uint8_t iv[HWE_GCM_IV_SIZE];
	uint8_t tag[HWE_GCM_TAG_SIZE];
	uint8_t *plain;
	uint8_t *cipher;
};

static const EVP_CIPHER *reference_gcm(uint32_t keylen)
{
	static const char *const names[3] = { "AES-128-GCM", "AES-192-GCM", "AES-256-GCM" };

	return EVP_get_cipherbyname(names[keylen / 8 - 2]);
}

/* OpenSSL's GCM encrypt of @m->plain: fills @m->cipher (the AAD copied) and @m->tag. */
static void reference_gcm_encrypt(struct gcm_message *m)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	uint8_t *ct = m->cipher + m->aad_len;
	int outl;

	ck_assert_ptr_nonnull(ctx);
	memcpy(m->cipher, m->plain, m->aad_len);
	ck_assert_int_eq(EVP_EncryptInit_ex2(ctx, reference_gcm(m->keylen), m->key, m->iv, NULL),
			 1);
	if (m->aad_len)
		ck_assert_int_eq(EVP_EncryptUpdate(ctx, NULL, &outl, m->plain, (int)m->aad_len), 1);
	if (m->data_len) {
		ck_assert_int_eq(
			EVP_EncryptUpdate(ctx, ct, &outl, m->plain + m->aad_len, (int)m->data_len),
			1);
		ck_assert_int_eq(outl, (int)m->data_len);
	}
	ck_assert_int_eq(EVP_EncryptFinal_ex(ctx, ct + m->data_len, &outl), 1);
	ck_assert_int_eq(outl, 0);
	ck_assert_int_eq(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, HWE_GCM_TAG_SIZE, m->tag),
			 1);
	EVP_CIPHER_CTX_free(ctx);
}

/* A random message of the given shape, with OpenSSL's ciphertext and tag. */
static void gcm_message_random(struct gcm_message *m, uint32_t keylen, uint32_t aad_len,
			       uint32_t data_len)
{
	size_t total = (size_t)aad_len + data_len;

	memset(m, 0, sizeof(*m));
	m->keylen = keylen;
	m->tag_len = gcm_tag_lens[random_below(NUM_GCM_TAG_LENS)];
	m->aad_len = aad_len;
	m->data_len = data_len;
	random_bytes(m->key, sizeof(m->key));
	random_bytes(m->iv, sizeof(m->iv));
	m->plain = malloc(total + 1);
	m->cipher = malloc(total + 1);
	ck_assert(m->plain && m->cipher);
	random_bytes(m->plain, total + 1);
	reference_gcm_encrypt(m);
}

static void gcm_message_free(struct gcm_message *m)
{
	free(m->plain);
	free(m->cipher);
}

static uint32_t gcm_cfg(const struct gcm_message *m, bool decrypt)
{
	return HWE_CFG(HWE_UNIT_AES, HWE_MODE_GCM, m->keylen, decrypt);
}

/*
 * One PIO GCM request of @m, @tag_in the expected tag of a decrypt. On NONE, @out gets the
 * output stream (AAD || data) and @tag_out GCM_TAG; otherwise FIFO_OUT must be empty.
 */
static uint32_t pio_gcm(const struct gcm_message *m, bool decrypt, const uint8_t *tag_in,
			uint8_t *out, uint8_t *tag_out)
{
	uint32_t len = m->aad_len + m->data_len, result;

	wr32(HWE_REG_PIO_UNIT, HWE_UNIT_AES);
	wr32(HWE_REG_AES_CFG, gcm_cfg(m, decrypt));
	wr32(HWE_REG_AES_CTR_OFFSET, 0);
	memcpy(t.bar2 + HWE_REG_AES_KEY, m->key, sizeof(m->key));
	memcpy(t.bar2 + HWE_REG_AES_IV, m->iv, sizeof(m->iv));
	wr32(HWE_REG_GCM_AAD_LEN, m->aad_len);
	wr32(HWE_REG_GCM_DATA_LEN, m->data_len);
	wr32(HWE_REG_GCM_TAG_LEN, m->tag_len);
	memcpy(t.bar2 + HWE_REG_GCM_TAG, tag_in, HWE_GCM_TAG_SIZE);
	pio_post(decrypt ? m->cipher : m->plain, len);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	result = rd32(HWE_REG_PIO_RESULT);
	ck_assert_uint_eq(rd32(HWE_REG_FIFO_IN_LEVEL), 0);
	if (result != HWE_ERR_NONE) {
		ck_assert_uint_eq(rd32(HWE_REG_FIFO_OUT_LEVEL), 0);
		return result;
	}
	ck_assert_uint_eq(rd32(HWE_REG_FIFO_OUT_LEVEL), len);
	memcpy(out, t.bar2 + HWE_FIFO_OUT, len);
	wr32(HWE_REG_FIFO_OUT_LEVEL, 0);
	memcpy(tag_out, t.bar2 + HWE_REG_GCM_TAG, HWE_GCM_TAG_SIZE);
	return result;
}

/* Where a DMA GCM request left things in guest RAM. */
struct gcm_dma_request {
	uint64_t record;
	uint64_t src;
	uint64_t dst;
	uint32_t first; /* its LOAD_CTX descriptor */
	uint32_t last; /* its END_OF_REQ descriptor */
};

static uint64_t put_gcm_context(const struct gcm_message *m, bool decrypt, const uint8_t *tag)
{
	uint64_t addr = ram_alloc(sizeof(struct hwe_gcm_ctx));
	struct hwe_gcm_ctx *rec = (struct hwe_gcm_ctx *)(t.ram + addr);

	memset(rec, 0, sizeof(*rec));
	rec->cfg = htole32(gcm_cfg(m, decrypt));
	rec->tag_len = htole32(m->tag_len);
	rec->aad_len = htole32(m->aad_len);
	rec->data_len = htole32(m->data_len);
	memcpy(rec->iv, m->iv, sizeof(rec->iv));
	memcpy(rec->key, m->key, sizeof(rec->key));
	memcpy(rec->tag, tag, sizeof(rec->tag));
	return addr;
}

/*
 * Push one DMA GCM request of @m without publishing it: the record, then the input stream in
 * up to @pieces DATA descriptors cut at random block boundaries (the last may end in a partial
 * block). The destination is filled with 0xa5 first, unless in place.
 */
static void push_gcm_request(const struct gcm_message *m, bool decrypt, const uint8_t *tag,
			     bool in_place, uint32_t pieces, struct gcm_dma_request *r)
{
	uint32_t total = m->aad_len + m->data_len, pos = 0, n, i;

	r->record = put_gcm_context(m, decrypt, tag);
	r->src = ram_alloc(total);
	memcpy(t.ram + r->src, decrypt ? m->cipher : m->plain, total);
	r->dst = in_place ? r->src : ram_alloc(total);
	if (!in_place)
		memset(t.ram + r->dst, 0xa5, total);
	r->first = push_desc(r->record, 0, sizeof(struct hwe_gcm_ctx),
			     HWE_DESC_LOAD_CTX | (total == 0 ? HWE_DESC_END_OF_REQ : 0));
	r->last = r->first;
	for (i = 0; pos < total; i++, pos += n) {
		n = total - pos;
		if (i + 1 < pieces && n > 16)
			n = 16 * (1 + random_below((n - 1) / 16));
		r->last = push_desc(r->src + pos, r->dst + pos, n,
				    HWE_DESC_DATA | (pos + n == total ? HWE_DESC_END_OF_REQ : 0));
	}
}

/* The request's result: every descriptor DONE, the first non-zero code among them. */
static uint32_t gcm_request_result(const struct gcm_dma_request *r)
{
	uint32_t i, status, err = HWE_ERR_NONE;

	for (i = r->first; i != r->last + 1; i++) {
		status = desc_status(i);
		ck_assert(status & HWE_DSTAT_DONE);
		if (!err)
			err = status & HWE_DSTAT_ERR_MASK;
	}
	return err;
}

static uint32_t dma_gcm(const struct gcm_message *m, bool decrypt, const uint8_t *tag,
			bool in_place, uint32_t pieces, struct gcm_dma_request *r)
{
	push_gcm_request(m, decrypt, tag, in_place, pieces, r);
	publish_and_wait();
	w1c(HWE_REG_INT_STATUS, HWE_INT_DMA_DONE | HWE_INT_DMA_ERROR);
	return gcm_request_result(r);
}

static const uint8_t *gcm_record_tag(const struct gcm_dma_request *r)
{
	return ((struct hwe_gcm_ctx *)(t.ram + r->record))->tag;
}

/*
 * @m both ways on one path: the encrypt gives OpenSSL's ciphertext (the AAD passed through)
 * and tag, and the decrypt of that with the tag gives the plaintext back.
 */
static void check_gcm_message(const struct gcm_message *m, bool dma, bool in_place, uint32_t pieces)
{
	uint32_t total = m->aad_len + m->data_len;
	uint8_t *out = malloc(total + 1), tag[HWE_GCM_TAG_SIZE], poison[HWE_GCM_TAG_SIZE];
	struct gcm_dma_request r;

	ck_assert_ptr_nonnull(out);
	memset(poison, 0x5a, sizeof(poison));
	if (dma) {
		t.heap = HEAP_GPA; /* nothing earlier is needed: large messages fit */
		ck_assert_uint_eq(dma_gcm(m, false, poison, in_place, pieces, &r), HWE_ERR_NONE);
		ck_assert_mem_eq(t.ram + r.dst, m->cipher, total);
		ck_assert_mem_eq(gcm_record_tag(&r), m->tag, HWE_GCM_TAG_SIZE);
		ck_assert_uint_eq(dma_gcm(m, true, m->tag, in_place, pieces, &r), HWE_ERR_NONE);
		ck_assert_mem_eq(t.ram + r.dst, m->plain, total);
		ck_assert_mem_eq(gcm_record_tag(&r), m->tag, HWE_GCM_TAG_SIZE); /* read only */
	} else {
		ck_assert_uint_eq(pio_gcm(m, false, poison, out, tag), HWE_ERR_NONE);
		ck_assert_mem_eq(out, m->cipher, total);
		ck_assert_mem_eq(tag, m->tag, HWE_GCM_TAG_SIZE);
		ck_assert_uint_eq(pio_gcm(m, true, m->tag, out, tag), HWE_ERR_NONE);
		ck_assert_mem_eq(out, m->plain, total);
		ck_assert_mem_eq(tag, m->tag, HWE_GCM_TAG_SIZE);
	}
	free(out);
}

static void hex_decode(uint8_t *out, const char *hex)
{
	size_t i;

	for (i = 0; hex[2 * i]; i++)
		ck_assert_int_eq(sscanf(hex + 2 * i, "%2hhx", &out[i]), 1);
}

/* McGrew and Viega, "The Galois/Counter Mode of Operation (GCM)", Test Cases 1 to 4. */
START_TEST(test_gcm_spec_vectors)
{
	static const char p3[] = "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
				 "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
	static const char c3[] = "42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
				 "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091473f5985";
	static const struct {
		const char *key, *iv, *aad, *plain, *cipher, *tag;
		uint32_t data_len;
	} cases[] = {
		{ "00000000000000000000000000000000", "000000000000000000000000", "", "", "",
		  "58e2fccefa7e3061367f1d57a4e7455a", 0 },
		{ "00000000000000000000000000000000", "000000000000000000000000", "",
		  "00000000000000000000000000000000", "0388dace60b6a392f328c2b971b2fe78",
		  "ab6e47d42cec13bdf53a67b21257bddf", 16 },
		{ "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888", "", p3, c3,
		  "4d5c2af327cd64a62cf35abd2ba6fab4", 64 },
		{ "feffe9928665731c6d6a8f9467308308", "cafebabefacedbaddecaf888",
		  "feedfacedeadbeeffeedfacedeadbeefabaddad2", p3, c3,
		  "5bc94fbc3221a5db94fae95ae7121a47", 60 },
	};
	struct gcm_message m, ref;
	uint8_t plain[20 + 64], cipher[20 + 64];
	size_t i;

	ck_assert(rd32(HWE_REG_CAPS) & HWE_CAP_AES_GCM);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&m, 0, sizeof(m));
		m.keylen = 16;
		m.tag_len = HWE_GCM_TAG_SIZE;
		m.aad_len = strlen(cases[i].aad) / 2;
		m.data_len = cases[i].data_len;
		hex_decode(m.key, cases[i].key);
		hex_decode(m.iv, cases[i].iv);
		hex_decode(m.tag, cases[i].tag);
		hex_decode(plain, cases[i].aad);
		hex_decode(cipher, cases[i].aad);
		hex_decode(plain + m.aad_len, cases[i].plain); /* Test Case 4: the first 60 */
		hex_decode(cipher + m.aad_len, cases[i].cipher);
		m.plain = plain;
		m.cipher = cipher;

		/* the vectors as typed agree with OpenSSL */
		ref = m;
		ref.cipher = malloc(m.aad_len + m.data_len + 1);
		reference_gcm_encrypt(&ref);
		ck_assert_mem_eq(ref.cipher, cipher, m.aad_len + m.data_len);
		ck_assert_mem_eq(ref.tag, m.tag, HWE_GCM_TAG_SIZE);
		free(ref.cipher);

		check_gcm_message(&m, false, false, 1);
		check_gcm_message(&m, true, false, 1);
		check_gcm_message(&m, true, true, 2);
	}
}
END_TEST

/* AAD and data lengths around the block size, both zero, and random ones, for PIO and DMA. */
static const uint32_t gcm_shapes[][2] = {
	{ 0, 0 },   { 0, 1 },	  { 1, 0 },    { 0, 15 },   { 15, 0 },	    { 0, 16 },	{ 16, 0 },
	{ 0, 17 },  { 17, 0 },	  { 1, 1 },    { 15, 17 },  { 16, 16 },	    { 17, 15 }, { 13, 31 },
	{ 20, 60 }, { 13, 1024 }, { 4096, 0 }, { 0, 4096 }, { 2048, 2048 },
};

#define NUM_GCM_SHAPES (sizeof(gcm_shapes) / sizeof(gcm_shapes[0]))

START_TEST(test_gcm_pio_lengths)
{
	static const uint32_t keylens[] = { 16, 24, 32 };
	struct gcm_message m;
	uint32_t aad_len, data_len, k, i;
	uint64_t requests = 0, bytes = 0;

	for (k = 0; k < 3; k++) {
		for (i = 0; i < NUM_GCM_SHAPES + 8; i++) {
			if (i < NUM_GCM_SHAPES) {
				aad_len = gcm_shapes[i][0];
				data_len = gcm_shapes[i][1];
			} else {
				aad_len = random_below(300);
				data_len = random_below(HWE_FIFO_DEPTH - aad_len + 1);
			}
			gcm_message_random(&m, keylens[k], aad_len, data_len);
			check_gcm_message(&m, false, false, 1);
			gcm_message_free(&m);
			requests += 2;
			bytes += 2 * (aad_len + data_len);
		}
	}
	/* a GCM request's bytes are its AAD and data */
	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_REQUESTS), requests);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_BYTES), bytes);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_ERRORS), 0);
}
END_TEST

START_TEST(test_gcm_dma_lengths)
{
	static const uint32_t keylens[] = { 16, 24, 32 };
	static const uint32_t large[][2] = {
		{ 13, 256 * 1024 - 3 },
		{ 0, 256 * 1024 },
		{ 256 * 1024, 0 },
		{ 4095, 65537 },
	};
	struct gcm_message m;
	uint32_t aad_len, data_len, k, i, n = 0;
	uint64_t bytes = 0;

	for (k = 0; k < 3; k++) {
		for (i = 0; i < NUM_GCM_SHAPES + 4 + 6; i++) {
			if (i < NUM_GCM_SHAPES) {
				aad_len = gcm_shapes[i][0];
				data_len = gcm_shapes[i][1];
			} else if (i < NUM_GCM_SHAPES + 4) {
				aad_len = large[i - NUM_GCM_SHAPES][0];
				data_len = large[i - NUM_GCM_SHAPES][1];
			} else {
				aad_len = random_below(1000);
				data_len = random_below(40000);
			}
			gcm_message_random(&m, keylens[k], aad_len, data_len);
			/* in place and not, in one to four pieces */
			check_gcm_message(&m, true, n % 2, 1 + n % 4);
			gcm_message_free(&m);
			bytes += 2 * (aad_len + data_len);
			n++;
		}
	}
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_REQUESTS), 2 * n);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_BYTES), bytes);
	ck_assert_uint_eq(rd64(HWE_REG_CNT_ERRORS), 0);
}
END_TEST

/*
 * A flipped bit in the compared part of the tag is refused, at every compare length, as a
 * result and not a fault; a flipped bit past tag_len is not compared.
 */
START_TEST(test_gcm_tag_mismatch)
{
	uint8_t out[600], tag[HWE_GCM_TAG_SIZE], bad[HWE_GCM_TAG_SIZE];
	uint64_t mismatches = 0, pio_requests, dma_requests;
	struct gcm_message m;
	struct gcm_dma_request r;
	uint32_t i, total;
	int dma;

	for (i = 0; i < NUM_GCM_TAG_LENS; i++) {
		gcm_message_random(&m, 16 + 8 * (i % 3), random_below(40), random_below(500));
		m.tag_len = gcm_tag_lens[i];
		total = m.aad_len + m.data_len;
		memcpy(bad, m.tag, sizeof(bad));
		bad[random_below(m.tag_len)] ^= 1 << random_below(8);
		for (dma = 0; dma < 2; dma++) {
			pio_requests = rd64(HWE_REG_CNT_PIO_REQUESTS);
			dma_requests = rd64(HWE_REG_CNT_DMA_REQUESTS);
			if (!dma) {
				memset(out, 0xa5, sizeof(out));
				ck_assert_uint_eq(pio_gcm(&m, true, bad, out, tag),
						  HWE_ERR_TAG_MISMATCH);
				ck_assert_uint_eq(rd32(HWE_REG_PIO_RESULT), HWE_ERR_TAG_MISMATCH);
				/* PIO gives no output, and the expected tag stays as written */
				ck_assert_mem_eq(t.bar2 + HWE_REG_GCM_TAG, bad, sizeof(bad));
			} else {
				t.heap = HEAP_GPA;
				push_gcm_request(&m, true, bad, i % 2, 2, &r);
				publish_and_wait();
				/* DMA_DONE alone: a mismatch is no DMA error */
				ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS) & ~HWE_INT_PIO_DONE,
						  HWE_INT_DMA_DONE);
				w1c(HWE_REG_INT_STATUS, HWE_INT_DMA_DONE);
				ck_assert_uint_eq(desc_status(r.last),
						  HWE_DSTAT_DONE | HWE_ERR_TAG_MISMATCH);
				ck_assert_uint_eq(gcm_request_result(&r), HWE_ERR_TAG_MISMATCH);
				ck_assert_mem_eq(gcm_record_tag(&r), bad, sizeof(bad));
				/* DMA streamed the unauthenticated plaintext (ENGINE.md section 12)
				 */
				ck_assert_mem_eq(t.ram + r.dst, m.plain, total);
			}
			mismatches++;
			ck_assert_uint_eq(rd64(HWE_REG_CNT_TAG_MISMATCHES), mismatches);
			ck_assert_uint_eq(rd64(HWE_REG_CNT_PIO_REQUESTS), pio_requests);
			ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_REQUESTS), dma_requests);
			ck_assert_uint_eq(rd32(HWE_REG_ERR_STATUS), 0);
			ck_assert_uint_eq(rd32(HWE_REG_LAST_ERROR), HWE_ERR_NONE);
			ck_assert_uint_eq(rd64(HWE_REG_CNT_ERRORS), 0);
		}
		if (m.tag_len < HWE_GCM_TAG_SIZE) {
			memcpy(bad, m.tag, sizeof(bad));
			bad[m.tag_len + random_below(HWE_GCM_TAG_SIZE - m.tag_len)] ^= 0x80;
			ck_assert_uint_eq(pio_gcm(&m, true, bad, out, tag), HWE_ERR_NONE);
			ck_assert_mem_eq(out, m.plain, total);
			t.heap = HEAP_GPA;
			ck_assert_uint_eq(dma_gcm(&m, true, bad, false, 1, &r), HWE_ERR_NONE);
			ck_assert_mem_eq(t.ram + r.dst, m.plain, total);
		}
		/* the engine carries on: the right tag is accepted */
		check_gcm_message(&m, false, false, 1);
		check_gcm_message(&m, true, false, 3);
		gcm_message_free(&m);
	}
}
END_TEST

START_TEST(test_gcm_pio_errors)
{
	static const uint32_t bad_tag_lens[] = { 0, 1, 3, 5, 9, 11, 17, 32 };
	uint8_t out[HWE_FIFO_DEPTH], tag[HWE_GCM_TAG_SIZE];
	struct gcm_message m;
	uint32_t i;

	gcm_message_random(&m, 24, 20, 100);
	for (i = 0; i < sizeof(bad_tag_lens) / sizeof(bad_tag_lens[0]); i++) {
		m.tag_len = bad_tag_lens[i];
		ck_assert_uint_eq(pio_gcm(&m, false, m.tag, out, tag), HWE_ERR_BAD_CTX);
		check_pio_error(HWE_ERR_BAD_CTX);
	}
	m.tag_len = 16;
	m.keylen = 20;
	ck_assert_uint_eq(pio_gcm(&m, false, m.tag, out, tag), HWE_ERR_BAD_CTX);
	check_pio_error(HWE_ERR_BAD_CTX);
	m.keylen = 24;

	/* FIFO_IN_LEVEL must be the AAD and the data */
	ck_assert_uint_eq(pio_gcm(&m, false, m.tag, out, tag), HWE_ERR_NONE);
	for (i = 99; i <= 101; i += 2) {
		wr32(HWE_REG_GCM_DATA_LEN, i);
		pio_post(m.plain, 120);
		wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
		check_pio_error(HWE_ERR_BAD_LEN);
		ck_assert_uint_eq(rd32(HWE_REG_FIFO_OUT_LEVEL), 0);
	}
	wr32(HWE_REG_GCM_DATA_LEN, 100);

	/* an offset only means something in CTR */
	wr32(HWE_REG_AES_CTR_OFFSET, 4);
	pio_post(m.plain, 120);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	check_pio_error(HWE_ERR_BAD_CTX);

	/* a message longer than the FIFO goes by DMA */
	wr32(HWE_REG_AES_CTR_OFFSET, 0);
	wr32(HWE_REG_GCM_DATA_LEN, HWE_FIFO_DEPTH);
	pio_post(NULL, HWE_FIFO_DEPTH + 20);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	check_pio_error(HWE_ERR_FIFO);

	/* a GCM cfg whose unit is not AES */
	wr32(HWE_REG_GCM_DATA_LEN, 100);
	wr32(HWE_REG_AES_CFG, HWE_CFG(HWE_UNIT_HASH, HWE_MODE_GCM, 24, 0));
	pio_post(m.plain, 120);
	wait_reg(HWE_REG_PIO_DONE_SEQ, ~0U, t.pio_seq);
	check_pio_error(HWE_ERR_BAD_CTX);

	check_gcm_message(&m, false, false, 1);
	gcm_message_free(&m);
}
END_TEST

/* GCM descriptors that break the stream's rules fail their request, with no tag written. */
START_TEST(test_gcm_dma_errors)
{
	uint8_t poison[HWE_GCM_TAG_SIZE];
	struct gcm_message m;
	struct gcm_dma_request r;
	uint64_t rec;
	uint32_t d;

	memset(poison, 0x5a, sizeof(poison));
	gcm_message_random(&m, 32, 13, 200);

	/* the stream ends short: BAD_LEN at END_OF_REQ */
	r.record = put_gcm_context(&m, false, poison);
	r.src = ram_alloc(213);
	memcpy(t.ram + r.src, m.plain, 213);
	push_desc(r.record, 0, sizeof(struct hwe_gcm_ctx), HWE_DESC_LOAD_CTX);
	d = push_desc(r.src, r.src, 208, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d), HWE_DSTAT_DONE | HWE_ERR_BAD_LEN);
	ck_assert_mem_eq(gcm_record_tag(&r), poison, sizeof(poison));

	/* a descriptor past the stream's end */
	r.record = put_gcm_context(&m, false, poison);
	push_desc(r.record, 0, sizeof(struct hwe_gcm_ctx), HWE_DESC_LOAD_CTX);
	d = push_desc(r.src, r.src, 224, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d), HWE_DSTAT_DONE | HWE_ERR_BAD_LEN);

	/* a partial block that does not end the stream */
	r.record = put_gcm_context(&m, false, poison);
	push_desc(r.record, 0, sizeof(struct hwe_gcm_ctx), HWE_DESC_LOAD_CTX);
	d = push_desc(r.src, r.src, 13, HWE_DESC_DATA);
	push_desc(r.src + 16, r.src + 16, 200, HWE_DESC_DATA | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d), HWE_DSTAT_DONE | HWE_ERR_MISALIGNED);
	ck_assert_uint_eq(desc_status(d + 1), HWE_DSTAT_DONE | HWE_ERR_ABORTED);
	ck_assert_mem_eq(gcm_record_tag(&r), poison, sizeof(poison));

	/* the record's length picks its type: GCM in an AES record, CBC in a GCM record */
	rec = put_gcm_context(&m, false, poison);
	d = push_desc(rec, 0, sizeof(struct hwe_aes_ctx), HWE_DESC_LOAD_CTX | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d), HWE_DSTAT_DONE | HWE_ERR_BAD_CTX);
	((struct hwe_gcm_ctx *)(t.ram + rec))->cfg =
		htole32(HWE_CFG(HWE_UNIT_AES, HWE_MODE_CBC, 32, 0));
	d = push_desc(rec, 0, sizeof(struct hwe_gcm_ctx), HWE_DESC_LOAD_CTX | HWE_DESC_END_OF_REQ);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(d), HWE_DSTAT_DONE | HWE_ERR_BAD_CTX);
	m.tag_len = 10;
	ck_assert_uint_eq(dma_gcm(&m, false, poison, false, 1, &r), HWE_ERR_BAD_CTX);
	ck_assert_uint_eq(desc_status(r.last), HWE_DSTAT_DONE | HWE_ERR_ABORTED);
	ck_assert_mem_eq(gcm_record_tag(&r), poison, sizeof(poison));
	m.tag_len = 16;

	ck_assert_uint_eq(rd32(HWE_REG_ERR_STATUS), HWE_BIT(HWE_ERR_BAD_LEN) |
							    HWE_BIT(HWE_ERR_MISALIGNED) |
							    HWE_BIT(HWE_ERR_BAD_CTX));
	ck_assert_uint_eq(rd64(HWE_REG_CNT_DMA_REQUESTS), 0);
	check_gcm_message(&m, true, false, 2);
	gcm_message_free(&m);
}
END_TEST

/* The fault knobs act on GCM requests as on the other modes; a reset recovers and wipes. */
START_TEST(test_gcm_faults)
{
	static const uint8_t zero[HWE_REG_GCM_END - HWE_REG_GCM_BASE];
	uint8_t out[300], tag[HWE_GCM_TAG_SIZE], poison[HWE_GCM_TAG_SIZE], untouched[217];
	struct gcm_message m;
	struct gcm_dma_request r;

	memset(poison, 0x5a, sizeof(poison));
	memset(untouched, 0xa5, sizeof(untouched)); /* what push_gcm_request() puts in dst */
	gcm_message_random(&m, 16, 17, 200);

	wr32(HWE_REG_FAULT_FIFO_ERROR, 1);
	ck_assert_uint_eq(pio_gcm(&m, false, poison, out, tag), HWE_ERR_FIFO);
	check_pio_error(HWE_ERR_FIFO);
	ck_assert_mem_eq(t.bar2 + HWE_REG_GCM_TAG, poison, sizeof(poison));
	engine_reset();
	ck_assert_mem_eq(t.bar2 + HWE_REG_GCM_BASE, zero, sizeof(zero)); /* wiped */
	check_gcm_message(&m, false, false, 1);

	wr32(HWE_REG_FAULT_DMA_ERROR, 1);
	push_gcm_request(&m, false, poison, false, 2, &r);
	publish_and_wait();
	ck_assert_uint_eq(desc_status(r.first), HWE_DSTAT_DONE | HWE_ERR_DMA_FAULT);
	ck_assert_uint_eq(desc_status(r.last), HWE_DSTAT_DONE | HWE_ERR_ABORTED);
	ck_assert(rd32(HWE_REG_INT_STATUS) & HWE_INT_DMA_ERROR);
	ck_assert_mem_eq(gcm_record_tag(&r), poison, sizeof(poison));
	ck_assert_mem_eq(t.ram + r.dst, untouched, sizeof(untouched)); /* nothing written */
	engine_reset();
	check_gcm_message(&m, true, false, 2);

	wr32(HWE_REG_FAULT_STALL, 1);
	push_gcm_request(&m, true, m.tag, true, 1, &r);
	publish();
	wait_reg(HWE_REG_FAULT_STALL, ~0U, 0);
	ck_assert(rd32(HWE_REG_STATUS) & HWE_STATUS_DMA_BUSY);
	ck_assert_uint_eq(desc_status(r.last), 0);
	engine_reset();
	check_gcm_message(&m, false, false, 1);

	/* a lost interrupt: the work is done and the tag is in the record */
	w1c(HWE_REG_INT_STATUS, HWE_INT_DMA_DONE | HWE_INT_DMA_ERROR | HWE_INT_PIO_DONE);
	wr32(HWE_REG_FAULT_LOST_IRQ, 1);
	push_gcm_request(&m, false, poison, false, 1, &r);
	publish();
	wait_reg64(HWE_REG_CNT_IRQS_LOST, 1);
	ck_assert_uint_eq(irqs_pending(HWE_MSIX_DMA), 0);
	ck_assert_uint_eq(rd32(HWE_REG_INT_STATUS), HWE_INT_DMA_DONE);
	ck_assert_uint_eq(gcm_request_result(&r), HWE_ERR_NONE);
	ck_assert_mem_eq(gcm_record_tag(&r), m.tag, HWE_GCM_TAG_SIZE);
	ck_assert_mem_eq(t.ram + r.dst, m.cipher, m.aad_len + m.data_len);
	gcm_message_free(&m);
}
END_TEST

/* ---- the timing model as a pure function ---- */

static void assert_near(uint64_t ns, double expect_ns)
{
	ck_assert_msg(ns > expect_ns * 0.999 && ns < expect_ns * 1.001, "%llu ns, expected %.0f",
		      (unsigned long long)ns, expect_ns);
}

START_TEST(test_timing_profiles)
{
	struct hwemu_timing native, omap, slow;

	ck_assert(hwemu_timing_profile("native", &native));
	ck_assert(hwemu_timing_profile("omap", &omap));
	ck_assert(hwemu_timing_profile("slow-dma-setup", &slow));
	ck_assert(!hwemu_timing_profile("fast", &native));
	ck_assert(hwemu_timing_profile("native", &native));

	ck_assert_uint_eq(hwemu_cost_ns(&native.pio, 1 << 20), 0);
	ck_assert_uint_eq(hwemu_cost_ns(&native.dma, 1 << 20), 0);

	/* the omap profile reproduces the four tcrypt figures it was fitted to */
	assert_near(hwemu_cost_ns(&omap.pio, 16), 1e9 / 20585);
	assert_near(hwemu_cost_ns(&omap.pio, 8192), 1e9 / 79);
	assert_near(hwemu_cost_ns(&omap.dma, 16), 1e9 / 4318);
	assert_near(hwemu_cost_ns(&omap.dma, 8192), 1e9 / 1766);
	/* and crosses over between 64 and 256 bytes */
	ck_assert_uint_lt(hwemu_cost_ns(&omap.pio, 64), hwemu_cost_ns(&omap.dma, 64));
	ck_assert_uint_gt(hwemu_cost_ns(&omap.pio, 256), hwemu_cost_ns(&omap.dma, 256));

	ck_assert_uint_ge(slow.dma.setup_ns, 10 * 90000);
	ck_assert_uint_eq(hwemu_cost_ns(&slow.pio, 4096), 0);
}
END_TEST

/* The doorbell watch tcase: the engine thread looks for the next doorbell 200 µs after each. */
static void watch_on(void)
{
	loop_watch_ns = 200 * 1000;
}

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *regs = tcase_create("registers");
	TCase *pio = tcase_create("pio");
	TCase *dma = tcase_create("dma");
	TCase *faults = tcase_create("faults");
	TCase *hash = tcase_create("hash");
	TCase *gcm = tcase_create("gcm");
	TCase *timing = tcase_create("timing");
	TCase *watch = tcase_create("doorbell watch");
	TCase *with_engine[] = { regs, pio, dma, faults, hash, gcm, watch };
	size_t i;

	for (i = 0; i < sizeof(with_engine) / sizeof(with_engine[0]); i++) {
		tcase_add_checked_fixture(with_engine[i], setup, teardown);
		tcase_set_timeout(with_engine[i], 60);
		suite_add_tcase(s, with_engine[i]);
	}
	suite_add_tcase(s, timing);

	tcase_add_test(regs, test_identification);
	tcase_add_test(regs, test_reset_wipes_context_and_disarms_faults);
	tcase_add_test(regs, test_interrupt_enable_and_w1c);
	tcase_add_test(regs, test_counters);
	tcase_add_test(pio, test_pio_modes);
	tcase_add_test(pio, test_pio_cbc_chunks_chain_through_iv);
	tcase_add_test(pio, test_ctr_partial_blocks_continue);
	tcase_add_test(pio, test_ctr_counter_carries_across_128_bits);
	tcase_add_test(pio, test_pio_errors);
	tcase_add_test(dma, test_dma_single_request);
	tcase_add_test(dma, test_dma_reads_memory_every_time);
	tcase_add_test(dma, test_dma_chain_one_interrupt);
	tcase_add_test(dma, test_dma_errors_are_contained);
	tcase_add_test(dma, test_ring_head_cur_ownership);
	tcase_add_test(dma, test_ring_overrun_halts_until_reset);
	tcase_add_test(dma, test_ring_config_checked_at_reset);
	tcase_add_test(dma, test_break_chain);
	tcase_add_test(faults, test_fault_dma_error);
	tcase_add_test(faults, test_fault_stall_dma);
	tcase_add_test(faults, test_fault_stall_pio);
	tcase_add_test(faults, test_fault_lost_interrupt);
	tcase_add_test(faults, test_fault_fifo_error);
	tcase_add_test(hash, test_hash_algorithms);
	tcase_add_test(hash, test_hash_padding_boundaries);
	tcase_add_test(hash, test_hash_streams_interleaved);
	tcase_add_test(hash, test_hash_pio_errors);
	tcase_add_test(hash, test_hash_dma_errors);
	tcase_add_test(hash, test_hash_faults);
	tcase_add_test(gcm, test_gcm_spec_vectors);
	tcase_add_test(gcm, test_gcm_pio_lengths);
	tcase_add_test(gcm, test_gcm_dma_lengths);
	tcase_add_test(gcm, test_gcm_tag_mismatch);
	tcase_add_test(gcm, test_gcm_pio_errors);
	tcase_add_test(gcm, test_gcm_dma_errors);
	tcase_add_test(gcm, test_gcm_faults);
	tcase_add_test(timing, test_timing_profiles);
	tcase_add_unchecked_fixture(watch, watch_on, NULL);
	tcase_add_test(watch, test_watch_serves_within_and_after);
	tcase_add_test(watch, test_pio_modes);
	tcase_add_test(watch, test_dma_single_request);
	return s;
}

int main(void)
{
	SRunner *runner = srunner_create(engine_suite());
	int failed;

	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
