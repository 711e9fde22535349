/* helpers.h: small file-system helpers shared by the unit tests (header-only,
 * every function static). Each test builds what it needs in a fresh
 * directory under $TMPDIR (or /tmp) and removes it afterwards. */
#ifndef NOGVL_TEST_HELPERS_H
#define NOGVL_TEST_HELPERS_H

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* A new empty directory (absolute, symlinks resolved); caller frees. */
static inline char *th_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/nogvl-test-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpl)) {
		fprintf(stderr, "mkdtemp %s: %s\n", tmpl, strerror(errno));
		abort();
	}
	char *abs = path_absolute(tmpl);
	free(tmpl);
	return abs;
}

/* Creates dir/rel's parent directories and writes text to it. */
static inline char *th_write(const char *dir, const char *rel, const char *text)
{
	char *p = path_join(dir, rel);
	for (char *s = p + strlen(dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	FILE *f = fopen(p, "w");
	if (!f) {
		fprintf(stderr, "cannot write %s: %s\n", p, strerror(errno));
		abort();
	}
	fputs(text, f);
	fclose(f);
	return p;
}

static inline void th_mkdir(const char *dir, const char *rel)
{
	char *p = path_join(dir, rel);
	for (char *s = p + strlen(dir) + 1;; s++) {
		char *slash = strchr(s, '/');
		if (slash)
			*slash = '\0';
		mkdir(p, 0755);
		if (!slash)
			break;
		*slash = '/';
		s = slash;
	}
	free(p);
}

static inline int th_rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* rm -rf dir (does not follow symbolic links; a test that made a directory
 * unreadable makes it readable again first). */
static inline void th_rm_rf(const char *dir)
{
	nftw(dir, th_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Does a list of strings contain s? */
static inline bool th_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* Does some string of the list contain sub? */
static inline bool th_has_sub(char *const *v, size_t n, const char *sub)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(v[i], sub))
			return true;
	return false;
}

#endif
