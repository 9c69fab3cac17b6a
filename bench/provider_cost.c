// SPDX-License-Identifier: Apache-2.0
/*
 * provider_cost - N requests of one size through one provider, for bench/provider-cost, which
 * runs it under callgrind twice (N and 2N) so that the difference is the instructions of N
 * requests, start-up excluded: the provider's own cost per request, which TCG's timing noise
 * hides. A digest request is one EVP_Digest() (a context per message, as `openssl speed` and
 * most applications do); a cipher request one EVP_EncryptUpdate() on one context; an AEAD
 * request (GCM) one message on one context as a TLS record and `openssl speed -aead` make it:
 * init with the IV, 13 bytes of AAD, the data, final and the tag.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#define MAX_SIZE 65536

static int usage(void)
{
	fprintf(stderr,
		"usage: provider_cost PROVIDER-DIR default|hwoffload ALGORITHM SIZE COUNT\n");
	return 2;
}

int main(int argc, char **argv)
{
	static unsigned char buf[MAX_SIZE + 32];
	unsigned char key[32] = { 1 }, iv[16] = { 2 }, md[EVP_MAX_MD_SIZE];
	const char *provider, *name;
	char query[64];
	EVP_CIPHER *cipher;
	EVP_MD *digest;
	long size, count;
	int ok = 1;

	if (argc != 6)
		return usage();
	provider = argv[2];
	name = argv[3];
	size = strtol(argv[4], NULL, 10);
	count = strtol(argv[5], NULL, 10);
	if (size < 0 || size > MAX_SIZE || count < 1 ||
	    (strcmp(provider, "default") && strcmp(provider, "hwoffload")))
		return usage();
	snprintf(query, sizeof(query), "provider=%s", provider);
	if (!OSSL_PROVIDER_set_default_search_path(NULL, argv[1]) ||
	    !OSSL_PROVIDER_load(NULL, "default") ||
	    (!strcmp(provider, "hwoffload") && !OSSL_PROVIDER_load(NULL, "hwoffload"))) {
		ERR_print_errors_fp(stderr);
		return 1;
	}
	digest = EVP_MD_fetch(NULL, name, query);
	cipher = digest ? NULL : EVP_CIPHER_fetch(NULL, name, query);
	if (digest) {
		for (long i = 0; i < count && ok; i++)
			ok = EVP_Digest(buf, (size_t)size, md, NULL, digest, NULL);
	} else if (cipher) {
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		bool aead = EVP_CIPHER_get_flags(cipher) & EVP_CIPH_FLAG_AEAD_CIPHER;
		int outl;

		ok = ctx && EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL);
		for (long i = 0; i < count && ok; i++)
			ok = aead ? EVP_EncryptInit_ex2(ctx, NULL, NULL, iv, NULL) &&
					     EVP_EncryptUpdate(ctx, NULL, &outl, md, 13) &&
					     EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)size) &&
					     EVP_EncryptFinal_ex(ctx, buf + outl, &outl) &&
					     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, md)
				  : EVP_EncryptUpdate(ctx, buf, &outl, buf, (int)size);
		EVP_CIPHER_CTX_free(ctx);
	} else {
		fprintf(stderr, "provider_cost: %s has no %s\n", provider, name);
		return 1;
	}
	if (!ok) {
		ERR_print_errors_fp(stderr);
		return 1;
	}
	EVP_MD_free(digest);
	EVP_CIPHER_free(cipher);
	return 0;
}
