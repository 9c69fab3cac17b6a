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
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "kernel/hwoffload_regs.h"
#include "kernel/engine/engine.h"
#include "kernel/engine/eventloop.h"
#include "kernel/engine/timing.h"

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

static void *engine_thread(void *arg)
{
	(void)arg;
	return (void *)(intptr_t)hwemu_loop_run(&t.engine, t.doorbell, VECTORS, t.stop);
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

static Suite *engine_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *regs = tcase_create("registers");
	TCase *pio = tcase_create("pio");
	TCase *dma = tcase_create("dma");
	TCase *faults = tcase_create("faults");
	TCase *hash = tcase_create("hash");
	TCase *timing = tcase_create("timing");
	TCase *with_engine[] = { regs, pio, dma, faults, hash };
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
	tcase_add_test(timing, test_timing_profiles);
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
