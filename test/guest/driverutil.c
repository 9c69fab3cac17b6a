// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/if_alg.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include "test/guest/driverutil.h"

const char *const path_suffix[PATHS] = { "", "-pio", "-dma" };

const struct fault_case fault_cases[FAULT_CASES] = {
	{ "fault_fifo_error", 1, PIO, 4096, "pio_errors", 0 },
	{ "fault_dma_error", 1, DMA, 65536, "dma_errors", 0 },
	{ "fault_stall", 2, PIO, 4096, "pio_timeouts", 0 },
	{ "fault_stall", 2, DMA, 65536, "dma_timeouts", 0 },
	/* ENGINE.md section 7: a lost interrupt leaves the work done; the timeout completes it */
	{ "fault_lost_irq", 0, DMA, 65536, "dma_late_completions", 1 },
};

void find_path(const char *pattern, char *path, size_t size)
{
	glob_t g;

	ck_assert_msg(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1, "%s: no single match",
		      pattern);
	snprintf(path, size, "%s", g.gl_pathv[0]);
	globfree(&g);
}

long long read_number(const char *pattern)
{
	char path[512];
	long long value;
	FILE *f;

	find_path(pattern, path, sizeof(path));
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fscanf(f, "%lld", &value), 1);
	fclose(f);
	return value;
}

void write_number(const char *pattern, long long value)
{
	char path[512];
	FILE *f;

	find_path(pattern, path, sizeof(path));
	f = fopen(path, "w");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fprintf(f, "%lld\n", value);
	ck_assert_msg(fclose(f) == 0, "cannot write %lld to %s", value, path);
}

long long stat_value(const char *name)
{
	char path[512], line[128];
	size_t n = strlen(name);
	long long value = -1;
	FILE *f;

	find_path(STATS, path, sizeof(path));
	f = fopen(path, "r");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			value = strtoll(line + n + 1, NULL, 10);
	fclose(f);
	ck_assert_msg(value >= 0, "no statistic %s in %s", name, path);
	return value;
}

/*
 * Which of names /proc/crypto shows with "selftest : passed", in passed[]; false on a failure.
 * Only the module's own entries count: the larval standing for a driver while its test runs has
 * the same driver name, module "kernel" and "selftest : passed".
 */
static bool read_selftests(const char *const *names, int count, int *passed)
{
	char line[256], driver[64] = "", module[64] = "";
	bool failed = false;
	FILE *f = fopen("/proc/crypto", "r");
	int i;

	ck_assert_ptr_nonnull(f);
	memset(passed, 0, (size_t)count * sizeof(*passed));
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "driver : %63s", driver) == 1 ||
		    sscanf(line, "module : %63s", module) == 1 || strncmp(line, "selftest", 8) ||
		    strcmp(module, "hwoffload"))
			continue;
		for (i = 0; i < count; i++) {
			if (strcmp(driver, names[i]))
				continue;
			passed[i] |= strstr(line, ": passed") != NULL;
			failed |= strstr(line, ": passed") == NULL &&
				  strstr(line, ": unknown") == NULL;
		}
	}
	fclose(f);
	return !failed;
}

/*
 * The kernel tests a driver when it registers; since 6.12 (and when the module loads while the
 * host is busy) the test may still be running: "selftest : unknown" until it ends. Wait for it,
 * up to a minute; a failed test fails at once.
 */
void check_selftests_passed(const char *const *names, int count)
{
	int *passed = calloc((size_t)count, sizeof(*passed)), i, waited_ms = 0, missing;

	ck_assert_ptr_nonnull(passed);
	for (;;) {
		bool ok = read_selftests(names, count, passed);

		for (i = 0, missing = -1; i < count && missing < 0; i++)
			if (!passed[i])
				missing = i;
		if (!ok || missing < 0 || waited_ms >= 60000)
			break;
		usleep(100 * 1000);
		waited_ms += 100;
	}
	for (i = 0; i < count; i++)
		ck_assert_msg(passed[i], "%s: no \"selftest : passed\" in /proc/crypto", names[i]);
	free(passed);
}

void check_module_selftests_passed(void)
{
	char line[256], driver[64] = "", module[64], *names[MODULE_DRIVERS_MAX];
	FILE *f = fopen("/proc/crypto", "r");
	int count = 0, i;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "driver : %63s", driver) == 1 ||
		    sscanf(line, "module : %63s", module) != 1 || strcmp(module, "hwoffload"))
			continue;
		ck_assert_int_lt(count, MODULE_DRIVERS_MAX);
		names[count] = strdup(driver);
		ck_assert_ptr_nonnull(names[count++]);
	}
	fclose(f);
	ck_assert_msg(count > 0, "no driver of module hwoffload in /proc/crypto");
	check_selftests_passed((const char *const *)names, count);
	for (i = 0; i < count; i++)
		free(names[i]);
}

int run_with_fault(const struct fault_case *f, const char *name, int (*request)(void *arg),
		   void *arg)
{
	long long saved_timeout = read_number(TIMEOUT_PARAM), counter, resets;
	char knob[256];
	int ret;

	snprintf(knob, sizeof(knob), "%s%s", DEBUGFS_KNOB, f->knob);
	write_number(TIMEOUT_PARAM, 500);
	counter = stat_value(f->counter);
	resets = stat_value("resets");
	write_number(knob, 1);
	ret = request(arg);
	ck_assert_int_eq(read_number(knob), 0);
	ck_assert_stat_grew(f->counter, counter, 1);
	if (f->recovers)
		ck_assert_msg(ret == 0, "%s with %s: error %d", name, f->knob, ret);
	else
		ck_assert_msg(ret < 0, "%s with %s: no error", name, f->knob);
	if (!strcmp(f->knob, "fault_stall"))
		ck_assert_stat_grew("resets", resets, 1);
	write_number(TIMEOUT_PARAM, saved_timeout);
	return ret;
}

void run_threads(int count, void *(*main)(void *result))
{
	struct thread_result *results = calloc((size_t)count, sizeof(*results));
	pthread_t *tids = calloc((size_t)count, sizeof(*tids));
	int i;

	ck_assert_ptr_nonnull(results);
	ck_assert_ptr_nonnull(tids);
	for (i = 0; i < count; i++) {
		results[i].index = i;
		ck_assert_int_eq(pthread_create(&tids[i], NULL, main, &results[i]), 0);
	}
	for (i = 0; i < count; i++)
		ck_assert_int_eq(pthread_join(tids[i], NULL), 0);
	for (i = 0; i < count; i++)
		ck_assert_msg(!results[i].failed, "thread %d: %s", i, results[i].err);
	free(results);
	free(tids);
}

void reload_module(const char *args)
{
	struct utsname u;
	char cmd[512];

	ck_assert_int_eq(uname(&u), 0);
	snprintf(cmd, sizeof(cmd), "rmmod hwoffload && insmod kernel/%s/hwoffload.ko %s", u.release,
		 args);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
}

void run_tcrypt(int mode)
{
	char cmd[64];

	/* tcrypt never stays loaded: its status is an error whatever the tests said */
	snprintf(cmd, sizeof(cmd), "modprobe tcrypt mode=%d 2>/dev/null", mode);
	ck_assert_int_ne(system(cmd), -1);
	ck_assert_msg(system("dmesg | grep 'tcrypt: one or more tests failed'") != 0,
		      "tcrypt mode=%d failed (dmesg)", mode);
}

void run_tcrypt_software_tier(const char *args, const char *family, const int *modes, int count)
{
	char software_name[64], pio_name[64];
	long long software, pio;
	size_t i;
	glob_t g;
	int k;

	reload_module(args);
	check_module_selftests_passed();
	ck_assert_int_eq(glob(SYSFS_SOFTWARE "*", 0, NULL, &g), 0);
	for (i = 0; i < g.gl_pathc; i++)
		write_number(g.gl_pathv[i], 64);
	globfree(&g);
	snprintf(software_name, sizeof(software_name), "%sauto_software", family);
	snprintf(pio_name, sizeof(pio_name), "%sauto_pio", family);
	software = stat_value(software_name);
	pio = stat_value(pio_name);
	for (k = 0; k < count; k++)
		run_tcrypt(modes[k]);
	ck_assert_stat_grew(software_name, software, 1);
	ck_assert_stat_grew(pio_name, pio, 1);
	reload_module("");
	check_module_selftests_passed();
}

void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_msg(f != NULL, "cannot create %s", path);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

size_t read_file(const char *path, void *data, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t len;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	len = fread(data, 1, size, f);
	fclose(f);
	return len;
}

int alg_bind(const char *type, const char *name, const unsigned char *key, size_t key_len)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int fd = socket(AF_ALG, SOCK_SEQPACKET, 0), err;

	if (fd < 0)
		return -errno;
	snprintf((char *)sa.salg_type, sizeof(sa.salg_type), "%s", type);
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", name);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (key && setsockopt(fd, SOL_ALG, ALG_SET_KEY, key, (socklen_t)key_len))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}
