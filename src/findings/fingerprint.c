/* fingerprint.c: see fingerprint.h. */
#include "fingerprint.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#include "rule.h"

char *fingerprint_normalise_code(const char *line)
{
	struct strbuf sb = {0};
	sb_puts(&sb, "");
	if (!line)
		return sb_detach(&sb);
	bool space = false;
	char quote = 0;
	for (const char *p = line; *p; p++) {
		if (quote) {
			sb_putc(&sb, *p);
			if (*p == '\\' && p[1])
				sb_putc(&sb, *++p);
			else if (*p == quote)
				quote = 0;
			continue;
		}
		if (p[0] == '/' && p[1] == '/')
			break;
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			if (!end)
				break;
			p = end + 1;
			space = true;
			continue;
		}
		if (isspace((unsigned char)*p)) {
			space = true;
			continue;
		}
		if (space && sb.len)
			sb_putc(&sb, ' ');
		space = false;
		if (*p == '"' || *p == '\'')
			quote = *p;
		sb_putc(&sb, *p);
	}
	return sb_detach(&sb);
}

static char *root_of(struct hmap *cache, const char *dir)
{
	char *hit = cache ? hmap_get(cache, dir) : NULL;
	if (hit)
		return xstrdup(hit);
	char *d = xstrdup(dir), *root = NULL;
	for (;;) {
		char *g = path_join(d, ".git");
		bool is_root = path_is_dir(g) || path_is_file(g);
		free(g);
		if (is_root) {
			root = xstrdup(d);
			break;
		}
		if (strcmp(d, "/") == 0 || !strchr(d, '/'))
			break;
		char *up = path_dirname(d);
		free(d);
		d = up;
	}
	free(d);
	if (!root) {
		char cwd[PATH_MAX];
		root = xstrdup(getcwd(cwd, sizeof(cwd)) ? cwd : "/");
	}
	if (cache)
		hmap_put(cache, xstrdup(dir), xstrdup(root));
	return root;
}

char *fingerprint_relpath(struct hmap *cache, const char *abs_file)
{
	if (!abs_file)
		return xstrdup("");
	char *dir = path_dirname(abs_file);
	char *root = root_of(cache, dir);
	char *rel = path_relative(abs_file, root);
	free(root);
	free(dir);
	return rel;
}

void fingerprint_cache_free(struct hmap *cache)
{
	hmap_foreach(cache, e)
	{
		free((char *)e->key);
		free(e->val);
	}
	hmap_free(cache);
}

void fingerprint_of(const char *slug, const char *relpath, const char *function, const char *code, unsigned occurrence,
		    char out[33])
{
	struct strbuf sb = {0};
	sb_printf(&sb, "v%d", FINGERPRINT_VERSION);
	const char *parts[] = {slug, relpath, function, code};
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++) {
		sb_putc(&sb, '\0');
		sb_puts(&sb, parts[i] ? parts[i] : "");
	}
	sb_putc(&sb, '\0');
	sb_printf(&sb, "%u", occurrence);
	XXH128_hash_t h = XXH3_128bits(sb.buf, sb.len);
	snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
	sb_free(&sb);
}

void fingerprints_compute(struct findings *fs)
{
	struct hmap roots = {0}, seen = {0};
	strlist keys = {0};
	for (size_t i = 0; i < fs->v.n; i++) {
		struct finding *f = fs->v.v[i];
		char *rel = fingerprint_relpath(&roots, f->loc.file);
		char *code = fingerprint_normalise_code(source_line(f->loc.file, f->loc.line));
		char *key = xasprintf("%s\1%s\1%s\1%s", f->rule->slug, rel, f->function ? f->function : "", code);
		uintptr_t n = (uintptr_t)hmap_get(&seen, key);
		hmap_put(&seen, key, (void *)(n + 1));
		vec_push(&keys, key);
		fingerprint_of(f->rule->slug, rel, f->function, code, (unsigned)n, f->fingerprint);
		free(code);
		free(rel);
	}
	hmap_free(&seen);
	strlist_free(&keys);
	fingerprint_cache_free(&roots);
}
