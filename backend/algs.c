/*
 * algs.c - the one table of the algorithms hwoffload serves, and its look-ups.
 *
 * The names are those of OpenSSL 3.0's default provider (providers/implementations/include/prov/
 * names.h, as `openssl list -digest-algorithms -cipher-algorithms` shows them), so an application
 * fetching any of them gets ours when ours is preferred.
 */
#include <string.h>
#include <strings.h>

#include "backend/algs.h"

/* The canonical name is written once: the full list is that name followed by the aliases. */
#define NAMES(canonical, aliases) .name = canonical, .names = canonical aliases

#define AES(canonical, aliases, kernel, aes_mode, bits, block, iv)                          \
	{                                                                                   \
		NAMES(canonical, aliases), .kernel_name = kernel, .kind = HWOFF_ALG_CIPHER, \
					   .mode = aes_mode, .key_bytes = (bits) / 8,       \
					   .block_bytes = block, .iv_bytes = iv,            \
	}

#define DIGEST(canonical, aliases, kernel, block, digest, no_algid_params)                  \
	{                                                                                   \
		NAMES(canonical, aliases), .kernel_name = kernel, .kind = HWOFF_ALG_DIGEST, \
					   .mode = HWOFF_MODE_NONE, .block_bytes = block,   \
					   .digest_bytes = digest,                          \
					   .algid_absent = no_algid_params,                 \
	}

const struct hwoff_alg hwoff_algs[] = {
	AES("AES-128-ECB", ":2.16.840.1.101.3.4.1.1", "ecb(aes)", HWOFF_MODE_ECB, 128, 16, 0),
	AES("AES-192-ECB", ":2.16.840.1.101.3.4.1.21", "ecb(aes)", HWOFF_MODE_ECB, 192, 16, 0),
	AES("AES-256-ECB", ":2.16.840.1.101.3.4.1.41", "ecb(aes)", HWOFF_MODE_ECB, 256, 16, 0),
	AES("AES-128-CBC", ":AES128:2.16.840.1.101.3.4.1.2", "cbc(aes)", HWOFF_MODE_CBC, 128, 16,
	    16),
	AES("AES-192-CBC", ":AES192:2.16.840.1.101.3.4.1.22", "cbc(aes)", HWOFF_MODE_CBC, 192, 16,
	    16),
	AES("AES-256-CBC", ":AES256:2.16.840.1.101.3.4.1.42", "cbc(aes)", HWOFF_MODE_CBC, 256, 16,
	    16),
	AES("AES-128-CTR", "", "ctr(aes)", HWOFF_MODE_CTR, 128, 1, 16),
	AES("AES-192-CTR", "", "ctr(aes)", HWOFF_MODE_CTR, 192, 1, 16),
	AES("AES-256-CTR", "", "ctr(aes)", HWOFF_MODE_CTR, 256, 1, 16),
	DIGEST("MD5", ":SSL3-MD5:1.2.840.113549.2.5", "md5", 64, 16, false),
	DIGEST("SHA1", ":SHA-1:SSL3-SHA1:1.3.14.3.2.26", "sha1", 64, 20, true),
	DIGEST("SHA2-224", ":SHA-224:SHA224:2.16.840.1.101.3.4.2.4", "sha224", 64, 28, true),
	DIGEST("SHA2-256", ":SHA-256:SHA256:2.16.840.1.101.3.4.2.1", "sha256", 64, 32, true),
	DIGEST("SHA2-384", ":SHA-384:SHA384:2.16.840.1.101.3.4.2.2", "sha384", 128, 48, true),
	DIGEST("SHA2-512", ":SHA-512:SHA512:2.16.840.1.101.3.4.2.3", "sha512", 128, 64, true),
};

const size_t hwoff_alg_count = sizeof(hwoff_algs) / sizeof(hwoff_algs[0]);

/* Whether name is one of the ':'-separated entries of names. */
static bool names_contain(const char *names, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = names; *p;) {
		size_t entry_len = strcspn(p, ":");

		if (entry_len == len && strncasecmp(p, name, len) == 0)
			return true;
		p += entry_len;
		if (*p == ':')
			p++;
	}
	return false;
}

const struct hwoff_alg *hwoff_alg_by_name(const char *name)
{
	if (!*name)
		return NULL;
	for (size_t i = 0; i < hwoff_alg_count; i++)
		if (names_contain(hwoff_algs[i].names, name))
			return &hwoff_algs[i];
	return NULL;
}

bool hwoff_alg_kernel_name_known(const char *kernel_name)
{
	for (size_t i = 0; i < hwoff_alg_count; i++)
		if (strcmp(hwoff_algs[i].kernel_name, kernel_name) == 0)
			return true;
	return false;
}
