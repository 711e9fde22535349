/* inputs.c: see inputs.h. */
#include "inputs.h"

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

#define VIRTUAL_DIR "/nogvl-lint-virtual"

const char *const buildless_defines[] = {
	"HAVE_RUBY_THREAD_H=1",
	"HAVE_RUBY_IO_H=1",
	"HAVE_RUBY_ENCODING_H=1",
	"HAVE_RB_THREAD_CALL_WITHOUT_GVL=1",
	"HAVE_RB_THREAD_CALL_WITHOUT_GVL2=1",
	"HAVE_RB_THREAD_CALL_WITH_GVL=1",
	"HAVE_RB_NOGVL=1",
	"HAVE_RUBY_NATIVE_THREAD_P=1",
	"HAVE_RB_STR_NEW_FROZEN=1",
	"HAVE_RB_STR_LOCKTMP=1",
	"HAVE_RB_THREAD_INTERRUPTED=1",
	"HAVE_RB_IO_DESCRIPTOR=1",
};
const unsigned buildless_ndefines = ARRAY_SIZE(buildless_defines);

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

static void add_dir(strlist *l, const char *d)
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
		bool any = false;
		for (size_t i = 0; i < rh->dirs.n; i++)
			any = any || has_ruby_h(rh->dirs.v[i]);
		if (!any) {
			*err = xasprintf("--ruby-include %s: no ruby.h or ruby/config.h there", explicit_dirs->v[0]);
			strlist_free(&rh->dirs);
			return -1;
		}
		rh->source = xstrdup("--ruby-include");
		rh->has_offload_flag = ruby_headers_have_offload(&rh->dirs);
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
		bool ok = false;
		for (size_t i = 0; i < rh->dirs.n; i++)
			ok = ok || has_ruby_h(rh->dirs.v[i]);
		if (ok) {
			rh->source = xstrdup("RbConfig (ruby)");
			rh->has_offload_flag = ruby_headers_have_offload(&rh->dirs);
			return 0;
		}
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
	bool ok = false;
	for (size_t i = 0; i < rh->dirs.n; i++)
		ok = ok || has_ruby_h(rh->dirs.v[i]);
	if (!ok) {
		strlist_free(&rh->dirs);
		*err = xstrdup("cannot find Ruby's headers (install ruby-dev, or pass --ruby-include DIR)");
		return -1;
	}
	rh->source = xstrdup("well-known directories");
	rh->has_offload_flag = ruby_headers_have_offload(&rh->dirs);
	return 0;
}

/* ---- discovery ---- */

bool is_source_file(const char *path)
{
	const char *e = path_ext(path);
	return strcmp(e, ".c") == 0 || strcmp(e, ".cc") == 0 || strcmp(e, ".cpp") == 0 || strcmp(e, ".cxx") == 0;
}

static bool skipped_dir(const char *name, bool include_vendor)
{
	if (strcmp(name, ".git") == 0 || strcmp(name, ".svn") == 0 || strcmp(name, ".hg") == 0)
		return true;
	if (include_vendor)
		return false;
	return strcmp(name, "tmp") == 0 || strcmp(name, "vendor") == 0 || strcmp(name, "pkg") == 0;
}

struct seen_dir {
	dev_t dev;
	ino_t ino;
};
typedef VEC(struct seen_dir) seen_vec;

static int str_ptr_cmp(const void *a, const void *b)
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

/* ---- jobs ---- */

void inputs_free(struct inputs *in)
{
	for (size_t i = 0; i < in->jobs.n; i++)
		tu_job_free(&in->jobs.v[i]);
	vec_free(&in->jobs);
	strlist_free(&in->roots);
	strlist_free(&in->write_roots);
	ruby_headers_free(&in->rh);
	strlist_free(&in->warnings);
	strlist_free(&in->notes);
	strlist_free(&in->gem_roots);
	strlist_free(&in->search_roots);
	strlist_free(&in->foreign);
	strlist_free(&in->report_only);
	free(in->virtual_dir);
	strlist_free(&in->extconf_headers);
}

static bool is_cxx(const char *file)
{
	const char *e = path_ext(file);
	return strcmp(e, ".cc") == 0 || strcmp(e, ".cpp") == 0 || strcmp(e, ".cxx") == 0 || strcmp(e, ".C") == 0;
}

static void add_common_args(const struct options *o, struct inputs *in, struct tu_job *j)
{
	for (size_t i = 0; i < in->rh.dirs.n; i++)
		vec_push(&j->args, xasprintf("-I%s", in->rh.dirs.v[i]));
	if (o->ruby34_view && !in->rh.has_offload_flag)
		vec_push(&j->args, xstrdup("-DRB_NOGVL_OFFLOAD_SAFE=(0x4)"));
	/* .nogvl-lint.yml include_dirs and defines, before the command line's so those win */
	if (o->configs)
		config_extra_args(config_for_path(o->configs, j->file, false), &j->args);
	for (size_t i = 0; i < o->extra_args.n; i++)
		vec_push(&j->args, xstrdup(o->extra_args.v[i]));
	vec_push(&j->args, xasprintf("-idirafter%s", in->virtual_dir));
}

static int job_cmp(const void *a, const void *b)
{
	const struct tu_job *x = a, *y = b;
	return strcmp(x->file, y->file);
}

/* The file a line's `#include "x.c"` names (a C or C++ source), or NULL. */
static char *included_source(const char *line, size_t n)
{
	const char *p = line, *end = line + n;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p != '#')
		return NULL;
	p++;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(end - p) < 7 || strncmp(p, "include", 7) != 0)
		return NULL;
	p += 7;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p != '"')
		return NULL;
	const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
	if (!q || q == p + 1)
		return NULL;
	char *name = xstrndup(p + 1, (size_t)(q - p - 1));
	if (!is_source_file(name)) {
		free(name);
		return NULL;
	}
	return name;
}

/* Sources found in a directory that another source #includes (nio4r's
 * nio4r_ext.c includes ../libev/ev.c, which includes ev_epoll.c ...) are
 * parts of that file, not files a build compiles: they are dropped, unless
 * they sit next to an extconf.rb (mkmf compiles every source there). Files
 * named on the command line are always kept. */
static void drop_included_sources(strlist *files, const unsigned char *from_dir, strlist *notes)
{
	size_t n = files->n;
	if (n < 2)
		return;
	char **abs = xcalloc(n, sizeof(char *));
	size_t *includer = xcalloc(n, sizeof(size_t));
	struct hmap index = {0};
	for (size_t i = 0; i < n; i++) {
		abs[i] = path_absolute(files->v[i]);
		includer[i] = SIZE_MAX;
		hmap_put(&index, abs[i], (void *)(uintptr_t)(i + 1));
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = 0;
		char *text = read_file(files->v[i], &len, MAX_SOURCE_BYTES);
		if (!text)
			continue;
		char *dir = path_dirname(abs[i]);
		for (const char *l = text; l < text + len;) {
			const char *nl = memchr(l, '\n', (size_t)(text + len - l));
			size_t ll = nl ? (size_t)(nl - l) : (size_t)(text + len - l);
			char *name = included_source(l, ll);
			if (name) {
				char *cand = path_join(dir, name);
				char *norm = path_absolute(cand);
				uintptr_t j = (uintptr_t)hmap_get(&index, norm);
				if (j && j - 1 != i && includer[j - 1] == SIZE_MAX)
					includer[j - 1] = i;
				free(norm);
				free(cand);
				free(name);
			}
			l += ll + 1;
		}
		free(dir);
		free(text);
	}
	/* next to an extconf.rb, mkmf compiles it anyway */
	unsigned char *drop = xcalloc(n, 1);
	size_t ndrop = 0;
	for (size_t i = 0; i < n; i++) {
		if (includer[i] == SIZE_MAX || !from_dir[i])
			continue;
		char *dir = path_dirname(abs[i]);
		char *ec = path_join(dir, "extconf.rb");
		drop[i] = !path_is_file(ec);
		ndrop += drop[i];
		free(ec);
		free(dir);
	}
	if (ndrop == n) /* a cycle of includes: keep them all */
		ndrop = 0;
	for (size_t i = 0; i < n && ndrop; i++) /* (before any is freed: an includer may be dropped too) */
		if (drop[i])
			vec_push(notes,
				 xasprintf("%s: #included by %s, analysed as part of it (not compiled on its own)",
					   files->v[i], files->v[includer[i]]));
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (drop[i] && ndrop) {
			free(files->v[i]);
		} else {
			files->v[kept++] = files->v[i];
		}
	}
	free(drop);
	files->n = kept;
	for (size_t i = 0; i < n; i++)
		free(abs[i]);
	free(abs);
	free(includer);
	hmap_free(&index);
}

/* A named root directory that is (or passes through) a symlink leading out of the
 * current directory: `ext -> ../victim` or `ext -> /` committed in the
 * analysed tree. Refused (a message in *err) unless --allow-outside-root; a
 * path named outside the current directory is taken as meant. */
static int check_named_root(const struct options *o, const char *p, char **err)
{
	/* a named file behind a symlink is analysed; --fix writes only below the
	 * directory it was named in (write_roots) */
	if (o->allow_outside_root || !path_is_dir(p))
		return 0;
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		return 0;
	char *lex = p[0] == '/' ? path_normalize(p) : path_join(cwd, p);
	char *lexn = path_normalize(lex);
	free(lex);
	char *real = realpath(p, NULL);
	char *rcwd = realpath(cwd, NULL);
	int rc = 0;
	if (real && rcwd && path_is_below(lexn, cwd) && !path_is_below(real, rcwd)) {
		*err = xasprintf("%s leads to %s, outside the current directory (a symlink in the analysed tree?); "
				 "--allow-outside-root accepts it",
				 p, real);
		rc = 2;
	}
	free(lexn);
	free(real);
	free(rcwd);
	return rc;
}

/* ---- the include path mkmf would give an extension (issue 14) ---- */

#define PKG_CONFIG_TIMEOUT_MS 5000u

static char pkg_miss;

static char *system_pkg_config(struct inputs *in);

/* The gem an extconf.rb belongs to: the nearest directory at or above it
 * holding a gemspec, Gemfile, Rakefile or .git (at most 6 levels up), else
 * the widest project root holding it, else its own directory. The string
 * lives in in->gem_roots. */
static const char *gem_root_of(struct inputs *in, const char *srcdir)
{
	static const char *const marks[] = {"Gemfile", "Rakefile", ".git", "gems.rb"};
	char *cur = xstrdup(srcdir);
	for (unsigned up = 0; up <= 6; up++) {
		bool hit = false;
		for (size_t i = 0; i < ARRAY_SIZE(marks) && !hit; i++) {
			char *p = path_join(cur, marks[i]);
			hit = access(p, F_OK) == 0;
			free(p);
		}
		if (!hit) {
			char *pat = path_join(cur, "*.gemspec");
			glob_t g;
			if (glob(pat, 0, NULL, &g) == 0) {
				hit = g.gl_pathc > 0;
				globfree(&g);
			}
			free(pat);
		}
		if (hit && strcmp(cur, "/") != 0) {
			vec_push(&in->gem_roots, cur);
			return cur;
		}
		if (strcmp(cur, "/") == 0)
			break;
		char *upd = path_dirname(cur);
		free(cur);
		cur = upd;
	}
	free(cur);
	const char *best = NULL;
	for (size_t i = 0; i < in->roots.n; i++)
		if (path_is_below(srcdir, in->roots.v[i]) && (!best || strlen(in->roots.v[i]) < strlen(best)))
			best = in->roots.v[i];
	vec_push(&in->gem_roots, xstrdup(best ? best : srcdir));
	return in->gem_roots.v[in->gem_roots.n - 1];
}

/* The system's header and library trees an extension may legitimately name
 * (pkg-config's /usr/lib/x86_64-linux-gnu/glib-2.0/include ...). */
static const char *const system_inc_trees[] = {"/usr/include", "/usr/local/include", "/usr/lib", "/usr/local/lib",
					       "/opt"};

/* NULL when d may be searched, else why not (a constant). A directory
 * extconf.rb names must be in the gem or the system's include trees; one
 * pkg-config gives (from_system: the user's own configuration, through
 * PKG_CONFIG_PATH) may be anywhere but /. */
static const char *include_dir_refusal(const char *d, const char *gem_root, bool from_system, bool *silent)
{
	*silent = false;
	if (strcmp(d, "/") == 0)
		return "the root directory";
	if (strcmp(d, "/usr/include") == 0 || strcmp(d, "/usr/local/include") == 0) {
		*silent = true; /* the compiler searches it anyway (and -I would reorder it) */
		return "searched by the compiler anyway";
	}
	if (!path_is_dir(d)) {
		*silent = true;
		return "no such directory";
	}
	if (from_system || path_is_below(d, gem_root))
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(system_inc_trees); i++)
		if (path_is_below(d, system_inc_trees[i]) && strcmp(d, system_inc_trees[i]) != 0)
			return NULL;
	return "outside the gem and the system's include trees";
}

/* Appends one accepted -I (or -iquote) argument, or says why not. */
static void add_ext_dir(struct inputs *in, const struct extconf_info *ei, const char *gem_root, const char *d,
			const char *why, const char *opt, strlist *out)
{
	char *disp = display_path(ei->path);
	bool silent = false;
	const char *no = include_dir_refusal(d, gem_root, str_starts(why, "pkg-config "), &silent);
	if (no && !silent)
		vec_push(&in->warnings,
			 xasprintf("%s: include directory %s (from %s) is %s: ignored", disp, d, why, no));
	else if (no)
		vec_push(&in->notes, xasprintf("%s: include directory %s (from %s): %s; not added", disp, d, why, no));
	else {
		char *a = xasprintf("%s%s", opt, d);
		bool dup = false;
		for (size_t i = 0; i < out->n && !dup; i++)
			dup = strcmp(out->v[i], a) == 0;
		if (dup) {
			free(a);
		} else {
			vec_push(out, a);
			vec_push(&in->notes, xasprintf("%s: %s%s added (%s)", disp, opt, d, why));
		}
	}
	free(disp);
}

/* pkg-config's -I directories for module, asked once per run. NULL when
 * pkg-config has no answer (said once with -v when say). */
static const strlist *pkg_dirs(struct inputs *in, struct hmap *cache, const char *module, bool say)
{
	void *hit = hmap_get(cache, module);
	if (hit)
		return hit == &pkg_miss ? NULL : hit;
	strlist *dirs = xcalloc(1, sizeof(*dirs));
	char *why = NULL;
	/* the system's pkg-config, never one from the analysed trees */
	char *prog = system_pkg_config(in);
	int r = -1;
	if (prog)
		r = pkgconfig_include_dirs(prog, module, PKG_CONFIG_TIMEOUT_MS, dirs, &why);
	else
		why = xstrdup("no pkg-config on PATH (outside the analysed trees)");
	free(prog);
	if (r != 0) {
		if (say)
			vec_push(&in->notes, xasprintf("pkg-config %s: %s; skipped", module, why));
		free(why);
		strlist_free(dirs);
		free(dirs);
		hmap_put(cache, xstrdup(module), &pkg_miss);
		return NULL;
	}
	if (why)
		vec_push(&in->notes, xasprintf("pkg-config %s: %s", module, why));
	free(why);
	hmap_put(cache, xstrdup(module), dirs);
	return dirs;
}

/* The system's pkg-config (never one from the analysed trees), or NULL. */
static char *system_pkg_config(struct inputs *in)
{
	strlist untrusted = {0};
	for (size_t i = 0; i < in->roots.n; i++)
		vec_push(&untrusted, xstrdup(in->roots.v[i]));
	for (size_t i = 0; i < in->gem_roots.n; i++)
		vec_push(&untrusted, xstrdup(in->gem_roots.v[i]));
	char *prog = find_system_program("pkg-config", untrusted.v, untrusted.n);
	strlist_free(&untrusted);
	return prog;
}

/* `pkg-config OPT module` for a module pkg_dirs already found (so its name
 * passed pkgconfig_include_dirs' check), asked once per run; NULL when it
 * gave no answer. */
static const char *pkg_query(struct inputs *in, struct hmap *cache, const char *opt, const char *module)
{
	char *key = xasprintf("%s %s", opt, module);
	void *hit = hmap_get(cache, key);
	if (hit) {
		free(key);
		return hit == &pkg_miss ? NULL : hit;
	}
	char *prog = system_pkg_config(in);
	char *out = NULL;
	if (prog) {
		char *argv[] = {prog, (char *)opt, (char *)module, NULL};
		struct run_spec spec = {argv, NULL, PKG_CONFIG_TIMEOUT_MS, 64 * 1024, false};
		struct run_result rr;
		run_process(&spec, &rr);
		if (rr.outcome == RUN_OK) {
			out = rr.out;
			rr.out = NULL;
		}
		run_result_free(&rr);
	}
	free(prog);
	if (out) {
		size_t n = strlen(out);
		while (n && isspace((unsigned char)out[n - 1]))
			out[--n] = '\0';
	}
	hmap_put(cache, key, out ? (void *)out : (void *)&pkg_miss);
	return out;
}

struct pkg_ctx {
	struct inputs *in;
	struct hmap *dirs;    /* module -> strlist * (pkg_dirs) */
	struct hmap *answers; /* "opt module" -> char * (pkg_query) */
};

/* extconf_env's pkg: whether module exists here, its version and -I dirs */
static bool extconf_pkg(void *ctx, const char *extconf_dir, const char *module, char **version, strlist *incdirs)
{
	struct pkg_ctx *c = ctx;
	gem_root_of(c->in, extconf_dir); /* its gem's programs are never run */
	/* a module extconf.rb names (not a candidate tried): a miss is said with -v */
	const strlist *d = pkg_dirs(c->in, c->dirs, module, version == NULL);
	if (!d)
		return false;
	for (size_t i = 0; incdirs && i < d->n; i++) {
		bool dup = false;
		for (size_t k = 0; k < incdirs->n && !dup; k++)
			dup = strcmp(incdirs->v[k], d->v[i]) == 0;
		if (!dup)
			vec_push(incdirs, xstrdup(d->v[i]));
	}
	if (version) {
		const char *v = pkg_query(c->in, c->answers, "--modversion", module);
		bool ok = v && *v && isdigit((unsigned char)*v) && strlen(v) < 64;
		for (const char *p = v; ok && *p; p++)
			ok = isalnum((unsigned char)*p) || strchr(".-_+~", *p);
		*version = ok ? xstrdup(v) : NULL;
	}
	return true;
}

/* The -D words of pkg-config's --cflags-only-other for module (mkmf's
 * pkg_config puts them in $CFLAGS). */
static void pkg_defines(struct pkg_ctx *c, const char *module, const char *why, strlist *out)
{
	const char *o = pkg_query(c->in, c->answers, "--cflags-only-other", module);
	strlist words = {0};
	if (!o || shell_split(o, &words) != 0) {
		strlist_free(&words);
		return;
	}
	for (size_t i = 0; i < words.n; i++) {
		const char *w = words.v[i];
		bool ok = str_starts(w, "-D") && (isalpha((unsigned char)w[2]) || w[2] == '_') && strlen(w) < 256;
		for (const char *p = w + 2; ok && *p && *p != '='; p++)
			ok = isalnum((unsigned char)*p) || *p == '_';
		if (!ok)
			continue;
		vec_push(out, xstrdup(w));
		vec_push(&c->in->notes, xasprintf("%s added (%s)", w, why));
	}
	strlist_free(&words);
}

/* The include arguments extconf.rb adds, in mkmf's order, checked like
 * compile-database roots; then the $VPATH / $srcs directories as -iquote
 * (they hold sources mkmf compiles there, not headers for <...>). */
static void extconf_include_args(struct inputs *in, const struct extconf_info *ei, const char *srcdir,
				 struct pkg_ctx *pc, strlist *out)
{
	struct hmap *pkg_cache = pc->dirs;
	const char *gem_root = gem_root_of(in, srcdir);
	add_dir(&in->search_roots, gem_root); /* where missing headers are searched for */
	char *disp = display_path(ei->path);
	/* what the reader assumed or decided, for -v */
	for (size_t i = 0; i < ei->notes.n; i++)
		vec_push(&in->notes, xasprintf("%s: %s", disp, ei->notes.v[i]));
	vec_push(&in->notes, xasprintf("%s: -I%s for its sources (mkmf's -I. and -I$(srcdir)), then the Ruby headers",
				       disp, srcdir));
	free(disp);
	for (size_t i = 0; i < ei->include_dirs.n; i++)
		add_ext_dir(in, ei, gem_root, ei->include_dirs.v[i], ei->include_why.v[i], "-I", out);
	for (size_t i = 0; i < ei->pkg_modules.n; i++) {
		const strlist *d = pkg_dirs(in, pkg_cache, ei->pkg_modules.v[i], true);
		char *why =
			xasprintf("pkg-config %s, for pkg_config(\"%s\")", ei->pkg_modules.v[i], ei->pkg_modules.v[i]);
		for (size_t k = 0; d && k < d->n; k++)
			add_ext_dir(in, ei, gem_root, d->v[k], why, "-I", out);
		if (d)
			pkg_defines(pc, ei->pkg_modules.v[i], why, out);
		free(why);
	}
	for (size_t i = 0; i < ei->lib_names.n; i++) {
		const char *lib = ei->lib_names.v[i];
		bool word = *lib != '\0';
		for (const char *c = lib; *c && word; c++)
			word = isalnum((unsigned char)*c) || strchr("._+-", *c);
		if (!word)
			continue; /* a path or a linker spelling (":libpq.lib"), not a module name */
		char *libx = xasprintf("lib%s", lib);
		const char *mod = lib;
		const strlist *d = pkg_dirs(in, pkg_cache, lib, false);
		if (!d && !str_starts(lib, "lib")) {
			d = pkg_dirs(in, pkg_cache, libx, false);
			mod = libx;
		}
		if (!d) {
			vec_push(&in->notes,
				 xasprintf("have_library(\"%s\"): no pkg-config module %s; skipped", lib, lib));
		} else {
			char *why = xasprintf("pkg-config %s, for have_library(\"%s\")", mod, lib);
			for (size_t k = 0; k < d->n; k++)
				add_ext_dir(in, ei, gem_root, d->v[k], why, "-I", out);
			free(why);
		}
		free(libx);
	}
	for (size_t i = 0; i < ei->quote_dirs.n; i++)
		add_ext_dir(in, ei, gem_root, ei->quote_dirs.v[i], "$VPATH/$srcs", "-iquote", out);
}

/* ---- sources in languages libclang does not read (issue 14, item 5) ---- */

static const char *foreign_language(const char *path)
{
	const char *e = path_ext(path);
	if (strcmp(e, ".rs") == 0)
		return "Rust";
	if (strcmp(e, ".go") == 0)
		return "Go";
	if (strcmp(e, ".zig") == 0)
		return "Zig";
	return NULL;
}

static void walk_foreign(const char *dir, bool include_vendor, strlist *out, seen_vec *seen, unsigned depth)
{
	struct stat st;
	if (depth > 32 || out->n > 100000 || stat(dir, &st) != 0)
		return;
	for (size_t i = 0; i < seen->n; i++)
		if (seen->v[i].dev == st.st_dev && seen->v[i].ino == st.st_ino)
			return;
	struct seen_dir sd = {st.st_dev, st.st_ino};
	vec_push(seen, sd);
	DIR *d = opendir(dir);
	if (!d)
		return;
	strlist names = {0};
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			vec_push(&names, xstrdup(de->d_name));
	closedir(d);
	xqsort(names.v, names.n, sizeof(char *), str_ptr_cmp);
	for (size_t i = 0; i < names.n; i++) {
		char *p = path_join(dir, names.v[i]);
		struct stat ls;
		if (lstat(p, &ls) == 0) {
			if (S_ISDIR(ls.st_mode)) {
				/* target/: cargo's build output */
				if (!skipped_dir(names.v[i], include_vendor) && strcmp(names.v[i], "target") != 0)
					walk_foreign(p, include_vendor, out, seen, depth + 1);
			} else if (S_ISREG(ls.st_mode) && foreign_language(p)) {
				vec_push(out, p);
				p = NULL;
			}
		}
		free(p);
	}
	strlist_free(&names);
}

/* Does dir (or a parent within the roots) hold a Cargo.toml? */
static bool in_cargo_crate(const char *dir, char *const *roots, size_t nroots)
{
	char *d = extconf_walk_up(dir, "Cargo.toml", roots, nroots);
	free(d);
	return d != NULL;
}

/* Sources of an extension (an extconf.rb or a Cargo.toml above them) in a
 * language libclang does not read: listed as not analysed. */
static void find_foreign(const struct options *o, struct inputs *in, struct extconf_cache *ec, strlist *named)
{
	strlist found = {0};
	for (size_t i = 0; i < o->paths.n; i++)
		if (path_is_dir(o->paths.v[i])) {
			seen_vec seen = {0};
			walk_foreign(o->paths.v[i], o->include_vendor, &found, &seen, 0);
			vec_free(&seen);
		}
	for (size_t i = 0; i < found.n; i++) {
		char *abs = path_absolute(found.v[i]);
		char *dir = path_dirname(abs);
		bool ext = extconf_for(ec, dir, in->roots.v, in->roots.n) != NULL ||
			   in_cargo_crate(dir, in->roots.v, in->roots.n);
		free(dir);
		if (ext)
			add_dir(&in->foreign, abs);
		free(abs);
	}
	for (size_t i = 0; i < named->n; i++)
		add_dir(&in->foreign, named->v[i]);
	strlist_free(&found);
}

const char *inputs_foreign_language(const char *path)
{
	return foreign_language(path);
}

static bool is_header_name(const char *p)
{
	const char *e = path_ext(p);
	return strcmp(e, ".h") == 0 || strcmp(e, ".hh") == 0 || strcmp(e, ".hpp") == 0;
}

/* The directory of the extconf.rb a named file belongs to (the nearest at
 * or above its directory, at most 8 levels up, not above a .git work
 * tree's root), or NULL. */
static char *extension_dir_of(const char *file)
{
	char *abs = path_absolute(file);
	char *cur = path_dirname(abs);
	free(abs);
	for (unsigned up = 0; up <= 8; up++) {
		char *p = path_join(cur, "extconf.rb");
		bool hit = path_is_file(p);
		free(p);
		if (hit)
			return cur;
		p = path_join(cur, ".git");
		bool top = access(p, F_OK) == 0 || strcmp(cur, "/") == 0;
		free(p);
		if (top)
			break;
		char *u = path_dirname(cur);
		free(cur);
		cur = u;
	}
	free(cur);
	return NULL;
}

static bool named_on_command_line(const struct options *o, const char *abs)
{
	for (size_t i = 0; i < o->paths.n; i++) {
		char *a = path_absolute(o->paths.v[i]);
		bool same = strcmp(a, abs) == 0;
		free(a);
		if (same)
			return true;
	}
	return false;
}

static int build_buildless(const struct options *o, struct inputs *in, char **err)
{
	for (size_t i = 0; i < o->paths.n; i++)
		if (check_named_root(o, o->paths.v[i], err) != 0)
			return 2;
	strlist files = {0}, named_foreign = {0}, context_dirs = {0};
	VEC(unsigned char) from_dir = {0}; /* per file: found in a directory */
	for (size_t i = 0; i < o->paths.n; i++) {
		const char *p = o->paths.v[i];
		struct stat st;
		if (stat(p, &st) != 0) {
			*err = xasprintf("%s: %s", p, strerror(errno));
			strlist_free(&files);
			strlist_free(&named_foreign);
			strlist_free(&context_dirs);
			vec_free(&from_dir);
			return 2;
		}
		char *abs = path_absolute(p);
		if (S_ISDIR(st.st_mode)) {
			add_dir(&in->roots, abs);
			add_dir(&in->write_roots, abs);
		} else {
			char *d = path_dirname(abs);
			add_dir(&in->roots, d);
			free(d);
			/* where the file was named: a symlink's target may be elsewhere */
			char *named = path_dirname(p);
			add_dir(&in->write_roots, *named ? named : ".");
			free(named);
		}
		free(abs);
		if (S_ISDIR(st.st_mode)) {
			size_t first = files.n;
			discover_sources(p, o->include_vendor, &files, &in->warnings);
			for (size_t k = first; k < files.n; k++)
				vec_push(&from_dir, 1);
		} else if (is_source_file(p) || (is_header_name(p) && extension_dir_of(p))) {
			/* a file of an extension: the report is about it, the analysis
			 * takes the whole extension (callbacks cross files) */
			char *ext = extension_dir_of(p);
			vec_push(&in->report_only, path_absolute(p));
			if (ext) {
				add_dir(&in->roots, ext);
				add_dir(&context_dirs, ext);
				free(ext);
			}
			if (is_source_file(p)) {
				vec_push(&from_dir, 0);
				vec_push(&files, xstrdup(p));
			}
		} else if (foreign_language(p)) {
			vec_push(&named_foreign, path_absolute(p));
		} else {
			const char *e = path_ext(p);
			bool header = strcmp(e, ".h") == 0 || strcmp(e, ".hh") == 0 || strcmp(e, ".hpp") == 0;
			vec_push(&in->warnings,
				 xasprintf("%s: %s; skipped", p,
					   header ? "a header is analysed through the files that include it"
						  : "not a C or C++ source file (.c, .cc, .cpp, .cxx)"));
		}
	}
	/* the rest of each named file's extension, for context; when a
	 * directory was named too, everything is in the report */
	bool named_dir = false;
	for (size_t i = 0; i < o->paths.n; i++)
		named_dir = named_dir || path_is_dir(o->paths.v[i]);
	if (named_dir)
		strlist_free(&in->report_only);
	for (size_t i = 0; i < context_dirs.n; i++) {
		strlist more = {0};
		discover_sources(context_dirs.v[i], o->include_vendor, &more, &in->warnings);
		for (size_t k = 0; k < more.n; k++) {
			char *abs = path_absolute(more.v[k]);
			bool have = false;
			for (size_t m = 0; m < files.n && !have; m++) {
				char *fa = path_absolute(files.v[m]);
				have = strcmp(fa, abs) == 0;
				free(fa);
			}
			free(abs);
			if (have) {
				free(more.v[k]);
			} else {
				vec_push(&files, more.v[k]);
				vec_push(&from_dir, 1);
			}
		}
		vec_free(&more);
	}
	strlist_free(&context_dirs);
	drop_included_sources(&files, from_dir.v, &in->notes);
	vec_free(&from_dir);
	struct hmap pkg_cache = {0};   /* pkg-config module -> strlist * of dirs (or the miss marker) */
	struct hmap pkg_answers = {0}; /* "--option module" -> its output (or the miss marker) */
	struct pkg_ctx pc = {in, &pkg_cache, &pkg_answers};
	struct extconf_cache ec = {0};
	ec.ruby_dirs = &in->rh.dirs;
	ec.pkg = extconf_pkg;
	ec.pkg_ctx = &pc;
	struct hmap ext_args = {0}; /* extconf.rb path -> strlist * of its include arguments */
	for (size_t i = 0; i < files.n; i++) {
		struct tu_job j = {0};
		j.file = path_absolute(files.v[i]);
		j.display = display_path(j.file);
		j.directory = path_dirname(j.file);
		j.buildless = true;
		j.cxx = is_cxx(j.file);
		if (j.cxx)
			vec_push(&j.args, xstrdup("-xc++"));
		/* defines from the nearest extconf.rb (read, never run) */
		const struct extconf_info *ei = extconf_for(&ec, j.directory, in->roots.v, in->roots.n);
		if (extconf_objs_exclude(ei, j.file) && !named_on_command_line(o, j.file)) {
			/* mkmf builds only $objs (issue 17, item 7) */
			char *ed = display_path(ei->path);
			vec_push(&in->notes, xasprintf("%s: not in $objs of %s (mkmf does not compile it); skipped",
						       j.display, ed));
			free(ed);
			tu_job_free(&j);
			continue;
		}
		if (extconf_srcs_exclude(ei, j.file) && !named_on_command_line(o, j.file)) {
			/* $srcs set, and this file not added on this machine */
			char *ed = display_path(ei->path);
			vec_push(&in->notes,
				 ei->not_built
					 ? xasprintf("%s: %s builds nothing on this machine (its create_makefile is "
						     "under a condition that fails here); skipped",
						     j.display, ed)
					 : xasprintf("%s: not in $srcs of %s as read for this machine (not compiled "
						     "in this configuration); skipped",
						     j.display, ed));
			free(ed);
			tu_job_free(&j);
			continue;
		}
		if (ei) {
			/* mkmf: -I. (the build directory; in place, the extconf.rb's),
			 * the Ruby directories, -I$(srcdir), then what extconf.rb adds */
			char *srcdir = path_dirname(ei->path);
			vec_push(&j.args, xasprintf("-I%s", srcdir));
			for (size_t k = 0; k < in->rh.dirs.n; k++)
				vec_push(&j.args, xasprintf("-I%s", in->rh.dirs.v[k]));
			strlist *ea = hmap_get(&ext_args, ei->path);
			if (!ea) {
				ea = xcalloc(1, sizeof(*ea));
				extconf_include_args(in, ei, srcdir, &pc, ea);
				hmap_put(&ext_args, ei->path, ea);
			}
			for (size_t k = 0; k < ea->n; k++)
				vec_push(&j.args, xstrdup(ea->v[k]));
			free(srcdir);
			for (size_t k = 0; k < ei->defines.n; k++)
				vec_push(&j.args, xasprintf("-D%s", ei->defines.v[k]));
			for (size_t k = 0; k < ei->headers.n; k++) {
				bool dup = false;
				for (size_t h = 0; h < in->extconf_headers.n && !dup; h++)
					dup = strcmp(in->extconf_headers.v[h], ei->headers.v[k]) == 0;
				if (!dup)
					vec_push(&in->extconf_headers, xstrdup(ei->headers.v[k]));
			}
			const char *probe = extconf_build_probe(ei, j.file);
			if (probe)
				j.build_probe = xstrdup(probe);
		} else {
			/* not part of an extension: its own directory */
			vec_push(&j.args, xasprintf("-I%s", j.directory));
		}
		for (size_t k = 0; k < buildless_ndefines; k++)
			vec_push(&j.args, xasprintf("-D%s", buildless_defines[k]));
		vec_push(&j.args, xstrdup("-DRUBY_EXTCONF_H=\"extconf.h\""));
		add_common_args(o, in, &j);
		vec_push(&in->jobs, j);
	}
	hmap_foreach(&ext_args, e)
	{
		strlist_free(e->val);
		free(e->val);
	}
	hmap_free(&ext_args);
	for (size_t i = 0; i < in->roots.n; i++)
		add_dir(&in->search_roots, in->roots.v[i]);
	find_foreign(o, in, &ec, &named_foreign);
	strlist_free(&named_foreign);
	extconf_cache_free(&ec);
	hmap_foreach(&pkg_cache, e)
	{
		if (e->val != &pkg_miss) {
			strlist_free(e->val);
			free(e->val);
		}
		free((char *)e->key);
	}
	hmap_free(&pkg_cache);
	hmap_foreach(&pkg_answers, e)
	{
		if (e->val != &pkg_miss)
			free(e->val);
		free((char *)e->key);
	}
	hmap_free(&pkg_answers);
	strlist_free(&files);
	return 0;
}

/* Directories that never make the project's root, whatever a compile
 * database says: the system's header and library trees (and everything
 * above them, such as / or /usr). */
static const char *const system_trees[] = {
	"/usr/include", "/usr/lib", "/usr/local/include", "/usr/local/lib", "/opt/homebrew", "/Library", "/System",
};

/* Would dir as a project root make the system's or Ruby's headers the
 * project's (so that their findings are reported and --fix may write there)? */
static bool too_wide_for_root(const struct inputs *in, const char *dir)
{
	if (strcmp(dir, "/") == 0)
		return true;
	for (size_t i = 0; i < ARRAY_SIZE(system_trees); i++)
		if (path_is_below(system_trees[i], dir) || path_is_below(dir, system_trees[i]))
			return true;
	for (size_t i = 0; i < in->rh.dirs.n; i++)
		if (path_is_below(in->rh.dirs.v[i], dir))
			return true;
	return false;
}

/* add_dir for a compile database's directory or a file's directory; one
 * that escapes into the system's or Ruby's trees is left out, once, with a
 * warning. */
static void add_compdb_root(const struct options *o, struct inputs *in, struct hmap *refused, const char *dir,
			    const char *file)
{
	char *abs = path_absolute(dir);
	if (!too_wide_for_root(in, abs)) {
		add_dir(&in->roots, abs);
	} else if (!hmap_has(refused, abs)) {
		char *d = display_path(file);
		vec_push(&in->warnings, xasprintf("%s: the entry for %s has directory %s, which holds system or Ruby "
						  "headers: it is not taken as part of the project",
						  o->compile_commands, d, abs));
		free(d);
		hmap_put(refused, xstrdup(abs), (void *)1);
	}
	free(abs);
}

static int build_compdb(const struct options *o, struct inputs *in, char **err)
{
	struct compdb db = {0};
	char *lerr = NULL;
	if (compdb_load(o->compile_commands, &db, &lerr) != 0) {
		*err = lerr;
		compdb_free(&db);
		return 2;
	}
	for (size_t i = 0; i < db.warnings.n; i++)
		vec_push(&in->warnings, xasprintf("%s: %s", o->compile_commands, db.warnings.v[i]));
	/* optional positional filters: only these files */
	strlist only = {0};
	for (size_t i = 0; i < o->paths.n; i++) {
		if (check_named_root(o, o->paths.v[i], err) != 0) {
			strlist_free(&only);
			compdb_free(&db);
			return 2;
		}
		if (access(o->paths.v[i], F_OK) != 0) {
			*err = xasprintf("%s: %s", o->paths.v[i], strerror(errno));
			strlist_free(&only);
			compdb_free(&db);
			return 2;
		}
		vec_push(&only, path_absolute(o->paths.v[i]));
	}
	char *dbabs = path_absolute(o->compile_commands);
	char *dbdir = path_dirname(dbabs);
	free(dbabs);
	struct hmap seen = {0}, refused = {0};
	size_t nmissing = 0;
	char *first_missing = NULL;
	for (size_t i = 0; i < db.entries.n; i++) {
		struct compdb_entry *e = &db.entries.v[i];
		if (!is_source_file(e->file)) {
			/* assembler (.S), Objective-C, ...: not analysed; -v says so */
			char *d = display_path(e->file);
			vec_push(&in->notes, xasprintf("%s: not a C or C++ source (%s); skipped", d,
						       *path_ext(e->file) ? path_ext(e->file) : "no extension"));
			free(d);
			continue;
		}
		/* named paths narrow the report, not the analysis: callbacks cross
		 * files, so every entry is analysed (issue 14) */
		if (hmap_has(&seen, e->file)) {
			/* the same file compiled twice: analyse it once, with the first entry */
			char *d = display_path(e->file);
			vec_push(&in->notes, xasprintf("%s: more than one entry; the first is used", d));
			free(d);
			continue;
		}
		hmap_put(&seen, e->file, (void *)1);
		struct tu_job j = {0};
		j.file = xstrdup(e->file);
		j.display = display_path(e->file);
		j.directory = xstrdup(e->directory);
		j.cxx = is_cxx(e->file);
		char *ferr = NULL;
		if (filter_flags(e->argv.v, e->argv.n, e->file, e->directory, &j.args, &j.dropped, &ferr) != 0) {
			*err = xasprintf("%s: %s (entry for %s)", o->compile_commands, ferr, e->file);
			free(ferr);
			tu_job_free(&j);
			hmap_free(&seen);
			hmap_foreach(&refused, r) free((char *)r->key);
			hmap_free(&refused);
			free(first_missing);
			strlist_free(&only);
			free(dbdir);
			compdb_free(&db);
			return 2;
		}
		if (access(e->file, F_OK) != 0) {
			/* a stale database (files moved or deleted): one warning for all
			 * (after the flags: a refused flag is refused all the same) */
			char *d = display_path(e->file);
			vec_push(&in->notes,
				 xasprintf("%s: named in the compile database, but it does not exist; skipped", d));
			if (!nmissing)
				first_missing = d;
			else
				free(d);
			nmissing++;
			tu_job_free(&j);
			continue;
		}
		/* relative paths are made absolute by filter_flags (not with clang's
		 * -working-directory: in libclang it changes the process's current
		 * directory, under the other parser threads) */
		char *fd = path_dirname(e->file);
		add_compdb_root(o, in, &refused, fd, e->file);
		free(fd);
		add_compdb_root(o, in, &refused, e->directory, e->file);
		vec_push(&in->jobs, j);
	}
	hmap_free(&seen);
	hmap_foreach(&refused, r) free((char *)r->key);
	hmap_free(&refused);
	if (nmissing && !in->jobs.n) {
		*err = xasprintf("%s: every entry names a file that does not exist (%zu, such as %s): a database from "
				 "another checkout or an old build?",
				 o->compile_commands, nmissing, first_missing);
		free(first_missing);
		strlist_free(&only);
		free(dbdir);
		compdb_free(&db);
		return 2;
	}
	if (nmissing)
		vec_push(&in->warnings,
			 xasprintf("%s: %zu entr%s for files that do not exist (such as %s) skipped; -v "
				   "lists them",
				   o->compile_commands, nmissing, nmissing == 1 ? "y" : "ies", first_missing));
	free(first_missing);
	for (size_t k = 0; k < only.n; k++)
		add_dir(&in->report_only, only.v[k]);
	for (size_t k = 0; k < only.n; k++) {
		bool any = false;
		for (size_t i = 0; i < in->jobs.n && !any; i++)
			any = path_is_below(in->jobs.v[i].file, only.v[k]);
		if (!any)
			vec_push(&in->warnings, xasprintf("%s: no entry in the compile database", o->paths.v[k]));
	}
	/* --fix writes below the named paths, else below the database's tree
	 * (its git work tree, else the current directory when the database is
	 * in it, else its directory); never where an entry's "directory" or
	 * "file" alone points (an entry for ../../other/x.c) */
	if (o->paths.n) {
		for (size_t k = 0; k < o->paths.n; k++) {
			if (path_is_dir(o->paths.v[k])) {
				add_dir(&in->write_roots, o->paths.v[k]);
			} else {
				char *named = path_dirname(o->paths.v[k]);
				add_dir(&in->write_roots, *named ? named : ".");
				free(named);
			}
		}
	} else {
		char *tree = NULL;
		for (char *d = xstrdup(dbdir); !tree;) {
			char *g = path_join(d, ".git");
			bool git = path_is_dir(g) || path_is_file(g);
			free(g);
			if (git) {
				tree = d;
				break;
			}
			if (strcmp(d, "/") == 0) {
				free(d);
				break;
			}
			char *up = path_dirname(d);
			free(d);
			d = up;
		}
		if (!tree) {
			char *cwd = path_absolute(".");
			tree = path_is_below(dbdir, cwd) ? cwd : xstrdup(dbdir);
			if (tree != cwd)
				free(cwd);
		}
		add_dir(&in->write_roots, tree);
		free(tree);
	}
	/* roots are fixed only now; the common args go last */
	struct extconf_cache ec = {0};
	ec.ruby_dirs = &in->rh.dirs;
	for (size_t i = 0; i < in->jobs.n; i++) {
		struct tu_job *j = &in->jobs.v[i];
		add_common_args(o, in, j);
		/* a source extconf.rb builds only under a have_func condition */
		char *fd = path_dirname(j->file);
		const char *probe = extconf_build_probe(extconf_for(&ec, fd, in->roots.v, in->roots.n), j->file);
		if (probe)
			j->build_probe = xstrdup(probe);
		free(fd);
	}
	extconf_cache_free(&ec);
	if (!db.entries.n)
		vec_push(&in->warnings, xasprintf("%s: no entries", o->compile_commands));
	strlist_free(&only);
	free(dbdir);
	compdb_free(&db);
	return 0;
}

int inputs_build(const struct options *o, struct inputs *in, char **err)
{
	for (size_t i = 0; i < o->extra_args.n; i++) {
		const char *a = o->extra_args.v[i];
		const char *next = i + 1 < o->extra_args.n ? o->extra_args.v[i + 1] : NULL;
		const char *why = flag_refusal(a, next);
		if (why) {
			bool pair = a[0] == '-' && a[1] == 'X' && next && !flag_refusal(a, NULL);
			*err = xasprintf("refusing compiler flag '%s%s%s': %s", a, pair ? " " : "", pair ? next : "",
					 why);
			return 2;
		}
		size_t take = 1;
		const char *nwhy = a[0] == '@' ? NULL : flag_not_allowed(a, next, &take);
		if (nwhy) {
			*err = xasprintf(
				"refusing --extra-arg '%s%s%s': %s (allowed: -D -U -I -isystem -iquote -idirafter "
				"-include -imacros -std= the language's -f options -W -m --target -isysroot "
				"--sysroot -x c/c++)",
				a, take == 2 ? " " : "", take == 2 ? next : "", nwhy);
			return 2;
		}
		i += take - 1;
		if (a[0] == '@') {
			/* a response file would reach libclang unchecked */
			*err = xasprintf(
				"refusing compiler argument '%s': response files are not read from --extra-arg; "
				"pass the flags themselves",
				a);
			return 2;
		}
	}
	strlist explicit_dirs = {0};
	for (size_t i = 0; i < o->ruby_includes.n; i++)
		vec_push(&explicit_dirs, xstrdup(o->ruby_includes.v[i]));
	char *rerr = NULL;
	int r = ruby_headers_find(&explicit_dirs, &in->rh, &rerr);
	strlist_free(&explicit_dirs);
	if (r != 0) {
		*err = rerr;
		return 2;
	}
	in->virtual_dir = xstrdup(VIRTUAL_DIR);
	if (o->compile_commands) {
		r = build_compdb(o, in, err);
	} else {
		if (!o->paths.n) {
			*err = xstrdup("no input: give files or directories, or -p BUILD_DIR (see --help)");
			return 2;
		}
		in->buildless = true;
		r = build_buildless(o, in, err);
	}
	if (r == 0)
		xqsort(in->jobs.v, in->jobs.n, sizeof(struct tu_job), job_cmp);
	return r;
}
