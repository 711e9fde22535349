/* cache.c: see cache.h. */
#include "cache.h"
#include "sysprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "facts_io.h"
#include "log.h"
#include "parse.h"

#define MAX_ENTRY_BYTES (256u * 1024 * 1024)

static int mkdir_p(const char *dir)
{
	char *p = xstrdup(dir);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int r = mkdir(p, 0777) != 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return r;
}

int cache_open(struct facts_cache *c, const char *dir, uint64_t salt, char **err)
{
	memset(c, 0, sizeof(*c));
	if (mkdir_p(dir) != 0 || !path_is_dir(dir)) {
		*err = xasprintf("--cache %s: cannot create the directory: %s", dir, strerror(errno));
		return -1;
	}
	c->dir = path_absolute(dir);
	c->salt = salt;
	atomic_init(&c->hits, 0);
	atomic_init(&c->misses, 0);
	atomic_init(&c->stores, 0);
	atomic_init(&c->warned, 0);
	return 0;
}

void cache_close(struct facts_cache *c)
{
	free(c->dir);
	c->dir = NULL;
}

uint64_t cache_key(const struct facts_cache *c, const struct tu_job *job, const char *text, size_t len)
{
	XXH3_state_t *st = XXH3_createState();
	XXH3_64bits_reset_withSeed(st, c->salt);
	XXH3_64bits_update(st, job->file, strlen(job->file) + 1);
	if (job->directory)
		XXH3_64bits_update(st, job->directory, strlen(job->directory) + 1);
	for (size_t i = 0; i < job->args.n; i++)
		XXH3_64bits_update(st, job->args.v[i], strlen(job->args.v[i]) + 1);
	uint8_t flags[2] = {job->buildless, job->cxx};
	XXH3_64bits_update(st, flags, sizeof(flags));
	uint64_t content = XXH3_64bits(text, len);
	XXH3_64bits_update(st, &content, sizeof(content));
	uint64_t k = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return k;
}

/* The first line of an entry: its key and a checksum of the rest. */
static char *entry_head(uint64_t key, const char *body, size_t len)
{
	XXH128_hash_t h = XXH3_128bits_withSeed(body, len, key);
	return xasprintf("nogvl-lint-cache %016" PRIx64 " %016" PRIx64 "%016" PRIx64, key, h.high64, h.low64);
}

static char *entry_path(const struct facts_cache *c, uint64_t key)
{
	return xasprintf("%s/%016" PRIx64 ".json", c->dir, key);
}

/* Every project header the TU read still has the content it had. */
static bool deps_current(const struct tu_facts *tu)
{
	for (size_t i = 0; i < tu->files.n; i++) {
		const struct tu_file *f = &tu->files.v[i];
		if (f->is_main)
			continue; /* part of the key */
		size_t len = 0;
		char *text = read_file(f->path, &len, 0);
		if (!text)
			return false;
		uint64_t h = XXH3_64bits(text, len);
		free(text);
		if (h != f->hash)
			return false;
	}
	return true;
}

struct tu_facts *cache_lookup(struct facts_cache *c, uint64_t key, const struct tu_job *job)
{
	char *p = entry_path(c, key);
	size_t len = 0;
	char *buf = read_file(p, &len, MAX_ENTRY_BYTES);
	free(p);
	if (!buf) {
		atomic_fetch_add(&c->misses, 1);
		return NULL;
	}
	/* "nogvl-lint-cache KEY SUM\n" then the facts: an entry edited by hand,
	 * truncated, or stored under another key's name is not used */
	char *err = NULL;
	struct tu_facts *tu = NULL;
	char head[96];
	const char *nl = memchr(buf, '\n', len < 95 ? len : 95);
	if (nl) {
		size_t hl = (size_t)(nl - buf);
		const char *body = nl + 1;
		size_t blen = len - hl - 1;
		char *want = entry_head(key, body, blen);
		memcpy(head, buf, hl);
		head[hl] = '\0';
		if (strcmp(head, want) == 0)
			tu = facts_load(body, blen, &err);
		else
			err = xstrdup("its checksum or key does not match its content");
		free(want);
	} else {
		err = xstrdup("no checksum line");
	}
	free(buf);
	if (!tu || strcmp(tu->path, job->file) != 0 || !deps_current(tu)) {
		if (err)
			log_verbose(2, "cache entry for %s unusable: %s", job->display, err);
		free(err);
		tu_facts_free(tu);
		atomic_fetch_add(&c->misses, 1);
		return NULL;
	}
	/* what depends on this run, not on the file */
	tu->display = intern(&tu->pool, job->display ? job->display : job->file);
	tu->pch_use = PCH_USE_NONE;
	tu->pch_built = 0;
	atomic_fetch_add(&c->hits, 1);
	return tu;
}

void cache_store(struct facts_cache *c, uint64_t key, const struct tu_facts *tu)
{
	if (tu->status == TU_FAILED)
		return; /* try again next time */
	if (tu_missing_headers(tu, NULL))
		return; /* a header it missed may be installed by the next run (issue 14) */
	size_t len = 0;
	char *buf = facts_dump(tu, &len);
	if (!buf)
		return;
	char *p = entry_path(c, key);
	char *tmp = xasprintf("%s.XXXXXX", p);
	int fd = mkstemp(tmp);
	bool ok = fd >= 0;
	char *head = entry_head(key, buf, len);
	size_t hlen = strlen(head);
	head[hlen] = '\n'; /* replaces the terminator: written by length */
	for (size_t hd = 0; ok && hd < hlen + 1;) {
		ssize_t w = write(fd, head + hd, hlen + 1 - hd);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			ok = false;
		else
			hd += (size_t)w;
	}
	free(head);
	size_t done = 0;
	while (ok && done < len) {
		ssize_t w = write(fd, buf + done, len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			ok = false;
		else
			done += (size_t)w;
	}
	if (fd >= 0)
		close(fd);
	if (ok && rename(tmp, p) != 0)
		ok = false;
	if (!ok) {
		if (fd >= 0)
			unlink(tmp);
		if (atomic_exchange(&c->warned, 1) == 0)
			log_warning("cannot write the cache in %s: %s", c->dir, strerror(errno));
	} else {
		atomic_fetch_add(&c->stores, 1);
	}
	free(tmp);
	free(p);
	free(buf);
}
