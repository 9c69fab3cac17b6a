// SPDX-License-Identifier: Apache-2.0
/*
 * cipher_update - each of its jobs one EVP_CipherUpdate() through hwoffload.so, the whole input in
 * one call, as an application encrypting a file at once makes it (`openssl enc` cuts its input
 * into 4 KiB updates), for test/guest/foreign_engine. No padding: the output is the input's length.
 * Each job's direction and size go to stderr before its update, so that a caller whose time limit
 * passed can say which request did not return. The provider is loaded from HWOFFLOAD_PROVIDER_DIR
 * (default provider/.libs) and configured by the environment (HWOFFLOAD_*); it is unloaded at the
 * end, which prints its statistics when HWOFFLOAD_STATS=yes.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

static int usage(void)
{
	fprintf(stderr,
		"usage: cipher_update ALGORITHM KEY-HEX IV-HEX encrypt|decrypt:IN:OUT...\n");
	return 2;
}

/* The whole of file name in *buf (malloc'd), its size in *len. */
static bool read_file(const char *name, unsigned char **buf, long *len)
{
	FILE *f = fopen(name, "rb");
	bool ok;

	if (!f)
		return false;
	ok = !fseek(f, 0, SEEK_END) && (*len = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	     (*buf = malloc((size_t)*len + 1)) && fread(*buf, 1, (size_t)*len, f) == (size_t)*len;
	fclose(f);
	return ok;
}

/* One job, "encrypt|decrypt:IN:OUT": one update of all of IN on a context of its own. */
static bool run_job(EVP_CIPHER *cipher, const unsigned char *key, const unsigned char *iv,
		    char *job)
{
	char *in_name = strchr(job, ':'), *out_name = in_name ? strchr(in_name + 1, ':') : NULL;
	unsigned char *in = NULL, *out = NULL;
	EVP_CIPHER_CTX *ctx = NULL;
	int enc, out_len = 0, final_len = 0;
	bool ok = false;
	FILE *f = NULL;
	long len;

	if (!out_name)
		return usage(), false;
	*in_name++ = '\0';
	*out_name++ = '\0';
	enc = !strcmp(job, "encrypt");
	if (!enc && strcmp(job, "decrypt"))
		return usage(), false;
	if (!read_file(in_name, &in, &len) || len > 0x7fffff00 ||
	    !(out = malloc((size_t)len + EVP_MAX_BLOCK_LENGTH))) {
		perror(in_name);
		goto out;
	}
	fprintf(stderr, "cipher_update: %s of %ld bytes in one update\n", job, len);
	ok = (ctx = EVP_CIPHER_CTX_new()) && EVP_CipherInit_ex2(ctx, cipher, key, iv, enc, NULL) &&
	     EVP_CIPHER_CTX_set_padding(ctx, 0) &&
	     EVP_CipherUpdate(ctx, out, &out_len, in, (int)len) &&
	     EVP_CipherFinal_ex(ctx, out + out_len, &final_len);
	if (!ok) {
		fprintf(stderr, "cipher_update: %s of %ld bytes failed:\n", job, len);
		ERR_print_errors_fp(stderr);
		goto out;
	}
	fprintf(stderr, "cipher_update: %s of %ld bytes done\n", job, len);
	ok = (f = fopen(out_name, "wb")) &&
	     fwrite(out, 1, (size_t)(out_len + final_len), f) == (size_t)(out_len + final_len);
	if (f)
		ok &= !fclose(f);
	if (!ok)
		perror(out_name);
out:
	EVP_CIPHER_CTX_free(ctx);
	free(in);
	free(out);
	return ok;
}

int main(int argc, char **argv)
{
	const char *dir = getenv("HWOFFLOAD_PROVIDER_DIR");
	unsigned char *key = NULL, *iv = NULL;
	OSSL_PROVIDER *hw = NULL, *ref = NULL;
	EVP_CIPHER *cipher = NULL;
	long key_len, iv_len;
	bool ok = true;

	if (argc < 5)
		return usage();
	if (!OSSL_PROVIDER_set_default_search_path(NULL, dir ? dir : "provider/.libs") ||
	    !(ref = OSSL_PROVIDER_load(NULL, "default")) ||
	    !(hw = OSSL_PROVIDER_load(NULL, "hwoffload")) ||
	    !(cipher = EVP_CIPHER_fetch(NULL, argv[1], "provider=hwoffload")) ||
	    !(key = OPENSSL_hexstr2buf(argv[2], &key_len)) ||
	    !(iv = OPENSSL_hexstr2buf(argv[3], &iv_len))) {
		fprintf(stderr, "cipher_update: cannot set up %s through hwoffload:\n", argv[1]);
		ERR_print_errors_fp(stderr);
		ok = false;
	} else if (key_len != EVP_CIPHER_get_key_length(cipher) ||
		   iv_len != EVP_CIPHER_get_iv_length(cipher)) {
		fprintf(stderr, "cipher_update: %s takes a key of %d bytes and an IV of %d\n",
			argv[1], EVP_CIPHER_get_key_length(cipher),
			EVP_CIPHER_get_iv_length(cipher));
		ok = false;
	}
	for (int i = 4; i < argc && ok; i++)
		ok = run_job(cipher, key, iv, argv[i]);
	EVP_CIPHER_free(cipher);
	OPENSSL_free(key);
	OPENSSL_free(iv);
	if (hw)
		OSSL_PROVIDER_unload(hw);
	if (ref)
		OSSL_PROVIDER_unload(ref);
	return ok ? 0 : 1;
}
