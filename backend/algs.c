// SPDX-License-Identifier: Apache-2.0
/*
 * algs.c - the one table of the algorithms hwoffload serves (rows in algs.h), and its look-ups.
 */
#include <string.h>
#include <strings.h>

#include "backend/algs.h"

/* The canonical name is written once: the full list is that name followed by the aliases. */
#define NAMES(canonical, aliases) .name = canonical, .names = canonical aliases

#define AES(row, canonical, aliases, kernel, aes_mode, bits, block, iv) \
	[HWOFF_ROW_##row] = {                                           \
		NAMES(canonical, aliases),                              \
		.kernel_name = kernel,                                  \
		.kind = HWOFF_ALG_CIPHER,                               \
		.mode = aes_mode,                                       \
		.key_bytes = (bits) / 8,                                \
		.block_bytes = block,                                   \
		.iv_bytes = iv,                                         \
	},

#define DIGEST(row, canonical, aliases, kernel, block, digest, no_algid_params) \
	[HWOFF_ROW_##row] = {                                                                     \
		NAMES(canonical, aliases),	 .kernel_name = kernel, .kind = HWOFF_ALG_DIGEST, \
		.mode = HWOFF_MODE_NONE,	 .block_bytes = block,	.digest_bytes = digest,   \
		.algid_absent = no_algid_params,                                                  \
	},                                                                                        \
	[HWOFF_ROW_hmac_##row] = {                                                                \
		NAMES("HMAC-" canonical, ""),                                                     \
		.kernel_name = "hmac(" kernel ")",                                                \
		.kind = HWOFF_ALG_DIGEST,                                                         \
		.mode = HWOFF_MODE_NONE,                                                          \
		.block_bytes = block,                                                             \
		.digest_bytes = digest,                                                           \
		.hmac_of = &hwoff_algs[HWOFF_ROW_##row],                                          \
	},

const struct hwoff_alg hwoff_algs[] = { HWOFF_ALGS(AES, DIGEST) };

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
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++)
		if (names_contain(hwoff_algs[i].names, name))
			return &hwoff_algs[i];
	return NULL;
}

bool hwoff_alg_kernel_name_known(const char *kernel_name)
{
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++)
		if (strcmp(hwoff_algs[i].kernel_name, kernel_name) == 0)
			return true;
	return false;
}
