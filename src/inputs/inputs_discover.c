/* inputs_discover.c: Ruby's headers and the discovery of a project's sources
 * (inputs.h). */
#include "inputs_build.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "extconf.h"
#include "log.h"
#include "report.h"
#include "sysprobe.h"

void ruby_headers_free(struct ruby_headers *rh)
{
	strlist_free(&rh->dirs);
	free(rh->source);
}

bool ruby_headers_have_offload(const strlist *dirs)
{
	for (size_t i = 0; i < dirs->n; i++) {
		char *p = path_join(dirs->v[i], "ruby/thread.h");
		char *text = read_file(p, NULL, 4u * 1024 * 1024);
		free(p);
		if (text) {
			bool has = strstr(text, "RB_NOGVL_OFFLOAD_SAFE") != NULL;
			free(text);
			if (has)
				return true;
		}
	}
	return false;
}

static bool has_ruby_h(const char *dir)
{
	char *p = path_join(dir, "ruby.h");
	bool r = path_is_file(p);
	free(p);
	if (!r) {
		p = path_join(dir, "ruby/config.h");
		r = path_is_file(p);
		free(p);
	}
	return r;
}

/* Takes rh->dirs as Ruby's headers, found by source, when one of them has
 * ruby.h or ruby/config.h. */
static bool take_dirs(struct ruby_headers *rh, const char *source)
{
	bool any = false;
	for (size_t i = 0; i < rh->dirs.n; i++)
		any = any || has_ruby_h(rh->dirs.v[i]);
	if (!any)
		return false;
	rh->source = xstrdup(source);
	rh->has_offload_flag = ruby_headers_have_offload(&rh->dirs);
	return true;
}

void add_dir(strlist *l, const char *d)
{
	char *abs = path_absolute(d);
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], abs) == 0) {
			free(abs);
			return;
		}
	vec_push(l, abs);
}

int ruby_headers_find(const strlist *explicit_dirs, struct ruby_headers *rh, char **err)
{
	if (explicit_dirs && explicit_dirs->n) {
		for (size_t i = 0; i < explicit_dirs->n; i++) {
			if (!path_is_dir(explicit_dirs->v[i])) {
				*err = xasprintf("--ruby-include %s: no such directory", explicit_dirs->v[i]);
				return -1;
			}
			add_dir(&rh->dirs, explicit_dirs->v[i]);
		}
		if (!take_dirs(rh, "--ruby-include")) {
			*err = xasprintf("--ruby-include %s: no ruby.h or ruby/config.h there", explicit_dirs->v[0]);
			strlist_free(&rh->dirs);
			return -1;
		}
		return 0;
	}
	/* RbConfig of the installed ruby (runs the user's ruby, never the project) */
	char *argv[] = {
		"ruby", "-e",
		"print RbConfig::CONFIG['rubyarchhdrdir'].to_s, \"\\n\", RbConfig::CONFIG['rubyhdrdir'].to_s, \"\\n\"",
		NULL};
	char *out = capture_command(argv, 65536);
	if (out) {
		char *save = NULL;
		for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
			if (*line && path_is_dir(line))
				add_dir(&rh->dirs, line);
		free(out);
		if (take_dirs(rh, "RbConfig (ruby)"))
			return 0;
		strlist_free(&rh->dirs);
	}
	/* well-known locations */
	static const char *const patterns[] = {
		"/usr/include/*/ruby-*",
		"/usr/include/ruby-*",
		"/usr/local/include/ruby-*",
		"/usr/local/include/*/ruby-*",
	};
	for (size_t k = 0; k < ARRAY_SIZE(patterns); k++) {
		glob_t g;
		if (glob(patterns[k], 0, NULL, &g) == 0) {
			/* newest version last in sort order: take the last match */
			for (size_t i = g.gl_pathc; i-- > 0;) {
				if (path_is_dir(g.gl_pathv[i])) {
					add_dir(&rh->dirs, g.gl_pathv[i]);
					break;
				}
			}
			globfree(&g);
		}
	}
	if (!take_dirs(rh, "well-known directories")) {
		strlist_free(&rh->dirs);
		*err = xstrdup("cannot find Ruby's headers (install ruby-dev, or pass --ruby-include DIR)");
		return -1;
	}
	return 0;
}

/* ---- discovery ---- */

bool is_source_file(const char *path)
{
	const char *e = path_ext(path);
	return strcmp(e, ".c") == 0 || strcmp(e, ".cc") == 0 || strcmp(e, ".cpp") == 0 || strcmp(e, ".cxx") == 0;
}

bool skipped_dir(const char *name, bool include_vendor)
{
	if (strcmp(name, ".git") == 0 || strcmp(name, ".svn") == 0 || strcmp(name, ".hg") == 0)
		return true;
	if (include_vendor)
		return false;
	return strcmp(name, "tmp") == 0 || strcmp(name, "vendor") == 0 || strcmp(name, "pkg") == 0;
}

int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void walk_dir(const char *dir, bool include_vendor, strlist *out, strlist *warnings, seen_vec *seen,
		     unsigned depth)
{
	if (depth > 64) {
		vec_push(warnings, xasprintf("%s: directories nested too deeply; not scanned further", dir));
		return;
	}
	struct stat st;
	if (stat(dir, &st) != 0) {
		vec_push(warnings, xasprintf("%s: %s", dir, strerror(errno)));
		return;
	}
	for (size_t i = 0; i < seen->n; i++)
		if (seen->v[i].dev == st.st_dev && seen->v[i].ino == st.st_ino) {
			vec_push(warnings, xasprintf("%s: directory already scanned (symlink loop?); skipped", dir));
			return;
		}
	struct seen_dir sd = {st.st_dev, st.st_ino};
	vec_push(seen, sd);
	DIR *d = opendir(dir);
	if (!d) {
		vec_push(warnings, xasprintf("%s: cannot read directory: %s", dir, strerror(errno)));
		return;
	}
	strlist names = {0};
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		vec_push(&names, xstrdup(de->d_name));
	}
	closedir(d);
	xqsort(names.v, names.n, sizeof(char *), str_ptr_cmp);
	for (size_t i = 0; i < names.n; i++) {
		char *p = path_join(dir, names.v[i]);
		struct stat ls;
		if (lstat(p, &ls) != 0) {
			/* a path longer than PATH_MAX (ENAMETOOLONG), a file gone meanwhile:
			 * said, not skipped without a word */
			char *dp = display_path(p);
			vec_push(warnings, xasprintf("%s: %s; not scanned", dp, strerror(errno)));
			free(dp);
			free(p);
			continue;
		}
		if (S_ISDIR(ls.st_mode)) {
			if (!skipped_dir(names.v[i], include_vendor))
				walk_dir(p, include_vendor, out, warnings, seen, depth + 1);
		} else if (S_ISLNK(ls.st_mode)) {
			/* follow links to files, not to directories (they may leave the tree) */
			struct stat ts;
			if (stat(p, &ts) == 0 && S_ISREG(ts.st_mode) && is_source_file(p))
				vec_push(out, xstrdup(p));
		} else if (S_ISREG(ls.st_mode) && is_source_file(p)) {
			vec_push(out, xstrdup(p));
		}
		free(p);
	}
	strlist_free(&names);
}

void discover_sources(const char *path, bool include_vendor, strlist *out, strlist *warnings)
{
	if (path_is_dir(path)) {
		size_t first = out->n;
		seen_vec seen = {0};
		walk_dir(path, include_vendor, out, warnings, &seen, 0);
		vec_free(&seen);
		/* one order for all (the walk sorts per directory: "sub/x.c" vs "sub.c") */
		if (out->n > first) /* out->v may still be NULL: no arithmetic on it */
			xqsort(out->v + first, out->n - first, sizeof(char *), str_ptr_cmp);
		return;
	}
	vec_push(out, xstrdup(path));
}
