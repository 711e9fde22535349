/* inputs_buildless.c: the jobs of a project without a compile database: the
 * include path and defines mkmf would give each extension (extconf.rb,
 * pkg-config), sources in languages libclang does not read (inputs.h). */
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

/* No need to ask pkg-config: no .pc file of module where it looks (its
 * search directories kept in cache under "\x01", an empty list when not
 * known). */
static bool pkg_surely_missing(struct hmap *cache, const char *prog, const char *module)
{
	strlist *dirs = hmap_get(cache, "\x01");
	if (!dirs) {
		dirs = xcalloc(1, sizeof(*dirs));
		/* it answers in milliseconds; a slow answer only costs the lookups */
		pkgconfig_search_dirs(prog, 2000u, dirs);
		hmap_put(cache, xstrdup("\x01"), dirs);
	}
	return dirs->n && pkgconfig_surely_missing(dirs, module);
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
	if (prog && pkg_surely_missing(cache, prog, module))
		why = xasprintf("no pkg-config module %s", module); /* what it would say */
	else if (prog)
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

typedef VEC(unsigned char) flag_vec;

/* The paths named on the command line: the roots they give, the sources of
 * the directories (from_dir 1) and the files named (0), the extensions of
 * named files (context_dirs) and named foreign-language files. -1 (err set)
 * when a path cannot be read. */
static int named_paths(const struct options *o, struct inputs *in, strlist *files, strlist *named_foreign,
		       strlist *context_dirs, flag_vec *from_dir, char **err)
{
	for (size_t i = 0; i < o->paths.n; i++) {
		const char *p = o->paths.v[i];
		struct stat st;
		if (stat(p, &st) != 0) {
			*err = xasprintf("%s: %s", p, strerror(errno));
			strlist_free(files);
			strlist_free(named_foreign);
			strlist_free(context_dirs);
			vec_free(from_dir);
			return -1;
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
			size_t first = files->n;
			discover_sources(p, o->include_vendor, files, &in->warnings);
			for (size_t k = first; k < files->n; k++)
				vec_push(from_dir, 1);
		} else if (is_source_file(p) || (is_header_name(p) && extension_dir_of(p))) {
			/* a file of an extension: the report is about it, the analysis
			 * takes the whole extension (callbacks cross files) */
			char *ext = extension_dir_of(p);
			vec_push(&in->report_only, path_absolute(p));
			if (ext) {
				add_dir(&in->roots, ext);
				add_dir(context_dirs, ext);
				free(ext);
			}
			if (is_source_file(p)) {
				vec_push(from_dir, 0);
				vec_push(files, xstrdup(p));
			}
		} else if (foreign_language(p)) {
			vec_push(named_foreign, path_absolute(p));
		} else {
			const char *e = path_ext(p);
			bool header = strcmp(e, ".h") == 0 || strcmp(e, ".hh") == 0 || strcmp(e, ".hpp") == 0;
			vec_push(&in->warnings,
				 xasprintf("%s: %s; skipped", p,
					   header ? "a header is analysed through the files that include it"
						  : "not a C or C++ source file (.c, .cc, .cpp, .cxx)"));
		}
	}
	return 0;
}

/* The rest of each named file's extension, for context; when a directory was
 * named too, everything is in the report. */
static void add_context_files(const struct options *o, struct inputs *in, strlist *files, flag_vec *from_dir,
			      strlist *context_dirs)
{
	bool named_dir = false;
	for (size_t i = 0; i < o->paths.n; i++)
		named_dir = named_dir || path_is_dir(o->paths.v[i]);
	if (named_dir)
		strlist_free(&in->report_only);
	for (size_t i = 0; i < context_dirs->n; i++) {
		strlist more = {0};
		discover_sources(context_dirs->v[i], o->include_vendor, &more, &in->warnings);
		for (size_t k = 0; k < more.n; k++) {
			char *abs = path_absolute(more.v[k]);
			bool have = false;
			for (size_t m = 0; m < files->n && !have; m++) {
				char *fa = path_absolute(files->v[m]);
				have = strcmp(fa, abs) == 0;
				free(fa);
			}
			free(abs);
			if (have) {
				free(more.v[k]);
			} else {
				vec_push(files, more.v[k]);
				vec_push(from_dir, 1);
			}
		}
		vec_free(&more);
	}
}

/* The objects of $objs with no source in srcdir whose source the build
 * makes from a template there (ruby-oci8's apiwrap.o: apiwrap.c from
 * apiwrap.c.tmpl): noted in in->generated, for the summary. */
static void generated_sources(struct inputs *in, const struct extconf_info *ei, const char *srcdir)
{
	static const char *const src_ext[] = {".c", ".cc", ".cpp", ".cxx"};
	static const char *const tmpl_ext[] = {".tmpl", ".in", ".erb"};
	if (!ei->objs_set || ei->objs_unknown)
		return;
	for (size_t i = 0; i < ei->objs.n && i < 1024; i++) {
		const char *o = path_basename(ei->objs.v[i]);
		const char *dot = strrchr(o, '.');
		if (!dot || strcmp(dot, ".o") != 0 || strchr(ei->objs.v[i], '/'))
			continue;
		char *stem = xstrndup(o, (size_t)(dot - o));
		bool have = false;
		char *found = NULL, *gen = NULL;
		for (size_t k = 0; k < ARRAY_SIZE(src_ext) && !have; k++) {
			char *src = xasprintf("%s/%s%s", srcdir, stem, src_ext[k]);
			have = path_is_file(src);
			for (size_t t = 0; t < ARRAY_SIZE(tmpl_ext) && !have && !found; t++) {
				char *tp = xasprintf("%s%s", src, tmpl_ext[t]);
				if (path_is_file(tp)) {
					found = tp;
					gen = xasprintf("%s%s", stem, src_ext[k]);
				} else {
					free(tp);
				}
			}
			free(src);
		}
		if (found && !have) {
			char *d = display_path(found);
			vec_push(&in->generated, xasprintf("%s\t%s", gen, d));
			free(d);
		}
		free(gen);
		free(found);
		free(stem);
	}
}

/* mkmf: -I. (the build directory; in place, the extconf.rb's), the Ruby
 * directories, -I$(srcdir), then what extconf.rb adds; its defines, its
 * create_header names and the probe a file is built under. */
static void extension_args(struct inputs *in, const struct extconf_info *ei, struct tu_job *j, struct pkg_ctx *pc,
			   struct hmap *ext_args)
{
	char *srcdir = path_dirname(ei->path);
	vec_push(&j->args, xasprintf("-I%s", srcdir));
	for (size_t k = 0; k < in->rh.dirs.n; k++)
		vec_push(&j->args, xasprintf("-I%s", in->rh.dirs.v[k]));
	strlist *ea = hmap_get(ext_args, ei->path);
	if (!ea) {
		ea = xcalloc(1, sizeof(*ea));
		extconf_include_args(in, ei, srcdir, pc, ea);
		hmap_put(ext_args, ei->path, ea);
		generated_sources(in, ei, srcdir);
	}
	for (size_t k = 0; k < ea->n; k++)
		vec_push(&j->args, xstrdup(ea->v[k]));
	free(srcdir);
	for (size_t k = 0; k < ei->defines.n; k++)
		vec_push(&j->args, xasprintf("-D%s", ei->defines.v[k]));
	for (size_t k = 0; k < ei->headers.n; k++) {
		bool dup = false;
		for (size_t h = 0; h < in->extconf_headers.n && !dup; h++)
			dup = strcmp(in->extconf_headers.v[h], ei->headers.v[k]) == 0;
		if (!dup)
			vec_push(&in->extconf_headers, xstrdup(ei->headers.v[k]));
	}
	const char *probe = extconf_build_probe(ei, j->file);
	if (probe)
		j->build_probe = xstrdup(probe);
}

/* The job of one source file, unless extconf.rb leaves it out of the build. */
static void buildless_job(const struct options *o, struct inputs *in, const char *file, struct extconf_cache *ec,
			  struct pkg_ctx *pc, struct hmap *ext_args)
{
	struct tu_job j = {0};
	j.file = path_absolute(file);
	j.display = display_path(j.file);
	j.directory = path_dirname(j.file);
	j.buildless = true;
	j.cxx = is_cxx(j.file);
	if (j.cxx)
		vec_push(&j.args, xstrdup("-xc++"));
	/* defines from the nearest extconf.rb (read, never run) */
	const struct extconf_info *ei = extconf_for(ec, j.directory, in->roots.v, in->roots.n);
	if (extconf_objs_exclude(ei, j.file) && !named_on_command_line(o, j.file)) {
		/* mkmf builds only $objs (issue 17, item 7) */
		char *ed = display_path(ei->path);
		vec_push(&in->notes,
			 xasprintf("%s: not in $objs of %s (mkmf does not compile it); skipped", j.display, ed));
		free(ed);
		tu_job_free(&j);
		return;
	}
	if (extconf_srcs_exclude(ei, j.file) && !named_on_command_line(o, j.file)) {
		/* $srcs set, and this file not added on this machine */
		char *ed = display_path(ei->path);
		vec_push(&in->notes,
			 ei->not_built ? xasprintf("%s: %s builds nothing on this machine (its create_makefile is "
						   "under a condition that fails here); skipped",
						   j.display, ed)
				       : xasprintf("%s: not in $srcs of %s as read for this machine (not compiled "
						   "in this configuration); skipped",
						   j.display, ed));
		free(ed);
		tu_job_free(&j);
		return;
	}
	if (ei)
		extension_args(in, ei, &j, pc, ext_args);
	else
		/* not part of an extension: its own directory */
		vec_push(&j.args, xasprintf("-I%s", j.directory));
	for (size_t k = 0; k < buildless_ndefines; k++)
		vec_push(&j.args, xasprintf("-D%s", buildless_defines[k]));
	vec_push(&j.args, xstrdup("-DRUBY_EXTCONF_H=\"extconf.h\""));
	add_common_args(o, in, &j);
	vec_push(&in->jobs, j);
}

/* The pkg-config answers kept for the run. */
static void pkg_maps_free(struct hmap *pkg_cache, struct hmap *pkg_answers)
{
	hmap_foreach(pkg_cache, e)
	{
		if (e->val != &pkg_miss) {
			strlist_free(e->val);
			free(e->val);
		}
		free((char *)e->key);
	}
	hmap_free(pkg_cache);
	hmap_foreach(pkg_answers, e)
	{
		if (e->val != &pkg_miss)
			free(e->val);
		free((char *)e->key);
	}
	hmap_free(pkg_answers);
}

int build_buildless(const struct options *o, struct inputs *in, char **err)
{
	for (size_t i = 0; i < o->paths.n; i++)
		if (check_named_root(o, o->paths.v[i], err) != 0)
			return 2;
	strlist files = {0}, named_foreign = {0}, context_dirs = {0};
	flag_vec from_dir = {0}; /* per file: found in a directory */
	if (named_paths(o, in, &files, &named_foreign, &context_dirs, &from_dir, err) != 0)
		return 2;
	add_context_files(o, in, &files, &from_dir, &context_dirs);
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
	for (size_t i = 0; i < files.n; i++)
		buildless_job(o, in, files.v[i], &ec, &pc, &ext_args);
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
	pkg_maps_free(&pkg_cache, &pkg_answers);
	strlist_free(&files);
	return 0;
}
