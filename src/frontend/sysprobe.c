/* sysprobe.c: see sysprobe.h. */
#include "sysprobe.h"

#include "c_scan.h"
#include "compdb.h"
#include "facts.h"
#include "gvlapi.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

char *find_system_program(const char *name, char *const *untrusted, size_t nuntrusted)
{
	const char *path = getenv("PATH");
	if (!path)
		return NULL;
	char *copy = xstrdup(path), *save = NULL, *found = NULL;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		if (d[0] != '/')
			continue; /* relative entries depend on where we run */
		char *real = path_absolute(d);
		bool bad = false;
		for (size_t i = 0; i < nuntrusted && !bad; i++)
			bad = path_is_below(real, untrusted[i]) || path_is_below(d, untrusted[i]);
		free(real);
		if (bad)
			continue;
		char *p = path_join(d, name);
		if (path_is_file(p) && access(p, X_OK) == 0)
			found = p;
		else
			free(p);
	}
	free(copy);
	return found;
}

int pkgconfig_search_dirs(const char *program, unsigned timeout_ms, strlist *dirs)
{
	if (getenv("PKG_CONFIG_LIBDIR"))
		return -1;
	char *argv[] = {(char *)program, "--variable", "pc_path", "pkg-config", NULL};
	struct run_spec spec = {.argv = argv, .timeout_ms = timeout_ms, .max_out = 64 * 1024};
	struct run_result rr;
	run_process(&spec, &rr);
	int r = rr.outcome == RUN_OK && rr.out ? 0 : -1;
	const char *env = getenv("PKG_CONFIG_PATH");
	char *all = r == 0 ? xasprintf("%s:%s", env ? env : "", rr.out) : NULL;
	run_result_free(&rr);
	char *save = NULL;
	for (char *d = all ? strtok_r(all, ":\n", &save) : NULL; d; d = strtok_r(NULL, ":\n", &save))
		if (*d)
			vec_push(dirs, xstrdup(d));
	free(all);
	/* a program that does not answer with absolute directories is not one
	 * whose lookups we can predict */
	bool some = false;
	for (size_t i = 0; i < dirs->n && r == 0; i++) {
		if (dirs->v[i][0] != '/')
			r = -1;
		some = some || path_is_dir(dirs->v[i]);
	}
	if (r == 0 && !some)
		r = -1;
	if (r != 0)
		strlist_free(dirs);
	return r;
}

bool pkgconfig_surely_missing(const strlist *dirs, const char *module)
{
	size_t n = strlen(module);
	if (!n || n > 200 || module[0] == '-' || str_ends(module, ".pc") || strcmp(module, "pkg-config") == 0 ||
	    strcmp(module, "pkgconf") == 0)
		return false;
	for (const char *p = module; *p; p++)
		if (!(isalnum((unsigned char)*p) || strchr("._+-", *p)))
			return false;
	for (size_t i = 0; i < dirs->n; i++) {
		char *a = xasprintf("%s/%s.pc", dirs->v[i], module);
		char *b = xasprintf("%s/%s-uninstalled.pc", dirs->v[i], module);
		bool there = access(a, F_OK) == 0 || access(b, F_OK) == 0;
		free(a);
		free(b);
		if (there)
			return false;
	}
	return true;
}

int pkgconfig_include_dirs(const char *program, const char *module, unsigned timeout_ms, strlist *dirs, char **why)
{
	/* a module name is one word: no option, no path, nothing a shell or
	 * pkg-config would read as more than a name */
	if (!*module || module[0] == '-' || strlen(module) > 200) {
		*why = xasprintf("'%s' is not a module name", module);
		return -1;
	}
	for (const char *p = module; *p; p++)
		if (!(isalnum((unsigned char)*p) || strchr("._+-", *p))) {
			*why = xasprintf("'%s' is not a module name", module);
			return -1;
		}
	char *argv[] = {(char *)program, "--cflags-only-I", (char *)module, NULL};
	struct run_spec spec = {.argv = argv, .timeout_ms = timeout_ms, .max_out = 64 * 1024};
	struct run_result rr;
	run_process(&spec, &rr);
	enum run_outcome r = rr.outcome;
	char *out = r == RUN_OK ? rr.out : NULL;
	rr.out = r == RUN_OK ? NULL : rr.out;
	run_result_free(&rr);
	if (r != RUN_OK) {
		*why = r == RUN_FAILED ? xasprintf("no pkg-config module %s", module)
				       : xasprintf("pkg-config %s", run_outcome_text(r));
		return -1;
	}
	strlist words = {0};
	if (shell_split(out, &words) != 0) {
		*why = xstrdup("pkg-config printed text that is not a list of flags; ignored");
		strlist_free(&words);
		free(out);
		return -1;
	}
	size_t ignored = 0;
	for (size_t i = 0; i < words.n; i++) {
		const char *w = words.v[i];
		const char *d = NULL;
		if (strcmp(w, "-I") == 0 && i + 1 < words.n)
			d = words.v[++i];
		else if (str_starts(w, "-I") && w[2])
			d = w + 2;
		if (!d || d[0] != '/' || !path_is_dir(d)) {
			ignored++;
			continue;
		}
		char *abs = path_absolute(d);
		bool dup = false;
		for (size_t k = 0; k < dirs->n && !dup; k++)
			dup = strcmp(dirs->v[k], abs) == 0;
		if (dup)
			free(abs);
		else
			vec_push(dirs, abs);
	}
	strlist_free(&words);
	free(out);
	if (ignored)
		*why = xasprintf("%zu word%s of pkg-config's output ignored (only existing absolute -I directories "
				 "are taken)",
				 ignored, ignored == 1 ? "" : "s");
	return 0;
}

/* ---- header search ---- */

struct seen_ino {
	dev_t dev;
	ino_t ino;
};
typedef VEC(struct seen_ino) seen_ino_vec;

static void index_dir(struct header_index *hi, const char *dir, unsigned depth, seen_ino_vec *seen)
{
	if (hi->bounded)
		return;
	if (depth > 32) {
		vec_push(&hi->notes, xasprintf("%s: nested too deeply; not searched further", dir));
		return;
	}
	struct stat st;
	if (stat(dir, &st) != 0)
		return;
	for (size_t i = 0; i < seen->n; i++)
		if (seen->v[i].dev == st.st_dev && seen->v[i].ino == st.st_ino)
			return;
	struct seen_ino si = {st.st_dev, st.st_ino};
	vec_push(seen, si);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || strcmp(n, ".git") == 0 || strcmp(n, "tmp") == 0 ||
		    strcmp(n, "pkg") == 0 || strcmp(n, "node_modules") == 0 || strcmp(n, "target") == 0)
			continue;
		if (hi->files.n >= hi->max_files || now_seconds() > hi->deadline) {
			hi->bounded = true;
			vec_push(&hi->notes,
				 xasprintf("header search stopped at %zu files after %s: the bound of %u files "
					   "or %.0f s was hit",
					   hi->files.n, dir, hi->max_files, HEADER_SEARCH_MAX_SECONDS));
			break;
		}
		char *p = path_join(dir, n);
		struct stat ls;
		if (lstat(p, &ls) != 0) {
			free(p);
			continue;
		}
		if (S_ISDIR(ls.st_mode)) {
			index_dir(hi, p, depth + 1, seen);
			free(p);
		} else if (S_ISREG(ls.st_mode) || S_ISLNK(ls.st_mode)) {
			vec_push(&hi->files, p); /* links to directories are not followed: only named */
		} else {
			free(p);
		}
	}
	closedir(d);
}

void header_index_add_tree(struct header_index *hi, const char *dir)
{
	if (!hi->max_files)
		hi->max_files = HEADER_SEARCH_MAX_FILES;
	if (hi->deadline == 0)
		hi->deadline = now_seconds() + HEADER_SEARCH_MAX_SECONDS;
	seen_ino_vec seen = {0};
	index_dir(hi, dir, 0, &seen);
	vec_free(&seen);
}

void header_index_free(struct header_index *hi)
{
	strlist_free(&hi->files);
	strlist_free(&hi->notes);
}

static void add_distinct(strlist *out, const char *d)
{
	for (size_t i = 0; i < out->n; i++)
		if (strcmp(out->v[i], d) == 0)
			return;
	vec_push(out, xstrdup(d));
}

/* The system's include trees the compiler searches by itself. */
static const char *const system_include_roots[] = {
	"/usr/local/include",          "/usr/include/x86_64-linux-gnu",    "/usr/include/aarch64-linux-gnu",
	"/usr/include/i386-linux-gnu", "/usr/include/arm-linux-gnueabihf", "/usr/include",
};

void header_candidates(const struct header_index *hi, const char *name, strlist *out)
{
	/* a name that climbs out (../) or is absolute is not searched for */
	if (!*name || name[0] == '/' || strstr(name, "..") || strlen(name) > 512)
		return;
	size_t nl = strlen(name);
	for (size_t i = 0; i < hi->files.n; i++) {
		const char *f = hi->files.v[i];
		size_t fl = strlen(f);
		if (fl <= nl + 1 || strcmp(f + fl - nl, name) != 0 || f[fl - nl - 1] != '/')
			continue;
		if (!path_is_file(f))
			continue;
		char *d = xstrndup(f, fl - nl - 1);
		add_distinct(out, d);
		free(d);
	}
	for (size_t r = 0; r < ARRAY_SIZE(system_include_roots); r++) {
		const char *root = system_include_roots[r];
		DIR *d = opendir(root);
		if (!d)
			continue;
		strlist subs = {0};
		struct dirent *de;
		while ((de = readdir(d)) != NULL && subs.n < 4096) {
			if (de->d_name[0] == '.')
				continue;
			char *p = path_join(root, de->d_name);
			if (path_is_dir(p))
				vec_push(&subs, p);
			else
				free(p);
		}
		closedir(d);
		for (size_t i = 0; i < subs.n; i++) {
			bool is_root = false;
			for (size_t k = 0; k < ARRAY_SIZE(system_include_roots) && !is_root; k++)
				is_root = strcmp(subs.v[i], system_include_roots[k]) == 0;
			if (is_root)
				continue;
			char *p = path_join(subs.v[i], name);
			if (path_is_file(p))
				add_distinct(out, subs.v[i]);
			free(p);
		}
		strlist_free(&subs);
	}
}

char *missing_header_name(const char *msg)
{
	if (!msg || msg[0] != '\'')
		return NULL;
	const char *q = strchr(msg + 1, '\'');
	if (!q || q == msg + 1 || !str_starts(q, "' file not found"))
		return NULL;
	return xstrndup(msg + 1, (size_t)(q - msg - 1));
}

size_t tu_missing_headers(const struct tu_facts *tu, strlist *names)
{
	size_t n = 0;
	strlist local = {0};
	strlist *l = names ? names : &local;
	size_t first = l->n;
	for (size_t i = 0; i < tu->diags.n; i++) {
		char *name = missing_header_name(tu->diags.v[i].msg);
		if (!name)
			continue;
		bool dup = false;
		for (size_t k = first; k < l->n && !dup; k++)
			dup = strcmp(l->v[k], name) == 0;
		if (dup) {
			free(name);
			continue;
		}
		vec_push(l, name);
		n++;
	}
	strlist_free(&local);
	return n;
}

static const char *const foreign_names[] = {"RB_NOGVL_OFFLOAD_SAFE", "rb_nogvl", "rb_thread_call_without_gvl",
					    "rb_thread_call_without_gvl2"};

static const char *spelled_api(const char *w, size_t n, bool rust)
{
	char buf[64];
	if (n >= sizeof(buf))
		return NULL;
	memcpy(buf, w, n);
	buf[n] = '\0';
	if (rust) {
		for (size_t i = 0; i < ARRAY_SIZE(foreign_names); i++)
			if (strcmp(buf, foreign_names[i]) == 0)
				return foreign_names[i];
		return NULL;
	}
	const struct gvl_api *a = gvl_api_find(buf);
	return a ? a->name : NULL;
}

struct scan_apis {
	const char *file;
	bool rust;
	const struct hmap *names;
	spelling_vec *out;
};

static void spelled_api_at(const struct c_ident *id, void *arg)
{
	struct scan_apis *sa = arg;
	const char *api = spelled_api(id->s, id->n, sa->rust);
	if (!api && sa->names && id->n < 128) {
		char name[128];
		memcpy(name, id->s, id->n);
		name[id->n] = '\0';
		api = hmap_get(sa->names, name);
	}
	if (api) {
		struct spelling sp = {xstrdup(sa->file), api, id->line, id->in_define};
		vec_push(sa->out, sp);
	}
}

void scan_spellings(const char *file, const char *text, size_t len, bool rust, const struct hmap *names,
		    spelling_vec *out)
{
	struct scan_apis sa = {file, rust, names, out};
	c_scan_idents(text, len, rust ? C_SCAN_RUST : C_SCAN_C, spelled_api_at, &sa);
}

void spellings_free(spelling_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].file);
	vec_free(v);
}
