// SPDX-License-Identifier: Apache-2.0
#include "test/testutil.h"
#include "backend/discover.h"

#include <check.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

uint64_t test_seed(void)
{
	static uint64_t seed;
	static int done;
	const char *env;

	if (done)
		return seed;
	env = getenv("HWOFFLOAD_TEST_SEED");
	if (env && *env) {
		seed = strtoull(env, NULL, 0);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000003u ^ (uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32;
	}
	done = 1;
	printf("test seed: HWOFFLOAD_TEST_SEED=%llu\n", (unsigned long long)seed);
	fflush(stdout);
	return seed;
}

/* splitmix64: tiny, fast and good enough to pick lengths, splits, keys and data. */
uint64_t test_rng_next(struct test_rng *rng)
{
	uint64_t z = (rng->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void test_rng_init(struct test_rng *rng, uint64_t stream)
{
	rng->state = test_seed() ^ (stream * 0xd1342543de82ef95ull);
	test_rng_next(rng);
}

size_t test_rng_range(struct test_rng *rng, size_t lo, size_t hi)
{
	return lo + (size_t)(test_rng_next(rng) % (hi - lo + 1));
}

void test_rng_fill(struct test_rng *rng, void *buf, size_t len)
{
	unsigned char *p = buf;

	while (len) {
		uint64_t r = test_rng_next(rng);
		size_t n = len < sizeof(r) ? len : sizeof(r);

		memcpy(p, &r, n);
		p += n;
		len -= n;
	}
}

size_t test_rng_split(struct test_rng *rng, size_t len, size_t step, size_t max_pieces,
		      size_t *pieces)
{
	size_t count = 0;

	while (count + 1 < max_pieces && len > step) {
		size_t piece = test_rng_range(rng, 1, len / step) * step;

		if (piece == len)
			break;
		pieces[count++] = piece;
		len -= piece;
	}
	pieces[count++] = len;
	return count;
}

void test_assert_bytes_eq(const char *file, int line, const char *what, const void *got,
			  const void *want, size_t len)
{
	const unsigned char *g = got, *w = want;
	size_t i;

	for (i = 0; i < len; i++)
		if (g[i] != w[i])
			break;
	if (i == len)
		return;
	ck_abort_msg("%s:%d: %s differs at byte %zu of %zu: got %02x, want %02x", file, line, what, i,
		     len, g[i], w[i]);
}

int test_run_suite(Suite *suite)
{
	SRunner *runner = srunner_create(suite);
	int failed;

	test_seed();
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

bool test_engine_registers(const char *kernel_name)
{
	char line[256], name[HWOFF_NAME_MAX] = "", module[HWOFF_MODULE_NAME_MAX];
	FILE *f = fopen("/proc/crypto", "r");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		/* each entry gives its name before its module */
		if (sscanf(line, "name : %127s", name) == 1)
			continue;
		found = sscanf(line, "module : %63s", module) == 1 &&
			strcmp(module, HWOFF_ENGINE_MODULE) == 0 && strcmp(name, kernel_name) == 0;
	}
	if (f)
		fclose(f);
	return found;
}

bool test_mode_serves(const char *mode, const char *kernel_name)
{
	return (strcmp(mode, "pio") && strcmp(mode, "dma")) || test_engine_registers(kernel_name);
}

void test_refuse_af_alg(int refusal)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_ALG, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (unsigned int)refusal),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(filter) / sizeof(filter[0]), .filter = filter };

	ck_assert_int_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
	ck_assert_int_eq(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog), 0);
	ck_assert_int_lt(socket(AF_ALG, SOCK_SEQPACKET, 0), 0);
}
