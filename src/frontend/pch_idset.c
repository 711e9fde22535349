/* pch_idset.c: see pch_idset.h. */
#include "pch_idset.h"

#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "util.h"

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Sorts and drops repeats in place. */
static void compact(struct idset *s)
{
	if (s->sorted == s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), u64_cmp);
	size_t w = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!w || s->v[w - 1] != s->v[i])
			s->v[w++] = s->v[i];
	s->n = s->sorted = w;
}

void idset_add(struct idset *s, const char *name, size_t len)
{
	if (s->n == s->cap) {
		/* the headers spell the same names again and again: drop the
		 * repeats before growing */
		compact(s);
		if (s->n >= s->cap / 2) {
			s->cap = s->cap ? s->cap * 2 : 1024;
			s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
		}
	}
	s->v[s->n++] = XXH3_64bits(name, len);
}

void idset_seal(struct idset *s)
{
	compact(s);
	if (s->n < s->cap) {
		s->cap = s->n;
		if (s->n) {
			s->v = xrealloc(s->v, s->n * sizeof(*s->v));
		} else {
			free(s->v);
			s->v = NULL;
		}
	}
}

bool idset_has(const struct idset *s, const char *name)
{
	uint64_t h = XXH3_64bits(name, strlen(name));
	size_t lo = 0, hi = s->sorted;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->v[mid] < h)
			lo = mid + 1;
		else if (s->v[mid] > h)
			hi = mid;
		else
			return true;
	}
	return false;
}

void idset_free(struct idset *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}
