/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe.h - whether AF_ALG works in this process, and for which algorithms and drivers.
 *
 * AF_ALG is optional: a kernel may be built without it (this project's build host is), a
 * seccomp filter or security module may deny it, Linux 7.2 stopped offering off-CPU engines
 * through it, and the proposed /proc/sys/crypto/af_alg_restrict narrows it to an allowlist or
 * turns it off. The provider probes, reports the reason and serves everything in software.
 */
#ifndef HWOFF_BACKEND_PROBE_H
#define HWOFF_BACKEND_PROBE_H

#include <stddef.h>
#include <sys/types.h>

#include "backend/algs.h"

#define HWOFF_PROBE_REASON_MAX 512
#define HWOFF_AF_ALG_RESTRICT  "/proc/sys/crypto/af_alg_restrict"

struct hwoff_probe {
	pid_t pid; /* the process the answer is for; 0 before the first probe */
	int error; /* 0 when AF_ALG sockets can be made, else socket()'s errno */
	char reason[HWOFF_PROBE_REASON_MAX]; /* why not; "" when they can */
};

/*
 * Whether this process can make AF_ALG sockets. The answer is kept in p and reused, except in
 * a child after fork(), which probes again (its sandbox may differ). Not thread-safe: call it at
 * load time or under the caller's lock. Returns 0 or -errno; p->reason says why.
 */
int hwoff_probe_afalg(struct hwoff_probe *p);

/*
 * Whether AF_ALG binds name, a kernel name ("cbc(aes)") or a driver name ("cbc-aes-omap"), for
 * alg's type (skcipher or hash). Returns 0, or -errno with the reason in reason.
 */
int hwoff_probe_alg(const struct hwoff_alg *alg, const char *name, char *reason, size_t reason_len);

/* Whether the running kernel has AF_ALG, told apart from whether this process may use it. */
enum hwoff_af_alg_presence {
	HWOFF_AF_ALG_UNKNOWN, /* nothing says (no /lib/modules for this kernel) */
	HWOFF_AF_ALG_ABSENT, /* not loaded, not built in, no module file */
	HWOFF_AF_ALG_NOT_LOADED, /* its module is installed but not loaded */
	HWOFF_AF_ALG_PRESENT, /* /proc/net/protocols lists ALG */
};

/* Whether this process runs under seccomp ("Seccomp:" of /proc/self/status). */
enum hwoff_seccomp {
	HWOFF_SECCOMP_UNKNOWN,
	HWOFF_SECCOMP_OFF,
	HWOFF_SECCOMP_ON, /* strict or filter */
};

/* Whether the running kernel is Linux major.minor or later (false when uname says otherwise). */
bool hwoff_kernel_at_least(unsigned int major, unsigned int minor);

/* What hwoff_probe_explain() words its reason from; hwoff_probe_*() read this machine's. */
struct hwoff_probe_facts {
	const char *kernel_release; /* uname -r */
	int af_alg_restrict; /* HWOFF_AF_ALG_RESTRICT's value, -1 when absent */
	enum hwoff_af_alg_presence af_alg;
	enum hwoff_seccomp seccomp;
};

/*
 * The reason for error from socket(AF_ALG) (name == NULL) or from binding name as type
 * ("skcipher", "hash"). Separate so that the wording for other kernels can be tested.
 */
void hwoff_probe_explain(char *reason, size_t reason_len, int error, const char *type,
			 const char *name, const struct hwoff_probe_facts *facts);
/* The same, with this machine's facts: for the transport's own socket() and bind() failures. */
void hwoff_probe_explain_here(char *reason, size_t reason_len, int error, const char *type,
			      const char *name);

#endif
