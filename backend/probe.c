// SPDX-License-Identifier: Apache-2.0
/*
 * probe.c - try AF_ALG sockets and binds, and say in words why they fail.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <linux/if_alg.h>

#include "backend/probe.h"
#include "backend/text.h"

/* Linux 7.2 dropped off-CPU implementations ("crypto: af_alg - Drop support for off-CPU ...") */
#define OFF_CPU_DROPPED_MAJOR 7
#define OFF_CPU_DROPPED_MINOR 2

struct machine_facts {
	struct utsname uts;
	struct hwoff_probe_facts facts;
};

/* Whether a line of the file starts with prefix; -1 when the file cannot be read. */
static int file_has_line(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strncmp(line, prefix, strlen(prefix)) == 0;
	fclose(f);
	return found;
}

/*
 * A socket family's protocol is listed in /proc/net/protocols once its module is in; the module
 * file says whether socket() could have loaded it.
 */
static enum hwoff_af_alg_presence af_alg_presence(const char *release)
{
	char modules_dep[sizeof("/lib/modules//modules.dep") +
			 sizeof(((struct utsname *)0)->release)];
	int dep;

	if (file_has_line("/proc/net/protocols", "ALG ") == 1)
		return HWOFF_AF_ALG_PRESENT;
	snprintf(modules_dep, sizeof(modules_dep), "/lib/modules/%s/modules.dep", release);
	dep = file_has_line(modules_dep, "kernel/crypto/af_alg.ko");
	if (dep < 0)
		return HWOFF_AF_ALG_UNKNOWN;
	return dep ? HWOFF_AF_ALG_NOT_LOADED : HWOFF_AF_ALG_ABSENT;
}

static enum hwoff_seccomp seccomp_mode(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int mode = -1;

	if (!f)
		return HWOFF_SECCOMP_UNKNOWN;
	while (mode < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "Seccomp: %d", &mode) != 1)
			mode = -1;
	fclose(f);
	if (mode < 0)
		return HWOFF_SECCOMP_UNKNOWN;
	return mode ? HWOFF_SECCOMP_ON : HWOFF_SECCOMP_OFF;
}

static void read_machine_facts(struct machine_facts *m)
{
	if (uname(&m->uts))
		strcpy(m->uts.release, "unknown");
	m->facts.kernel_release = m->uts.release;
	m->facts.af_alg_restrict = (int)hwoff_read_number(HWOFF_AF_ALG_RESTRICT);
	m->facts.af_alg = af_alg_presence(m->uts.release);
	m->facts.seccomp = seccomp_mode();
}

/* Whether release ("6.1.0-57-amd64") is major.minor or later; false when it does not parse. */
static bool release_at_least(const char *release, unsigned int major, unsigned int minor)
{
	unsigned int has_major, has_minor;

	if (sscanf(release, "%u.%u", &has_major, &has_minor) != 2)
		return false;
	return has_major > major || (has_major == major && has_minor >= minor);
}

bool hwoff_kernel_at_least(unsigned int major, unsigned int minor)
{
	struct utsname uts;

	return !uname(&uts) && release_at_least(uts.release, major, minor);
}

static const char *restrict_meaning(int value)
{
	switch (value) {
	case 0:
		return "unrestricted";
	case 1:
		return "only an allowlist of algorithms, some for CAP_NET_ADMIN only";
	case 2:
		return "AF_ALG disabled";
	}
	return "an unknown setting";
}

/* Why socket(AF_ALG) failed with error. */
static void explain_socket(char *reason, size_t reason_len, int error,
			   const struct hwoff_probe_facts *facts)
{
	bool refused = error == EAFNOSUPPORT || error == EPERM || error == EACCES;

	if (refused && (facts->af_alg == HWOFF_AF_ALG_PRESENT || error != EAFNOSUPPORT)) {
		hwoff_appendf(reason, reason_len,
			      "AF_ALG is denied to this process (socket(AF_ALG): %s)%s: ",
			      strerror(error),
			      facts->af_alg == HWOFF_AF_ALG_PRESENT ? " although the kernel has it"
								    : "");
		/* A filter may answer with any errno: /proc/self/status tells whether one is on. */
		if (facts->seccomp == HWOFF_SECCOMP_ON)
			hwoff_appendf(reason, reason_len,
				      "this process runs under seccomp (/proc/self/status), whose "
				      "filter refuses it");
		else if (facts->seccomp == HWOFF_SECCOMP_OFF)
			hwoff_appendf(reason, reason_len,
				      "a security module or the container's policy refuses it");
		else
			hwoff_appendf(reason, reason_len,
				      "a seccomp filter or a security module refuses it");
		return;
	}
	if (error != EAFNOSUPPORT) {
		hwoff_appendf(reason, reason_len, "AF_ALG sockets fail: socket(AF_ALG): %s",
			      strerror(error));
		return;
	}
	if (facts->af_alg == HWOFF_AF_ALG_NOT_LOADED)
		hwoff_appendf(reason, reason_len,
			      "AF_ALG is not available: kernel %s has the af_alg module but it is "
			      "not loaded, and socket(AF_ALG) could not load it (%s): modprobe "
			      "af_alg algif_skcipher algif_hash",
			      facts->kernel_release, strerror(error));
	else
		hwoff_appendf(reason, reason_len,
			      "AF_ALG is not available: kernel %s has no AF_ALG sockets "
			      "(socket(AF_ALG): %s; it needs CONFIG_CRYPTO_USER_API)",
			      facts->kernel_release, strerror(error));
	if (facts->seccomp == HWOFF_SECCOMP_ON)
		hwoff_appendf(reason, reason_len,
			      "; or the seccomp filter this process runs under refuses it");
}

void hwoff_probe_explain(char *reason, size_t reason_len, int error, const char *type,
			 const char *name, const struct hwoff_probe_facts *facts)
{
	reason[0] = '\0';
	if (!name) {
		explain_socket(reason, reason_len, error, facts);
	} else if (error == ENOENT) {
		hwoff_appendf(
			reason, reason_len,
			"AF_ALG has no %s '%s' (bind: %s): the algorithm's module or algif_%s is "
			"missing, or the kernel refuses it to AF_ALG",
			type, name, strerror(error), type);
		if (release_at_least(facts->kernel_release, OFF_CPU_DROPPED_MAJOR,
				     OFF_CPU_DROPPED_MINOR))
			hwoff_appendf(reason, reason_len,
				      "; kernel %s is 7.2 or later, which no longer offers off-CPU "
				      "(async or driver-only) implementations through AF_ALG",
				      facts->kernel_release);
		else
			hwoff_appendf(reason, reason_len,
				      " (Linux 7.2 and later offer no off-CPU implementations "
				      "through AF_ALG)");
	} else if (error == EPERM || error == EACCES) {
		hwoff_appendf(reason, reason_len,
			      "AF_ALG denies %s '%s' to this process (bind: %s): it may need "
			      "CAP_NET_ADMIN, or a security module forbids it",
			      type, name, strerror(error));
	} else if (error == ELIBBAD) {
		hwoff_appendf(reason, reason_len,
			      "the kernel's %s '%s' failed its self-test (bind: %s)", type, name,
			      strerror(error));
	} else {
		hwoff_appendf(reason, reason_len, "AF_ALG cannot bind %s '%s': %s", type, name,
			      strerror(error));
	}
	if (facts->af_alg_restrict >= 0)
		hwoff_appendf(reason, reason_len, "; %s is %d (%s)", HWOFF_AF_ALG_RESTRICT,
			      facts->af_alg_restrict, restrict_meaning(facts->af_alg_restrict));
}

void hwoff_probe_explain_here(char *reason, size_t reason_len, int error, const char *type,
			      const char *name)
{
	struct machine_facts m;

	read_machine_facts(&m);
	hwoff_probe_explain(reason, reason_len, error, type, name, &m.facts);
}

/* socket(AF_ALG), or -errno. */
static int afalg_socket(void)
{
	int fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	return fd < 0 ? -errno : fd;
}

int hwoff_probe_afalg(struct hwoff_probe *p)
{
	pid_t pid = getpid();
	struct machine_facts m;
	int fd;

	if (p->pid == pid)
		return -p->error;

	p->pid = pid;
	p->error = 0;
	p->reason[0] = '\0';
	fd = afalg_socket();
	if (fd >= 0) {
		close(fd);
		return 0;
	}
	p->error = -fd;
	read_machine_facts(&m);
	hwoff_probe_explain(p->reason, sizeof(p->reason), p->error, NULL, NULL, &m.facts);
	return fd;
}

int hwoff_probe_alg(const struct hwoff_alg *alg, const char *name, char *reason, size_t reason_len)
{
	const char *type = hwoff_alg_kernel_type(alg);
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	struct machine_facts m;
	int error = 0;
	int fd;

	reason[0] = '\0';
	if (strlen(name) >= sizeof(sa.salg_name)) {
		snprintf(reason, reason_len, "name '%.40s...' is longer than AF_ALG takes (%zu)",
			 name, sizeof(sa.salg_name) - 1);
		return -ENAMETOOLONG;
	}
	fd = afalg_socket();
	if (fd < 0) {
		read_machine_facts(&m);
		hwoff_probe_explain(reason, reason_len, -fd, type, NULL, &m.facts);
		return fd;
	}
	strcpy((char *)sa.salg_type, type);
	strcpy((char *)sa.salg_name, name);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		error = errno;
	close(fd);
	if (!error)
		return 0;
	read_machine_facts(&m);
	hwoff_probe_explain(reason, reason_len, error, type, name, &m.facts);
	return -error;
}
