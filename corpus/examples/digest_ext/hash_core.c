/* hash_core.c: pure C, no Ruby: everything here may run without the GVL. */
#include "hash_core.h"

#include <string.h>

static uint64_t mix(uint64_t h, unsigned char c)
{
	h ^= c;
	return h * 0x100000001b3ULL;
}

void hash_init(struct hash_ctx *ctx)
{
	ctx->state = 0xcbf29ce484222325ULL;
	ctx->total = 0;
}

void hash_update(struct hash_ctx *ctx, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ctx->state = mix(ctx->state, p[i]);
	ctx->total += n;
}

uint64_t hash_final(const struct hash_ctx *ctx)
{
	return ctx->state ^ ctx->total;
}

void hash_stretch(const unsigned char *pw, size_t n, unsigned rounds, unsigned char out[32])
{
	struct hash_ctx c;
	hash_init(&c);
	for (unsigned r = 0; r < rounds; r++) {
		hash_update(&c, pw, n);
		uint64_t v = hash_final(&c);
		for (int i = 0; i < 32; i++)
			out[i] ^= (unsigned char)(v >> ((i % 8) * 8));
	}
}
