// SPDX-License-Identifier: Apache-2.0
/*
 * backend_probe_test.c - the AF_ALG probe on this machine (the build host has no AF_ALG, so the
 * reason must say so), its re-probe after fork, and the reasons worded for other kernels.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/probe.h"
#include "test/host/backend_test.h"

/* What socket(AF_ALG) does here, found without the code under test: 0 or errno. */
static int afalg_errno(void)
{
	int fd = socket(AF_ALG, SOCK_SEQPACKET, 0);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

START_TEST(test_afalg_here)
{
	struct hwoff_probe p = { 0 };
	int expected = afalg_errno();
	struct utsname uts;

	ck_assert_int_eq(hwoff_probe_afalg(&p), -expected);
	ck_assert_int_eq(p.pid, getpid());
	if (expected == EAFNOSUPPORT) {
		ck_assert_int_eq(uname(&uts), 0);
		ck_assert_msg(strstr(p.reason, "AF_ALG is not available") != NULL, "%s", p.reason);
		ck_assert_msg(strstr(p.reason, uts.release) != NULL, "%s", p.reason);
	} else if (!expected) {
		ck_assert_str_eq(p.reason, "");
	}
}
END_TEST

/* The answer is reused in the process that probed, and made again in a child. */
START_TEST(test_reprobe_after_fork)
{
	struct hwoff_probe p = { 0 };
	int expected = afalg_errno();
	int status;
	pid_t child;

	hwoff_probe_afalg(&p);
	p.error = EIO; /* a made-up earlier answer: reused while the pid matches */
	ck_assert_int_eq(hwoff_probe_afalg(&p), -EIO);

	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		int ret = hwoff_probe_afalg(&p);

		_exit(p.pid == getpid() && ret == -expected ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

START_TEST(test_probe_alg_here)
{
	const struct hwoff_alg *cbc = hwoff_alg_by_name("AES-128-CBC");
	int expected = afalg_errno();
	char reason[HWOFF_PROBE_REASON_MAX];
	char long_name[100];

	if (expected == EAFNOSUPPORT) {
		ck_assert_int_eq(hwoff_probe_alg(cbc, "cbc(aes)", reason, sizeof(reason)),
				 -EAFNOSUPPORT);
		ck_assert_msg(strstr(reason, "AF_ALG is not available") != NULL, "%s", reason);
	}
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	ck_assert_int_eq(hwoff_probe_alg(cbc, long_name, reason, sizeof(reason)), -ENAMETOOLONG);
	ck_assert_msg(strstr(reason, "longer than AF_ALG takes") != NULL, "%s", reason);
}
END_TEST

static void assert_explains(int error, const char *name, const char *release, int restrict_value,
			    const char *const *wanted)
{
	const struct hwoff_probe_facts facts = { .kernel_release = release,
						 .af_alg_restrict = restrict_value };
	char reason[HWOFF_PROBE_REASON_MAX];

	hwoff_probe_explain(reason, sizeof(reason), error, "skcipher", name, &facts);
	for (; *wanted; wanted++)
		ck_assert_msg(strstr(reason, *wanted) != NULL, "'%s' lacks '%s'", reason, *wanted);
}

START_TEST(test_reasons)
{
	assert_explains(EAFNOSUPPORT, NULL, "6.18.44", -1,
			(const char *const[]){ "AF_ALG is not available", "kernel 6.18.44",
					       "CONFIG_CRYPTO_USER_API", NULL });
	assert_explains(EPERM, NULL, "6.1.0", -1,
			(const char *const[]){ "AF_ALG is denied", "seccomp", NULL });
	assert_explains(ENOENT, "cbc-aes-omap", "6.1.0-57-amd64", -1,
			(const char *const[]){ "no skcipher 'cbc-aes-omap'", "algif_skcipher",
					       "Linux 7.2 and later", NULL });
	assert_explains(ENOENT, "cbc-aes-omap", "7.2.1", -1,
			(const char *const[]){ "kernel 7.2.1 is 7.2 or later", "off-CPU", NULL });
	assert_explains(ENOENT, "cbc(aes)", "7.3.0", 1,
			(const char *const[]){ "/proc/sys/crypto/af_alg_restrict is 1", "allowlist",
					       NULL });
	assert_explains(EACCES, "ecb(aes)", "7.3.0", 2,
			(const char *const[]){ "denies skcipher 'ecb(aes)'", "CAP_NET_ADMIN",
					       "af_alg_restrict is 2 (AF_ALG disabled)", NULL });
	assert_explains(ELIBBAD, "ctr(aes)", "6.1.0", -1,
			(const char *const[]){ "failed its self-test", NULL });
	assert_explains(EINVAL, "ctr(aes)", "6.1.0", -1,
			(const char *const[]){ "cannot bind skcipher 'ctr(aes)'", NULL });
}
END_TEST

/* A process refused AF_ALG is told apart from a kernel without it, by what the kernel shows. */
START_TEST(test_reasons_refused)
{
	struct hwoff_probe_facts facts = { .kernel_release = "6.1.0-57-amd64",
					   .af_alg_restrict = -1,
					   .af_alg = HWOFF_AF_ALG_PRESENT,
					   .seccomp = HWOFF_SECCOMP_ON };
	char reason[HWOFF_PROBE_REASON_MAX];

	/* a seccomp filter answering EAFNOSUPPORT while the kernel has AF_ALG */
	hwoff_probe_explain(reason, sizeof(reason), EAFNOSUPPORT, NULL, NULL, &facts);
	ck_assert_msg(strstr(reason, "AF_ALG is denied to this process") &&
			      strstr(reason, "although the kernel has it") &&
			      strstr(reason, "seccomp") && !strstr(reason, "CONFIG_CRYPTO"),
		      "%s", reason);
	hwoff_probe_explain(reason, sizeof(reason), EPERM, NULL, NULL, &facts);
	ck_assert_msg(strstr(reason, "denied") && strstr(reason, "seccomp"), "%s", reason);

	facts.seccomp = HWOFF_SECCOMP_OFF;
	hwoff_probe_explain(reason, sizeof(reason), EACCES, NULL, NULL, &facts);
	ck_assert_msg(strstr(reason, "security module") && !strstr(reason, "seccomp"), "%s",
		      reason);

	facts.af_alg = HWOFF_AF_ALG_NOT_LOADED;
	hwoff_probe_explain(reason, sizeof(reason), EAFNOSUPPORT, NULL, NULL, &facts);
	ck_assert_msg(strstr(reason, "has the af_alg module but it is not loaded") &&
			      strstr(reason, "modprobe af_alg") && !strstr(reason, "CONFIG_CRYPTO"),
		      "%s", reason);

	facts.af_alg = HWOFF_AF_ALG_ABSENT;
	hwoff_probe_explain(reason, sizeof(reason), EAFNOSUPPORT, NULL, NULL, &facts);
	ck_assert_msg(strstr(reason, "CONFIG_CRYPTO_USER_API") && !strstr(reason, "seccomp"), "%s",
		      reason);
}
END_TEST

Suite *backend_probe_suite(void)
{
	Suite *s = suite_create("backend_probe");
	TCase *tc = tcase_create("afalg");

	tcase_add_test(tc, test_afalg_here);
	tcase_add_test(tc, test_reprobe_after_fork);
	tcase_add_test(tc, test_probe_alg_here);
	tcase_add_test(tc, test_reasons);
	tcase_add_test(tc, test_reasons_refused);
	suite_add_tcase(s, tc);
	return s;
}
