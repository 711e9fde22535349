/* pch.c: see pch.h. */
#include "pch.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "log.h"
#include "parse.h"
#include "util.h"

#define PRELUDE "#include <ruby.h>\n#include <ruby/thread.h>\n"

enum pch_state {
	PCH_BUILDING = 1,
	PCH_READY,
	PCH_FAILED,
};

struct pch_entry {
	int state;
	char *path;
	/* the tails ("time.h", "sys/time.h") of every header the preamble
	 * includes: a file whose own directory (left out of the key) holds one
	 * of them would have found that header instead */
	strlist tails;
	struct hmap tail_set;
	strlist dirs_seen;	/* keys of dir_ok */
	struct hmap dir_ok;	/* directory -> (void *)1 fine, (void *)2 shadows */
};

struct pch_set {
	char *dir;
	pthread_mutex_t lock;
	pthread_cond_t built;
	struct hmap by_key; /* key string -> struct pch_entry * */
	strlist keys;
	unsigned n; /* built */
	/* for -v: files parsed with a preamble, and those that had to fall back */
	atomic_uint used, fell_back, ineligible;
};

struct pch_set *pch_set_new(void)
{
	const char *tmp = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/nogvl-lint-pch.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		free(tmpl);
		return NULL;
	}
	struct pch_set *ps = xcalloc(1, sizeof(*ps));
	ps->dir = tmpl;
	pthread_mutex_init(&ps->lock, NULL);
	pthread_cond_init(&ps->built, NULL);
	return ps;
}

void pch_note(struct pch_set *ps, enum pch_outcome what)
{
	if (!ps)
		return;
	if (what == PCH_USED)
		atomic_fetch_add(&ps->used, 1);
	else if (what == PCH_FELL_BACK)
		atomic_fetch_add(&ps->fell_back, 1);
	else
		atomic_fetch_add(&ps->ineligible, 1);
}

void pch_set_free(struct pch_set *ps)
{
	if (!ps)
		return;
	unsigned used = atomic_load(&ps->used), back = atomic_load(&ps->fell_back),
		 inel = atomic_load(&ps->ineligible);
	if (used + back + inel)
		log_verbose(1, "precompiled Ruby headers: %u built, %u files used them, %u fell back, %u not eligible",
			    ps->n, used, back, inel);
	hmap_foreach(&ps->by_key, e)
	{
		struct pch_entry *pe = e->val;
		if (pe->path)
			unlink(pe->path);
		free(pe->path);
		hmap_free(&pe->tail_set);
		strlist_free(&pe->tails);
		hmap_free(&pe->dir_ok);
		strlist_free(&pe->dirs_seen);
		free(pe);
	}
	hmap_free(&ps->by_key);
	strlist_free(&ps->keys);
	rmdir(ps->dir);
	free(ps->dir);
	pthread_mutex_destroy(&ps->lock);
	pthread_cond_destroy(&ps->built);
	free(ps);
}

/* ---- eligibility ---- */

static bool is_ruby_h(const char *name)
{
	return strcmp(name, "ruby.h") == 0 || strcmp(name, "ruby/ruby.h") == 0;
}

/* Resolves a quoted include like the preprocessor: the including file's
 * directory (when dir is given), then -iquote/-I directories. */
static char *resolve_quoted(const char *name, const char *dir, const char *const *args, size_t nargs)
{
	char *p = NULL;
	if (dir) {
		p = path_join(dir, name);
		if (path_is_file(p))
			return p;
		free(p);
	}
	for (size_t i = 0; i < nargs; i++) {
		const char *d = NULL;
		if (str_starts(args[i], "-I") && args[i][2])
			d = args[i] + 2;
		else if (str_starts(args[i], "-iquote") && args[i][7])
			d = args[i] + 7;
		if (!d)
			continue;
		p = path_join(d, name);
		if (path_is_file(p))
			return p;
		free(p);
	}
	return NULL;
}

/* Removes comments, keeping newlines. */
static char *strip_comments(const char *t, size_t n)
{
	char *o = xmalloc(n + 1);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
			i += 2;
			while (i + 1 < n && !(t[i] == '*' && t[i + 1] == '/')) {
				if (t[i] == '\n')
					o[w++] = '\n';
				i++;
			}
			i++;
			o[w++] = ' ';
			continue;
		}
		if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
			while (i < n && t[i] != '\n')
				i++;
			if (i < n)
				o[w++] = '\n';
			continue;
		}
		if (t[i] == '"' || t[i] == '\'') {
			/* a quote before ruby.h means code: stop copying cleanly */
			o[w++] = t[i];
			continue;
		}
		o[w++] = t[i];
	}
	o[w] = '\0';
	return o;
}

/* 1: reaches ruby.h first; 0: something else comes first; depth-limited. */
static int scan(const char *text, size_t len, const char *dir, const char *const *args, size_t nargs, bool header,
		unsigned depth)
{
	if (depth > 3)
		return 0;
	char *t = strip_comments(text, len);
	int result = 0;
	int guard = 0; /* 1: an #ifndef waiting for its #define (an include guard); 2: guard seen */
	char guard_name[256] = "";
	char *save = NULL;
	for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		while (*line == ' ' || *line == '\t' || *line == '\r')
			line++;
		if (!*line)
			continue;
		if (*line != '#')
			break; /* code before ruby.h */
		line++;
		while (*line == ' ' || *line == '\t')
			line++;
		if (header && str_starts(line, "pragma") && strstr(line, "once"))
			continue;
		if (header && guard == 0 && str_starts(line, "ifndef")) {
			const char *n = line + 6;
			while (*n == ' ' || *n == '\t')
				n++;
			size_t nl = strcspn(n, " \t\r");
			if (!nl || nl >= sizeof(guard_name))
				break;
			memcpy(guard_name, n, nl);
			guard_name[nl] = '\0';
			guard = 1;
			continue;
		}
		if (guard == 1) {
			/* only `#define NAME` (no value) completes an include guard */
			if (!str_starts(line, "define"))
				break;
			const char *n = line + 6;
			while (*n == ' ' || *n == '\t')
				n++;
			size_t nl = strcspn(n, " \t\r");
			if (nl != strlen(guard_name) || strncmp(n, guard_name, nl) != 0 || n[nl + strspn(n + nl, " \t\r")])
				break;
			guard = 2;
			continue;
		}
		if (!str_starts(line, "include"))
			break; /* #define, #if, #undef ... before ruby.h */
		line += 7;
		while (*line == ' ' || *line == '\t')
			line++;
		char open = *line;
		char close = open == '<' ? '>' : open == '"' ? '"' : 0;
		if (!close)
			break; /* #include MACRO */
		char *end = strchr(line + 1, close);
		if (!end)
			break;
		*end = '\0';
		const char *name = line + 1;
		if (is_ruby_h(name)) {
			result = 1;
			break;
		}
		if (str_starts(name, "ruby/"))
			continue; /* a piece of Ruby's headers: guarded, and ruby.h comes below */
		if (open == '<') {
			/* a header found through -I (<sqlite3_ruby.h>) that reaches
			 * ruby.h first decides; anything else is a system header, which
			 * ruby.h includes too */
			char *hp = resolve_quoted(name, NULL, args, nargs);
			int r = 0;
			if (hp) {
				size_t hl = 0;
				char *ht = read_file(hp, &hl, 4u * 1024 * 1024);
				char *hd = path_dirname(hp);
				r = ht ? scan(ht, hl, hd, args, nargs, true, depth + 1) : 0;
				free(ht);
				free(hd);
				free(hp);
			}
			if (r == 1) {
				result = 1;
				break;
			}
			continue;
		}
		char *hp = resolve_quoted(name, dir, args, nargs);
		if (!hp)
			break;
		size_t hl = 0;
		char *ht = read_file(hp, &hl, 4u * 1024 * 1024);
		char *hd = path_dirname(hp);
		int r = ht ? scan(ht, hl, hd, args, nargs, true, depth + 1) : 0;
		free(ht);
		free(hd);
		free(hp);
		result = r;
		break; /* the first project header decides */
	}
	free(t);
	return result;
}

bool pch_eligible(const char *text, size_t len, const char *dir, const char *const *args, size_t nargs)
{
	return scan(text, len, dir, args, nargs, false, 0) == 1;
}

/* ---- building ---- */

/* The key: every argument but the file's own directory (-I<dir>), which
 * cannot change what ruby.h means, and the language. */
static char *pch_key(const struct tu_job *job, const char *const *args, size_t nargs)
{
	XXH3_state_t *st = XXH3_createState();
	XXH3_64bits_reset(st);
	char *own = job->directory ? xasprintf("-I%s", job->directory) : NULL;
	for (size_t i = 0; i < nargs; i++) {
		if (own && strcmp(args[i], own) == 0)
			continue;
		XXH3_64bits_update(st, args[i], strlen(args[i]) + 1);
	}
	uint8_t lang = job->cxx;
	XXH3_64bits_update(st, &lang, 1);
	uint64_t h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	free(own);
	return xasprintf("%016llx", (unsigned long long)h);
}

struct tails_ctx {
	struct pch_entry *pe;
	strlist dirs; /* include directories, each ending in '/' */
};

static void add_tail(struct pch_entry *pe, const char *tail)
{
	if (*tail && !hmap_has(&pe->tail_set, tail)) {
		char *t = xstrdup(tail);
		vec_push(&pe->tails, t);
		hmap_put(&pe->tail_set, t, t);
	}
}

/* How the preamble could have spelled an included header: its path below a
 * directory of the arguments' include path, below /usr/include (and its
 * multiarch directory) or clang's own include directory; for anything else
 * its last one, two and three components. */
static void add_tails(CXFile included, CXSourceLocation *stack, unsigned depth, CXClientData data)
{
	(void)stack;
	(void)depth;
	struct tails_ctx *tc = data;
	CXString s = clang_getFileName(included);
	const char *path = clang_getCString(s);
	bool found = false;
	for (size_t i = 0; path && *path == '/' && i < tc->dirs.n; i++)
		if (str_starts(path, tc->dirs.v[i])) {
			add_tail(tc->pe, path + strlen(tc->dirs.v[i]));
			found = true;
		}
	const char *clang_inc = path ? strstr(path, "/lib/clang/") : NULL;
	if (clang_inc && (clang_inc = strstr(clang_inc, "/include/")) != NULL) {
		add_tail(tc->pe, clang_inc + 9);
		found = true;
	}
	if (path && str_starts(path, "/usr/include/")) {
		const char *rel = path + 13;
		add_tail(tc->pe, rel);
		const char *slash = strchr(rel, '/');
		if (slash)
			add_tail(tc->pe, slash + 1); /* /usr/include/<triple>/ */
		found = true;
	}
	if (!found && path && *path == '/') {
		const char *p = path + strlen(path);
		for (int k = 0; k < 3 && p > path; k++) {
			do
				p--;
			while (p > path && *p != '/');
			add_tail(tc->pe, *p == '/' ? p + 1 : p);
		}
	}
	clang_disposeString(s);
}

static void include_dirs(const char *const *args, size_t nargs, strlist *out)
{
	static const char *const opts[] = {"-I", "-isystem", "-idirafter", "-iquote"};
	for (size_t i = 0; i < nargs; i++)
		for (size_t k = 0; k < ARRAY_SIZE(opts); k++) {
			size_t ol = strlen(opts[k]);
			if (strncmp(args[i], opts[k], ol) != 0)
				continue;
			const char *d = args[i][ol] ? args[i] + ol : i + 1 < nargs ? args[i + 1] : NULL;
			if (d && *d == '/') {
				size_t dl = strlen(d);
				vec_push(out, xasprintf("%s%s", d, dl && d[dl - 1] == '/' ? "" : "/"));
			}
			break;
		}
}

static char *build(struct pch_set *ps, struct pch_entry *pe, CXIndex idx, const struct tu_job *job,
		   const char *const *args, size_t nargs, const char *const *extra, size_t nextra,
		   const struct parse_opts *o, const char *key)
{
	char *hdr = xasprintf("%s/prelude-%s.h", ps->dir, key);
	char *out = xasprintf("%s/prelude-%s.pch", ps->dir, key);
	char *own = job->directory ? xasprintf("-I%s", job->directory) : NULL;
	VEC(const char *) argv = {0};
	for (size_t i = 0; i < nargs; i++)
		if (!own || strcmp(args[i], own) != 0)
			vec_push(&argv, args[i]);
	for (size_t i = 0; i < nextra; i++)
		vec_push(&argv, extra[i]);
	vec_push(&argv, "-x");
	vec_push(&argv, job->cxx ? "c++-header" : "c-header");
	VEC(struct CXUnsavedFile) uf = {0};
	struct CXUnsavedFile pre = {hdr, PRELUDE, (unsigned long)strlen(PRELUDE)};
	vec_push(&uf, pre);
	for (unsigned i = 0; i < o->nvirtual; i++)
		vec_push(&uf, o->virtual_files[i]);
	CXTranslationUnit tu = NULL;
	enum CXErrorCode e = clang_parseTranslationUnit2(idx, hdr, argv.v, (int)argv.n, uf.v, (unsigned)uf.n,
							 CXTranslationUnit_ForSerialization | CXTranslationUnit_Incomplete |
							 CXTranslationUnit_DetailedPreprocessingRecord,
							 &tu);
	bool ok = e == CXError_Success && tu;
	if (ok) {
		unsigned n = clang_getNumDiagnostics(tu);
		for (unsigned i = 0; i < n && ok; i++) {
			CXDiagnostic d = clang_getDiagnostic(tu, i);
			if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error)
				ok = false;
			clang_disposeDiagnostic(d);
		}
	}
	if (ok) {
		struct tails_ctx tc = {.pe = pe};
		include_dirs(argv.v, argv.n, &tc.dirs);
		clang_getInclusions(tu, add_tails, &tc);
		strlist_free(&tc.dirs);
	}
	if (ok && clang_saveTranslationUnit(tu, out, clang_defaultSaveOptions(tu)) != CXSaveError_None)
		ok = false;
	if (tu)
		clang_disposeTranslationUnit(tu);
	vec_free(&argv);
	vec_free(&uf);
	free(own);
	free(hdr);
	if (!ok) {
		unlink(out);
		free(out);
		return NULL;
	}
	return out;
}

bool pch_dir_shadows(const char *dir)
{
	static const char *const names[] = {"ruby.h", "ruby", "extconf.h"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		char *p = path_join(dir, names[i]);
		bool there = access(p, F_OK) == 0;
		free(p);
		if (there)
			return true;
	}
	return false;
}

/* Under ps->lock. */
static bool shadows_tail(struct pch_entry *pe, const char *dir)
{
	void *v = hmap_get(&pe->dir_ok, dir);
	if (v)
		return v == (void *)2;
	bool shadow = false;
	for (size_t i = 0; i < pe->tails.n && !shadow; i++) {
		char *p = path_join(dir, pe->tails.v[i]);
		shadow = access(p, F_OK) == 0;
		free(p);
	}
	char *k = xstrdup(dir);
	vec_push(&pe->dirs_seen, k);
	hmap_put(&pe->dir_ok, k, shadow ? (void *)2 : (void *)1);
	return shadow;
}

const char *pch_for(struct pch_set *ps, CXIndex idx, const struct tu_job *job, const char *const *args, size_t nargs,
		    const char *const *extra, size_t nextra, const struct parse_opts *o)
{
	if (!ps)
		return NULL;
	char *key = pch_key(job, args, nargs);
	pthread_mutex_lock(&ps->lock);
	struct pch_entry *pe = hmap_get(&ps->by_key, key);
	if (!pe) {
		pe = xcalloc(1, sizeof(*pe));
		pe->state = PCH_BUILDING;
		vec_push(&ps->keys, key);
		hmap_put(&ps->by_key, key, pe);
		char *mine = xstrdup(key); /* ps->keys may grow while we build */
		key = NULL; /* owned by ps->keys */
		pthread_mutex_unlock(&ps->lock);
		char *path = build(ps, pe, idx, job, args, nargs, extra, nextra, o, mine);
		free(mine);
		pthread_mutex_lock(&ps->lock);
		pe->path = path;
		pe->state = path ? PCH_READY : PCH_FAILED;
		if (path)
			ps->n++;
		else
			log_verbose(2, "no precompiled Ruby headers for %s's arguments", job->display);
		pthread_cond_broadcast(&ps->built);
	} else {
		while (pe->state == PCH_BUILDING)
			pthread_cond_wait(&ps->built, &ps->lock);
	}
	const char *r = pe->state == PCH_READY ? pe->path : NULL;
	if (r && job->directory && shadows_tail(pe, job->directory)) {
		log_verbose(2, "%s: its directory holds a header Ruby's headers include; parsed without the shared preamble",
			    job->display);
		r = NULL;
	}
	pthread_mutex_unlock(&ps->lock);
	free(key);
	return r;
}
