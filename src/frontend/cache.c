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
#include "prescan.h"

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
	pthread_mutex_init(&c->lock, NULL);
	return 0;
}

void cache_close(struct facts_cache *c)
{
	free(c->dir);
	c->dir = NULL;
	hmap_foreach(&c->candidates, e) free(e->val);
	hmap_free(&c->candidates);
	strlist_free(&c->candidate_keys);
	if (c->hi) {
		header_index_free(c->hi);
		free(c->hi);
		c->hi = NULL;
	}
	pthread_mutex_destroy(&c->lock);
}

/* ---- where the headers a TU missed can be found now ---- */

/* The trees the compiler searches by itself (where a package installs). */
static const char *const std_include_dirs[] = {
	"/usr/local/include",          "/usr/include/x86_64-linux-gnu",    "/usr/include/aarch64-linux-gnu",
	"/usr/include/i386-linux-gnu", "/usr/include/arm-linux-gnueabihf", "/usr/include",
};

static void stamp_if_exists(XXH3_state_t *st, const char *dir, const char *name)
{
	char *p = path_join(dir, name);
	struct stat sb;
	if (stat(p, &sb) == 0)
		XXH3_64bits_update(st, p, strlen(p) + 1);
	free(p);
}

/* The header search's candidate directories for name, as a hash (memoised
 * for the run). False when the search was bounded (no stable answer). */
static bool candidates_hash(struct facts_cache *c, const char *name, uint64_t *out)
{
	pthread_mutex_lock(&c->lock);
	if (!c->indexed) {
		c->hi = xcalloc(1, sizeof(*c->hi));
		c->hi->deadline = now_seconds() + HEADER_SEARCH_MAX_SECONDS;
		for (size_t i = 0; c->search_roots && i < c->search_roots->n; i++)
			header_index_add_tree(c->hi, c->search_roots->v[i]);
		c->bounded = c->hi->bounded;
		c->indexed = true;
	}
	bool ok = !c->bounded;
	uint64_t *h = ok ? hmap_get(&c->candidates, name) : NULL;
	if (ok && !h) {
		strlist dirs = {0};
		header_candidates(c->hi, name, &dirs);
		XXH3_state_t *st = XXH3_createState();
		XXH3_64bits_reset(st);
		for (size_t i = 0; i < dirs.n; i++)
			XXH3_64bits_update(st, dirs.v[i], strlen(dirs.v[i]) + 1);
		h = xmalloc(sizeof(*h));
		*h = XXH3_64bits_digest(st);
		XXH3_freeState(st);
		strlist_free(&dirs);
		char *key = xstrdup(name);
		vec_push(&c->candidate_keys, key);
		hmap_put(&c->candidates, key, h);
	}
	if (ok)
		*out = *h;
	pthread_mutex_unlock(&c->lock);
	return ok;
}

/* A directory argument of an include option (-Idir, -I dir, -isystem dir
 * ...) at args[*i], or NULL. */
static const char *include_dir_arg(const strlist *args, size_t *i)
{
	static const char *const opts[] = {"-I", "-isystem", "-iquote", "-idirafter"};
	const char *a = args->v[*i];
	for (size_t k = 0; k < ARRAY_SIZE(opts); k++) {
		size_t ol = strlen(opts[k]);
		if (strncmp(a, opts[k], ol) != 0)
			continue;
		if (a[ol])
			return a + ol;
		if (*i + 1 < args->n)
			return args->v[++*i];
		return NULL;
	}
	return NULL;
}

/* A stamp of where each header the TU missed can be found now; false when
 * it cannot be known (the header search was bounded). */
static bool missing_stamp(struct facts_cache *c, const struct tu_job *job, const struct tu_facts *tu,
			  const strlist *names, uint64_t *out)
{
	XXH3_state_t *st = XXH3_createState();
	XXH3_64bits_reset(st);
	bool ok = true;
	for (size_t n = 0; n < names->n && ok; n++) {
		const char *name = names->v[n];
		XXH3_64bits_update(st, name, strlen(name) + 1);
		if (name[0] == '/') {
			stamp_if_exists(st, "/", name);
			continue;
		}
		for (size_t i = 0; i < job->args.n; i++) {
			const char *d = include_dir_arg(&job->args, &i);
			if (!d || !*d)
				continue;
			if (d[0] != '/' && job->directory) {
				char *abs = path_join(job->directory, d);
				stamp_if_exists(st, abs, name);
				free(abs);
			} else {
				stamp_if_exists(st, d, name);
			}
		}
		for (size_t i = 0; i < tu->files.n; i++) {
			char *d = path_dirname(tu->files.v[i].path);
			stamp_if_exists(st, d, name);
			free(d);
		}
		for (size_t i = 0; i < ARRAY_SIZE(std_include_dirs); i++)
			stamp_if_exists(st, std_include_dirs[i], name);
		uint64_t ch = 0;
		if (c->search_roots && c->search_roots->n) {
			ok = candidates_hash(c, name, &ch);
			XXH3_64bits_update(st, &ch, sizeof(ch));
		}
	}
	*out = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return ok;
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
	return xasprintf("%s/%016" PRIx64 ".facts", c->dir, key);
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
		/* the parse read it with `__debug` pragmas neutralised (prescan.h),
		 * and its hash is of that text */
		char *n = prescan_neutralise(text, len);
		uint64_t h = XXH3_64bits(n ? n : text, len);
		free(n);
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
	bool has_stamp = false;
	uint64_t stored_stamp = 0;
	const char *nl = memchr(buf, '\n', len < 95 ? len : 95);
	if (nl) {
		size_t hl = (size_t)(nl - buf);
		const char *body = nl + 1;
		size_t blen = len - hl - 1;
		char *want = entry_head(key, body, blen);
		memcpy(head, buf, hl);
		head[hl] = '\0';
		if (strcmp(head, want) == 0) {
			/* "missing STAMP\n" first when the TU missed headers */
			if (blen > 8 && memcmp(body, "missing ", 8) == 0) {
				const char *e = memchr(body, '\n', blen < 40 ? blen : 40);
				char *end = NULL;
				if (e)
					stored_stamp = strtoull(body + 8, &end, 16);
				if (!e || end != e) {
					err = xstrdup("bad stamp line");
				} else {
					has_stamp = true;
					blen -= (size_t)(e + 1 - body);
					body = e + 1;
				}
			}
			if (!err)
				tu = facts_load(body, blen, &err);
		} else
			err = xstrdup("its checksum or key does not match its content");
		free(want);
	} else {
		err = xstrdup("no checksum line");
	}
	free(buf);
	if (tu && !err) {
		/* a header it missed may have been installed since (issue 14) */
		strlist names = {0};
		bool missed = tu_missing_headers(tu, &names) > 0;
		uint64_t now = 0;
		if (missed != has_stamp)
			err = xstrdup("its stamp of missing headers does not match its facts");
		else if (missed && (!missing_stamp(c, job, tu, &names, &now) || now != stored_stamp))
			err = xstrdup("a header it missed can be found now (or the search is bounded)");
		strlist_free(&names);
		if (err) {
			tu_facts_free(tu);
			tu = NULL;
		}
	}
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

void cache_store(struct facts_cache *c, uint64_t key, const struct tu_job *job, const struct tu_facts *tu)
{
	if (tu->status == TU_FAILED)
		return; /* try again next time */
	/* a TU that missed headers carries where they can be found now: a
	 * header installed by the next run makes its lookup a miss (issue 14) */
	strlist names = {0};
	uint64_t stamp = 0;
	bool missed = tu_missing_headers(tu, &names) > 0;
	bool stampable = !missed || missing_stamp(c, job, tu, &names, &stamp);
	strlist_free(&names);
	if (!stampable)
		return;
	size_t flen = 0;
	char *facts = facts_pack(tu, &flen);
	if (!facts)
		return;
	char *buf = facts;
	size_t len = flen;
	if (missed) {
		char line[32];
		int ll = snprintf(line, sizeof(line), "missing %016" PRIx64 "\n", stamp);
		buf = xmalloc((size_t)ll + flen);
		memcpy(buf, line, (size_t)ll);
		memcpy(buf + ll, facts, flen);
		len = (size_t)ll + flen;
		free(facts);
	}
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
