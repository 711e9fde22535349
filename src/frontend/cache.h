/* cache.h: the facts cache (--cache DIR).
 *
 * One file per translation unit, named by a key over the tool and facts
 * format versions, the Ruby headers, the parse options, the file's path, its
 * compiler arguments and its content. The entry also lists every project
 * header the TU included with its content hash; a lookup re-hashes them, so
 * changing a header re-parses exactly the files that include it. Entries are
 * written atomically (temp file + rename); a corrupt or foreign entry is a
 * miss, never an error.
 *
 * A TU that missed headers ('x.h' file not found) is stored too, with a
 * stamp of where each missing name can be found now: the directories its
 * parse searches (its -I/-isystem/-iquote/-idirafter, the directories of its
 * project files, the system's include trees) and, in a buildless run, the
 * header search's candidates (sysprobe.h) below search_roots. A lookup
 * recomputes the stamp; a header installed since (or removed, or made
 * unambiguous) makes it differ, and the entry is a miss.
 */
#ifndef NOGVL_CACHE_H
#define NOGVL_CACHE_H

#include <pthread.h>
#include <stdatomic.h>

#include "facts.h"
#include "sysprobe.h"

struct tu_job;

struct facts_cache {
	char *dir;
	uint64_t salt; /* tool, format, Ruby headers, parse options */
	atomic_size_t hits, misses, stores;
	atomic_int warned; /* a write error was reported once */
	/* buildless: the trees the header search looks in (set by the caller
	 * after cache_open; NULL or empty: only the parse's own directories) */
	const strlist *search_roots;
	/* the header search's answers, built on first need (lock held) */
	pthread_mutex_t lock;
	bool indexed, bounded;
	struct header_index *hi;
	struct hmap candidates; /* name -> malloc'd "dir\0dir\0...\0" hash text */
	strlist candidate_keys;
};

/* Prepares dir (created if missing). Returns 0, or -1 with *err. */
int cache_open(struct facts_cache *c, const char *dir, uint64_t salt, char **err);
void cache_close(struct facts_cache *c);

/* Key of one job given its main file's content. */
uint64_t cache_key(const struct facts_cache *c, const struct tu_job *job, const char *text, size_t len);
/* The cached facts, or NULL (a miss). */
struct tu_facts *cache_lookup(struct facts_cache *c, uint64_t key, const struct tu_job *job);
void cache_store(struct facts_cache *c, uint64_t key, const struct tu_job *job, const struct tu_facts *tu);

#endif
