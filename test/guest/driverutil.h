/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the guest suites of the driver (driver_aes, driver_hash): its sysfs and
 * debugfs files, its statistics, /proc/crypto's self-test results, small files.
 */
#ifndef HWOFFLOAD_DRIVERUTIL_H
#define HWOFFLOAD_DRIVERUTIL_H

#include <stddef.h>

#include <check.h>

#define STATS		"/sys/kernel/debug/hwoffload/*/stats"
#define DEBUGFS_KNOB	"/sys/kernel/debug/hwoffload/*/"
#define SYSFS_THRESHOLD "/sys/bus/pci/drivers/hwoffload/*/hwoffload/threshold_"
/* the auto drivers' software tier: SYSFS_SOFTWARE "cbc_encrypt", "sha256" */
#define SYSFS_SOFTWARE	"/sys/bus/pci/drivers/hwoffload/*/hwoffload/software_"
#define TIMEOUT_PARAM	"/sys/module/hwoffload/parameters/timeout_ms"

/* The one file matching a pattern (one engine in the guest). */
void find_path(const char *pattern, char *path, size_t size);
long long read_number(const char *pattern);
void write_number(const char *pattern, long long value);
/* One counter of the driver's debugfs statistics ("name: value" lines). */
long long stat_value(const char *name);
/* Every driver in @names (@count of them) shows "selftest : passed" in /proc/crypto. */
void check_selftests_passed(const char *const *names, int count);
/*
 * Every driver the module registered shows "selftest : passed": since 6.12 the kernel's tests
 * of all of them may still run after the module loaded, and an unbind would fail them.
 */
#define MODULE_DRIVERS_MAX 64
void check_module_selftests_passed(void);
void write_file(const char *path, const void *data, size_t len);
/* Unload the module and load it again from the build tree, with the module parameters @args. */
void reload_module(const char *args);
/*
 * The kernel's self-tests of tcrypt's @mode (testmgr's vectors on the highest priority drivers):
 * none failed (a wrong result's "alg: ... failed" line also fails the guest run).
 */
void run_tcrypt(int mode);
/*
 * The kernel's self-tests (tcrypt's @modes, @count of them: testmgr's vectors on the highest
 * priority drivers, and the templates over them) on the auto drivers with their software tier in
 * force: the module reloaded with @args (ranked above the CPU's own drivers), every software
 * threshold at 64 bytes. The vectors must go through both tiers: the statistics @family
 * "auto_software" and "auto_pio" grow ("", "gcm_", "hash_"). Then the module as it was.
 */
void run_tcrypt_software_tier(const char *args, const char *family, const int *modes, int count);
/*
 * The AF_ALG transform socket of driver @name of @type ("skcipher", "hash"), keyed with @key
 * when not NULL: >= 0, or -errno of socket, bind or setkey.
 */
int alg_bind(const char *type, const char *name, const unsigned char *key, size_t key_len);
size_t read_file(const char *path, void *data, size_t size);

/* The three drivers of an algorithm: auto, PIO only, DMA only; and their name suffixes. */
enum path { AUTO, PIO, DMA, PATHS };

extern const char *const path_suffix[PATHS];

/* One injected engine fault (ENGINE.md section 9) and what it must do to one request. */
struct fault_case {
	const char *knob;
	int alg; /* the suite's mode or hash */
	int path;
	size_t len;
	const char *counter; /* grows by one */
	int recovers; /* the request succeeds all the same */
};

/*
 * Arm @f's knob for one event, with short waits (a stall costs one timeout), and run @request
 * (@name, @arg): it fails (or for a recovering fault succeeds), the knob is spent, the counter
 * grew, a stall reset the engine. Returns what @request returned.
 */
/* Every knob on the path it acts on; alg is a small index, valid for every suite. */
#define FAULT_CASES 5
extern const struct fault_case fault_cases[FAULT_CASES];

int run_with_fault(const struct fault_case *f, const char *name, int (*request)(void *arg),
		   void *arg);

/* What one thread of run_threads() did: failed, and why. */
struct thread_result {
	int index;
	int failed;
	char err[512];
};

/* @count threads of @main, each given its own result (index set); none may fail. */
void run_threads(int count, void *(*main)(void *result));

#define ck_assert_stat_grew(name, before, by)                                                  \
	ck_assert_msg(stat_value(name) >= (before) + (by), "%s grew by %lld, want %d or more", \
		      name, stat_value(name) - (before), by)
#define ck_assert_stat_same(name, before)                                            \
	ck_assert_msg(stat_value(name) == (before), "%s grew by %lld, want 0", name, \
		      stat_value(name) - (before))

#endif
