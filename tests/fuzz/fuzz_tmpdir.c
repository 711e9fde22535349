/* fuzz_tmpdir.c: see fuzz.h. */
#include <ftw.h>
#include <unistd.h>

#include "fuzz.h"

static char *dir;

static int rm_cb(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

static void cleanup(void)
{
	if (dir)
		nftw(dir, rm_cb, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
	dir = NULL;
}

char *fuzz_tmpdir(void)
{
	if (dir)
		return dir;
	const char *base = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/nogvl-fuzz-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpl)) {
		perror(tmpl);
		abort();
	}
	dir = path_absolute(tmpl);
	free(tmpl);
	atexit(cleanup);
	return dir;
}
