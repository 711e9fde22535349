/* flags.h: the compiler arguments clang rejects, found once per argument
 * vector on an empty probe file (parse.c's first step for every file). */
#ifndef NOGVL_FLAGS_H
#define NOGVL_FLAGS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "clang_api.h"
#include "util.h"

/* Result of checking one argument vector: which positions to drop and why. */
struct flag_verdict {
	size_t n;   /* number of arguments checked */
	bool *drop; /* n entries */
	char **why; /* n entries, NULL unless dropped */
};

struct flag_cache {
	pthread_mutex_t lock;
	struct hmap map; /* joined arguments -> struct flag_verdict * */
	strlist keys;
};

void verdict_free(struct flag_verdict *v);
void flag_cache_free(struct flag_cache *c);
/* The verdict for these arguments, from the cache when it has one (c may be
 * NULL: *owned is then the caller's to free). */
const struct flag_verdict *flags_verdict(CXIndex idx, struct flag_cache *c, char *const *args, size_t n,
					 struct flag_verdict **owned);

#endif
