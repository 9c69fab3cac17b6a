/*
 * algs.h - the one table of the algorithms hwoffload serves.
 *
 * One row per algorithm as OpenSSL names it. The provider builds its OSSL_ALGORITHM arrays from
 * it, discovery keeps only the kernel implementations it names, the path table is keyed by it and
 * the calibration walks it, so adding an algorithm is adding one row in algs.c.
 */
#ifndef HWOFF_BACKEND_ALGS_H
#define HWOFF_BACKEND_ALGS_H

#include <stdbool.h>
#include <stddef.h>

enum hwoff_alg_kind {
	HWOFF_ALG_CIPHER,
	HWOFF_ALG_DIGEST,
};

enum hwoff_cipher_mode {
	HWOFF_MODE_NONE, /* digests */
	HWOFF_MODE_ECB,
	HWOFF_MODE_CBC,
	HWOFF_MODE_CTR,
};

struct hwoff_alg {
	const char *name; /* OpenSSL's canonical name: "SHA2-256" */
	const char *names; /* all of them, "NAME:ALIAS:OID", as the default provider lists */
	const char *kernel_name; /* the kernel's cra_name: "sha256", "cbc(aes)" */
	enum hwoff_alg_kind kind;
	enum hwoff_cipher_mode mode;
	unsigned int key_bytes; /* 0 for digests */
	/*
	 * The block size OpenSSL reports and the kernel's cra_blocksize, which agree: 16 for ECB
	 * and CBC, 1 for CTR (a stream mode), the hash's input block for digests (64 or 128).
	 */
	unsigned int block_bytes;
	unsigned int iv_bytes; /* 0 for ECB and digests */
	unsigned int digest_bytes; /* 0 for ciphers */
	/* OpenSSL's "algid-absent": its AlgorithmIdentifier omits the NULL parameters (SHA) */
	bool algid_absent;
};

/* The rows, in a fixed order that the path table file and the statistics follow. */
extern const struct hwoff_alg hwoff_algs[];
extern const size_t hwoff_alg_count;

/* By any of its OpenSSL names (canonical, alias or OID), case-insensitive as OpenSSL's; or NULL. */
const struct hwoff_alg *hwoff_alg_by_name(const char *name);

/* The row's position in hwoff_algs[], for arrays indexed like the table. */
static inline size_t hwoff_alg_index(const struct hwoff_alg *alg)
{
	return (size_t)(alg - hwoff_algs);
}

/* Whether some row has this kernel cra_name ("cbc(aes)" serves three rows). */
bool hwoff_alg_kernel_name_known(const char *kernel_name);

/* "encrypt"/"decrypt" apply to ciphers, "digest" to digests. */
static inline bool hwoff_alg_is_digest(const struct hwoff_alg *alg)
{
	return alg->kind == HWOFF_ALG_DIGEST;
}

#endif
