// SPDX-License-Identifier: Apache-2.0
/*
 * cipher_block.c - ECB and CBC's blocks (cipher.h): input waits until it makes whole blocks,
 * decryption with padding keeps its last block until final(), and final() pads or unpads.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "provider/cipher.h"

int cipher_block_update(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize,
			const unsigned char *in, size_t inl)
{
	size_t total = c->buf_len + inl, keep = cipher_bytes_kept(c, total), todo;

	if (total <= keep) {
		memcpy(c->buf + c->buf_len, in, inl);
		c->buf_len = total;
		*outl = 0;
		return 1;
	}
	todo = total - keep;
	if (!cipher_base_check_room(&c->base, todo, outsize))
		return 0;
	*outl = 0;
	if (!c->buf_len) {
		if (!cipher_crypt(c, in, out, todo, todo))
			return 0;
		memcpy(c->buf, in + todo, keep);
	} else {
		/*
		 * The block begun before and the rest in one request, gathered in out (in may be
		 * out): a kernel request costs far more than the copy.
		 */
		size_t fill = HWOFF_AES_BLOCK - c->buf_len, bulk = todo - HWOFF_AES_BLOCK;
		unsigned char tail[HWOFF_AES_BLOCK];

		memcpy(c->buf + c->buf_len, in, fill);
		memcpy(tail, in + fill + bulk, keep);
		memmove(out + HWOFF_AES_BLOCK, in + fill, bulk);
		memcpy(out, c->buf, HWOFF_AES_BLOCK);
		if (!cipher_crypt(c, out, out, todo, todo)) {
			OPENSSL_cleanse(tail, sizeof(tail));
			return 0;
		}
		memcpy(c->buf, tail, keep);
		OPENSSL_cleanse(tail, sizeof(tail));
	}
	*outl = todo;
	c->buf_len = keep;
	return 1;
}

int cipher_block_final(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize)
{
	unsigned char block[HWOFF_AES_BLOCK];
	unsigned int pad;

	*outl = 0;
	if (!c->padding) {
		if (!c->buf_len)
			return 1;
		HWPROV_RAISE(c->base.prov, HWPROV_R_NOT_BLOCK_MULTIPLE,
			     "%s with padding off: %zu bytes left over", c->base.alg->name,
			     c->buf_len);
		return 0;
	}
	if (c->base.encrypt) {
		pad = HWOFF_AES_BLOCK - c->buf_len;
		memset(c->buf + c->buf_len, (int)pad, pad);
		if (!cipher_base_check_room(&c->base, HWOFF_AES_BLOCK, outsize) ||
		    !cipher_crypt(c, c->buf, out, HWOFF_AES_BLOCK, HWOFF_AES_BLOCK))
			return 0;
		c->buf_len = 0;
		*outl = HWOFF_AES_BLOCK;
		return 1;
	}
	if (c->buf_len != HWOFF_AES_BLOCK) {
		HWPROV_RAISE(c->base.prov, HWPROV_R_BAD_DECRYPT,
			     "%s: wrong final block length (%zu bytes)", c->base.alg->name,
			     c->buf_len);
		return 0;
	}
	if (!cipher_crypt(c, c->buf, block, HWOFF_AES_BLOCK, HWOFF_AES_BLOCK))
		return 0;
	c->buf_len = 0;
	pad = block[HWOFF_AES_BLOCK - 1];
	for (unsigned int i = 0; i < pad && pad <= HWOFF_AES_BLOCK; i++)
		if (block[HWOFF_AES_BLOCK - 1 - i] != pad)
			pad = 0;
	if (!pad || pad > HWOFF_AES_BLOCK) {
		OPENSSL_cleanse(block, sizeof(block));
		HWPROV_RAISE(c->base.prov, HWPROV_R_BAD_DECRYPT, "%s: bad padding",
			     c->base.alg->name);
		return 0;
	}
	if (!cipher_base_check_room(&c->base, HWOFF_AES_BLOCK - pad, outsize))
		return 0;
	memcpy(out, block, HWOFF_AES_BLOCK - pad);
	OPENSSL_cleanse(block, sizeof(block));
	*outl = HWOFF_AES_BLOCK - pad;
	return 1;
}
