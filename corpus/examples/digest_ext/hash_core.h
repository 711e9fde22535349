/* hash_core.h: a toy hash used by the example extension. */
#ifndef DIGEST_EXT_HASH_CORE_H
#define DIGEST_EXT_HASH_CORE_H

#include <stddef.h>
#include <stdint.h>

struct hash_ctx {
	uint64_t state;
	size_t total;
};

void hash_init(struct hash_ctx *ctx);
void hash_update(struct hash_ctx *ctx, const unsigned char *p, size_t n);
uint64_t hash_final(const struct hash_ctx *ctx);
/* Stretches a password (slow on purpose). */
void hash_stretch(const unsigned char *pw, size_t n, unsigned rounds, unsigned char out[32]);

#endif
