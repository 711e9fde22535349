/* inputs.c: see inputs.h. */
#include "inputs.h"
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
	strlist_free(&in->generated);
	strlist_free(&in->report_only);
	free(in->virtual_dir);
	strlist_free(&in->extconf_headers);
}

bool is_cxx(const char *file)
{
	const char *e = path_ext(file);
	return strcmp(e, ".cc") == 0 || strcmp(e, ".cpp") == 0 || strcmp(e, ".cxx") == 0 || strcmp(e, ".C") == 0;
}

void add_common_args(const struct options *o, struct inputs *in, struct tu_job *j)
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
void drop_included_sources(strlist *files, const unsigned char *from_dir, strlist *notes)
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
int check_named_root(const struct options *o, const char *p, char **err)
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

/* The paths named with a compile database: filters of the report. -1 (err
 * set) when one cannot be read. */
static int named_filters(const struct options *o, strlist *only, char **err)
{
	for (size_t i = 0; i < o->paths.n; i++) {
		if (check_named_root(o, o->paths.v[i], err) != 0) {
			strlist_free(only);
			return -1;
		}
		if (access(o->paths.v[i], F_OK) != 0) {
			*err = xasprintf("%s: %s", o->paths.v[i], strerror(errno));
			strlist_free(only);
			return -1;
		}
		vec_push(only, path_absolute(o->paths.v[i]));
	}
	return 0;
}

/* A job per entry of the database (a source file, once, that exists). -1
 * (err set) when an entry's flags cannot be read. */
static int compdb_jobs(const struct options *o, struct inputs *in, const struct compdb *db, size_t *nmissing,
		       char **first_missing, char **err)
{
	struct hmap seen = {0}, refused = {0};
	for (size_t i = 0; i < db->entries.n; i++) {
		struct compdb_entry *e = &db->entries.v[i];
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
			return -1; /* the caller frees first_missing */
		}
		if (access(e->file, F_OK) != 0) {
			/* a stale database (files moved or deleted): one warning for all
			 * (after the flags: a refused flag is refused all the same) */
			char *d = display_path(e->file);
			vec_push(&in->notes,
				 xasprintf("%s: named in the compile database, but it does not exist; skipped", d));
			if (!*nmissing)
				*first_missing = d;
			else
				free(d);
			(*nmissing)++;
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
	return 0;
}

/* The named paths narrow the report; one that no entry is below is said. */
static void report_only_filters(const struct options *o, struct inputs *in, const strlist *only)
{
	for (size_t k = 0; k < only->n; k++)
		add_dir(&in->report_only, only->v[k]);
	for (size_t k = 0; k < only->n; k++) {
		bool any = false;
		for (size_t i = 0; i < in->jobs.n && !any; i++)
			any = path_is_below(in->jobs.v[i].file, only->v[k]);
		if (!any)
			vec_push(&in->warnings, xasprintf("%s: no entry in the compile database", o->paths.v[k]));
	}
}

/* --fix writes below the named paths, else below the database's tree (its git
 * work tree, else the current directory when the database is in it, else its
 * directory); never where an entry's "directory" or "file" alone points (an
 * entry for ../../other/x.c). */
static void compdb_write_roots(const struct options *o, struct inputs *in, const char *dbdir)
{
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
}

/* The common args, last, once the roots are fixed; the have_func condition a
 * source extconf.rb builds a file under. */
static void compdb_common_args(const struct options *o, struct inputs *in)
{
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
	if (named_filters(o, &only, err) != 0) {
		compdb_free(&db);
		return 2;
	}
	char *dbabs = path_absolute(o->compile_commands);
	char *dbdir = path_dirname(dbabs);
	free(dbabs);
	size_t nmissing = 0;
	char *first_missing = NULL;
	if (compdb_jobs(o, in, &db, &nmissing, &first_missing, err) != 0) {
		free(first_missing);
		strlist_free(&only);
		free(dbdir);
		compdb_free(&db);
		return 2;
	}
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
	report_only_filters(o, in, &only);
	compdb_write_roots(o, in, dbdir);
	compdb_common_args(o, in);
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
