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

static void read_machine_facts(struct machine_facts *m)
{
	if (uname(&m->uts))
		strcpy(m->uts.release, "unknown");
	m->facts.kernel_release = m->uts.release;
	m->facts.af_alg_restrict = (int)hwoff_read_number(HWOFF_AF_ALG_RESTRICT);
}

static bool off_cpu_dropped(const char *release)
{
	unsigned int major, minor;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return false;
	return major > OFF_CPU_DROPPED_MAJOR ||
	       (major == OFF_CPU_DROPPED_MAJOR && minor >= OFF_CPU_DROPPED_MINOR);
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

void hwoff_probe_explain(char *reason, size_t reason_len, int error, const char *type,
			 const char *name, const struct hwoff_probe_facts *facts)
{
	reason[0] = '\0';
	if (!name) {
		if (error == EAFNOSUPPORT)
			hwoff_appendf(reason, reason_len,
				      "AF_ALG is not available: kernel %s has no AF_ALG sockets "
				      "(socket(AF_ALG): %s; it needs CONFIG_CRYPTO_USER_API)",
				      facts->kernel_release, strerror(error));
		else if (error == EPERM || error == EACCES)
			hwoff_appendf(
				reason, reason_len,
				"AF_ALG is denied to this process (socket(AF_ALG): %s): a seccomp "
				"filter or security module forbids it",
				strerror(error));
		else
			hwoff_appendf(reason, reason_len, "AF_ALG sockets fail: socket(AF_ALG): %s",
				      strerror(error));
	} else if (error == ENOENT) {
		hwoff_appendf(
			reason, reason_len,
			"AF_ALG has no %s '%s' (bind: %s): the algorithm's module or algif_%s is "
			"missing, or the kernel refuses it to AF_ALG",
			type, name, strerror(error), type);
		if (off_cpu_dropped(facts->kernel_release))
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
	const char *type = hwoff_alg_is_digest(alg) ? "hash" : "skcipher";
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
