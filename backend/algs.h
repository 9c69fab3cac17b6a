/* SPDX-License-Identifier: Apache-2.0 */
/*
 * algs.h - the one table of the algorithms hwoffload serves.
 *
 * One row per algorithm as OpenSSL names it. The provider builds its OSSL_ALGORITHM arrays from
 * it, discovery keeps only the kernel implementations it names, the path table is keyed by it and
 * the calibration walks it, so adding an algorithm is adding one row in HWOFF_ALGS below.
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
	HWOFF_MODE_GCM, /* an AEAD: one request is one whole message (aead.c) */
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
	 * and CBC, 1 for CTR and GCM (stream modes), the hash's input block for digests (64 or
	 * 128).
	 */
	unsigned int block_bytes;
	unsigned int iv_bytes; /* 0 for ECB and digests; GCM's default (and the kernel's only) 12 */
	unsigned int digest_bytes; /* 0 for ciphers */
	/* OpenSSL's "algid-absent": its AlgorithmIdentifier omits the NULL parameters (SHA) */
	bool algid_absent;
	/*
	 * HMAC rows: the digest row they key. Such a row is of kind digest (a hash of a message of
	 * unknown length: the same table direction, buffering and kernel socket) whose kernel
	 * socket takes a key, and which OpenSSL offers as EVP_MAC "HMAC" with that digest, not as a
	 * digest of its own (provider/mac.c). NULL on every other row.
	 */
	const struct hwoff_alg *hmac_of;
};

/*
 * The rows, in a fixed order that the path table file and the statistics follow: adding an
 * algorithm is adding one line here. Each is AES(row, canonical name, aliases, kernel cra_name,
 * mode, key bits, block bytes, IV bytes) or DIGEST(row, canonical name, aliases, kernel
 * cra_name, block bytes, digest bytes, algid absent); row names the row in code (HWOFF_ROW_row).
 * Each DIGEST is two rows: the digest, then its HMAC (HWOFF_ROW_hmac_row, "HMAC-" and the
 * canonical name, kernel "hmac(" cra_name ")"). algs.c expands them into hwoff_algs[], the
 * provider into one set of entry points per row.
 * The names are those of OpenSSL 3.0's default provider (`openssl list -digest-algorithms
 * -cipher-algorithms`), so an application fetching any of them gets ours when ours is preferred.
 */
#define HWOFF_ALGS(AES, DIGEST)                                                                 \
	AES(aes_128_ecb, "AES-128-ECB", ":2.16.840.1.101.3.4.1.1", "ecb(aes)", HWOFF_MODE_ECB,  \
	    128, 16, 0)                                                                         \
	AES(aes_192_ecb, "AES-192-ECB", ":2.16.840.1.101.3.4.1.21", "ecb(aes)", HWOFF_MODE_ECB, \
	    192, 16, 0)                                                                         \
	AES(aes_256_ecb, "AES-256-ECB", ":2.16.840.1.101.3.4.1.41", "ecb(aes)", HWOFF_MODE_ECB, \
	    256, 16, 0)                                                                         \
	AES(aes_128_cbc, "AES-128-CBC", ":AES128:2.16.840.1.101.3.4.1.2", "cbc(aes)",           \
	    HWOFF_MODE_CBC, 128, 16, 16)                                                        \
	AES(aes_192_cbc, "AES-192-CBC", ":AES192:2.16.840.1.101.3.4.1.22", "cbc(aes)",          \
	    HWOFF_MODE_CBC, 192, 16, 16)                                                        \
	AES(aes_256_cbc, "AES-256-CBC", ":AES256:2.16.840.1.101.3.4.1.42", "cbc(aes)",          \
	    HWOFF_MODE_CBC, 256, 16, 16)                                                        \
	AES(aes_128_ctr, "AES-128-CTR", "", "ctr(aes)", HWOFF_MODE_CTR, 128, 1, 16)             \
	AES(aes_192_ctr, "AES-192-CTR", "", "ctr(aes)", HWOFF_MODE_CTR, 192, 1, 16)             \
	AES(aes_256_ctr, "AES-256-CTR", "", "ctr(aes)", HWOFF_MODE_CTR, 256, 1, 16)             \
	AES(aes_128_gcm, "AES-128-GCM", ":id-aes128-GCM:2.16.840.1.101.3.4.1.6", "gcm(aes)",    \
	    HWOFF_MODE_GCM, 128, 1, 12)                                                         \
	AES(aes_192_gcm, "AES-192-GCM", ":id-aes192-GCM:2.16.840.1.101.3.4.1.26", "gcm(aes)",   \
	    HWOFF_MODE_GCM, 192, 1, 12)                                                         \
	AES(aes_256_gcm, "AES-256-GCM", ":id-aes256-GCM:2.16.840.1.101.3.4.1.46", "gcm(aes)",   \
	    HWOFF_MODE_GCM, 256, 1, 12)                                                         \
	DIGEST(md5, "MD5", ":SSL3-MD5:1.2.840.113549.2.5", "md5", 64, 16, false)                \
	DIGEST(sha1, "SHA1", ":SHA-1:SSL3-SHA1:1.3.14.3.2.26", "sha1", 64, 20, true)            \
	DIGEST(sha224, "SHA2-224", ":SHA-224:SHA224:2.16.840.1.101.3.4.2.4", "sha224", 64, 28,  \
	       true)                                                                            \
	DIGEST(sha256, "SHA2-256", ":SHA-256:SHA256:2.16.840.1.101.3.4.2.1", "sha256", 64, 32,  \
	       true)                                                                            \
	DIGEST(sha384, "SHA2-384", ":SHA-384:SHA384:2.16.840.1.101.3.4.2.2", "sha384", 128, 48, \
	       true)                                                                            \
	DIGEST(sha512, "SHA2-512", ":SHA-512:SHA512:2.16.840.1.101.3.4.2.3", "sha512", 128, 64, \
	       true)                                                                            \
	DIGEST(sha3_256, "SHA3-256", ":2.16.840.1.101.3.4.2.8", "sha3-256", 136, 32, true)

#define HWOFF_ROW_INDEX(row, ...)	 HWOFF_ROW_##row,
#define HWOFF_ROW_INDEX_DIGEST(row, ...) HWOFF_ROW_##row, HWOFF_ROW_hmac_##row,
/* Each row's position in hwoff_algs[]; HWOFF_ALG_COUNT rows in all. */
enum hwoff_row { HWOFF_ALGS(HWOFF_ROW_INDEX, HWOFF_ROW_INDEX_DIGEST) HWOFF_ALG_COUNT };

extern const struct hwoff_alg hwoff_algs[HWOFF_ALG_COUNT];

/* By any of its OpenSSL names (canonical, alias or OID), case-insensitive as OpenSSL's; or NULL. */
const struct hwoff_alg *hwoff_alg_by_name(const char *name);

/* The row's position in hwoff_algs[], for arrays indexed like the table. */
static inline size_t hwoff_alg_index(const struct hwoff_alg *alg)
{
	return (size_t)(alg - hwoff_algs);
}

/* Whether some row has this kernel cra_name ("cbc(aes)" serves three rows). */
bool hwoff_alg_kernel_name_known(const char *kernel_name);

/* AES, the cipher of every cipher row. */
#define HWOFF_AES_BLOCK	  16
#define HWOFF_AES_KEY_MAX 32

/*
 * CTR's counter is the whole IV, a 128-bit big-endian number that wraps (the kernel's
 * crypto_inc()): advance it by blocks.
 */
static inline void hwoff_ctr_add(unsigned char counter[HWOFF_AES_BLOCK], size_t blocks)
{
	for (int i = HWOFF_AES_BLOCK - 1; i >= 0 && blocks; i--) {
		blocks += counter[i];
		counter[i] = blocks & 0xff;
		blocks >>= 8;
	}
}

/* "encrypt"/"decrypt" apply to ciphers, "digest" to digests. */
static inline bool hwoff_alg_is_digest(const struct hwoff_alg *alg)
{
	return alg->kind == HWOFF_ALG_DIGEST;
}

/* An HMAC row (a digest row keyed): OpenSSL's EVP_MAC "HMAC" over alg->hmac_of. */
static inline bool hwoff_alg_is_hmac(const struct hwoff_alg *alg)
{
	return alg->hmac_of != NULL;
}

/* The HMAC row of a digest row. */
static inline const struct hwoff_alg *hwoff_alg_hmac(const struct hwoff_alg *digest)
{
	return digest + 1; /* HWOFF_ROW_INDEX_DIGEST */
}

/* A cipher whose request is a whole message with AAD and a tag (GCM): aead.c, not skcipher.c. */
static inline bool hwoff_alg_is_aead(const struct hwoff_alg *alg)
{
	return alg->mode == HWOFF_MODE_GCM;
}

/* GCM's tag: OpenSSL's and the engine's full length; the kernel takes 4, 8 and 12 to 16. */
#define HWOFF_GCM_TAG_MAX 16

/* The kernel's crypto API type of alg, as AF_ALG binds it: "hash", "skcipher" or "aead". */
static inline const char *hwoff_alg_kernel_type(const struct hwoff_alg *alg)
{
	return hwoff_alg_is_digest(alg) ? "hash" : hwoff_alg_is_aead(alg) ? "aead" : "skcipher";
}

#endif
