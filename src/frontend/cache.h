/* cache.h: the facts cache (--cache DIR).
 *
 * One file per translation unit, named by a key over the tool and facts
 * format versions, the Ruby headers, the parse options, the file's path, its
 * compiler arguments and its content. The entry also lists every project
 * header the TU included with its content hash; a lookup re-hashes them, so
 * changing a header re-parses exactly the files that include it. Entries are
 * written atomically (temp file + rename); a corrupt or foreign entry is a
 * miss, never an error.
 */
#ifndef NOGVL_CACHE_H
#define NOGVL_CACHE_H

#include <pthread.h>
#include <stdatomic.h>

#include "facts.h"

struct tu_job;

struct facts_cache {
	char *dir;
	uint64_t salt;            /* tool, format, Ruby headers, parse options */
	atomic_size_t hits, misses, stores;
	atomic_int warned;        /* a write error was reported once */
};

/* Prepares dir (created if missing). Returns 0, or -1 with *err. */
int cache_open(struct facts_cache *c, const char *dir, uint64_t salt, char **err);
void cache_close(struct facts_cache *c);

/* Key of one job given its main file's content. */
uint64_t cache_key(const struct facts_cache *c, const struct tu_job *job, const char *text, size_t len);
/* The cached facts, or NULL (a miss). */
struct tu_facts *cache_lookup(struct facts_cache *c, uint64_t key, const struct tu_job *job);
void cache_store(struct facts_cache *c, uint64_t key, const struct tu_facts *tu);

#endif
