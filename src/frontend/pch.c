/* pch.c: see pch.h. */
#include "pch.h"
#include "pch_idset.h"
#include "pch_scan.h"
#include "prescan.h"

#include <dirent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "log.h"
#include "parse.h"
#include "util.h"

/* ruby.h alone: ruby/thread.h (rb_thread_call_without_gvl, RB_NOGVL_*) is
 * parsed where the file includes it, so a file that does not include it sees
 * no declaration and no macro of it, with the preamble as without */
#define PRELUDE "#include <ruby.h>\n"

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
	/* every identifier spelled in the preamble's headers: a -D or -U of a
	 * name not among them cannot change the preamble (idents_known false
	 * when a header could not be read); kept as hashes (pch_idset.h) */
	struct idset ident_set;
	struct idset defined_set; /* names after #define or #undef */
	bool idents_known;
	strlist dirs_seen;  /* keys of dir_ok */
	struct hmap dir_ok; /* directory -> (void *)1 fine, (void *)2 shadows */
	char *prelude;      /* the header it precompiles: PRELUDE, maybe a project header's system includes */
};

struct pch_set {
	char *dir;
	pthread_mutex_t lock;
	pthread_cond_t built;
	struct hmap by_key;  /* key string -> struct pch_entry * */
	struct hmap by_rest; /* key of the arguments without -D/-U -> the first entry built for them */
	struct hmap wanted;  /* key of a system block and arguments -> files that asked for it */
	strlist keys;
	unsigned n;     /* built */
	bool no_blocks; /* Ruby's headers only (a test hook) */
};

const char *pch_set_dir(const struct pch_set *ps)
{
	return ps ? ps->dir : NULL;
}

struct pch_set *pch_set_new(const char *under)
{
	const char *tmp = under ? under : getenv("TMPDIR");
	char *tmpl = xasprintf("%s/nogvl-lint-pch.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		free(tmpl);
		return NULL;
	}
	struct pch_set *ps = xcalloc(1, sizeof(*ps));
	ps->dir = tmpl;
#ifdef NOGVL_TEST_HOOKS
	/* test hook: Ruby's headers only, for a test to compare the facts */
	const char *nb = getenv("NOGVL_LINT_TEST_NO_PCH_BLOCKS");
	ps->no_blocks = nb && *nb;
#endif
	pthread_mutex_init(&ps->lock, NULL);
	pthread_cond_init(&ps->built, NULL);
	return ps;
}

void pch_set_free(struct pch_set *ps)
{
	if (!ps)
		return;
	hmap_foreach(&ps->by_key, e)
	{
		struct pch_entry *pe = e->val;
		if (pe->path)
			unlink(pe->path);
		free(pe->path);
		hmap_free(&pe->tail_set);
		strlist_free(&pe->tails);
		hmap_free(&pe->dir_ok);
		idset_free(&pe->ident_set);
		idset_free(&pe->defined_set);
		strlist_free(&pe->dirs_seen);
		free(pe->prelude);
		free(pe);
	}
	hmap_free(&ps->by_key);
	hmap_free(&ps->by_rest);
	hmap_free(&ps->wanted);
	strlist_free(&ps->keys);
	/* the sets of worker processes (--tu-timeout) made below this one:
	 * a worker that was stopped could not remove its own */
	DIR *d = opendir(ps->dir);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *sub = path_join(ps->dir, de->d_name);
		DIR *sd = opendir(sub);
		struct dirent *se;
		while (sd && (se = readdir(sd)) != NULL) {
			if (se->d_name[0] == '.')
				continue;
			char *f = path_join(sub, se->d_name);
			unlink(f);
			free(f);
		}
		if (sd)
			closedir(sd);
		if (rmdir(sub) != 0)
			unlink(sub);
		free(sub);
	}
	if (d)
		closedir(d);
	rmdir(ps->dir);
	free(ps->dir);
	pthread_mutex_destroy(&ps->lock);
	pthread_cond_destroy(&ps->built);
	free(ps);
}

/* ---- building ---- */

/* The key of an argument subset (without the file's own -I<dir>, see
 * pch_for) and the language. */
static char *pch_key(const struct tu_job *job, const char *const *args, size_t nargs, const char *prelude)
{
	XXH3_state_t *st = XXH3_createState();
	XXH3_64bits_reset(st);
	XXH3_64bits_update(st, prelude, strlen(prelude) + 1);
	for (size_t i = 0; i < nargs; i++)
		XXH3_64bits_update(st, args[i], strlen(args[i]) + 1);
	uint8_t lang = job->cxx;
	XXH3_64bits_update(st, &lang, 1);
	uint64_t h = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return xasprintf("%016llx", (unsigned long long)h);
}

struct tails_ctx {
	struct pch_entry *pe;
	strlist dirs;  /* include directories, each ending in '/' */
	strlist files; /* every included file */
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
	if (path)
		vec_push(&tc->files, xstrdup(path));
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

/* Lines the preprocessor skipped (inactive #if branches), per file. */
struct skipped {
	const char *file;
	unsigned first, last;
};
typedef VEC(struct skipped) skipvec;

static bool line_skipped(const skipvec *sk, const char *file, unsigned line)
{
	for (size_t i = 0; sk && i < sk->n; i++)
		if (sk->v[i].first <= line && line <= sk->v[i].last && strcmp(sk->v[i].file, file) == 0)
			return true;
	return false;
}

/* The names a header #defines or #undefs in its active lines. */
static void scan_defined(struct pch_entry *pe, const char *t, size_t n, const skipvec *sk, const char *file)
{
	unsigned lineno = 0;
	for (size_t i = 0; i < n;) {
		lineno++;
		size_t e = i;
		while (e < n && t[e] != '\n')
			e++;
		size_t p = i;
		while (p < e && (t[p] == ' ' || t[p] == '\t'))
			p++;
		if (p < e && t[p] == '#' && !line_skipped(sk, file, lineno)) {
			p++;
			while (p < e && (t[p] == ' ' || t[p] == '\t'))
				p++;
			size_t w = p;
			while (w < e && id_char(t[w]))
				w++;
			if ((w - p == 6 && strncmp(t + p, "define", 6) == 0) ||
			    (w - p == 5 && strncmp(t + p, "undef", 5) == 0)) {
				while (w < e && (t[w] == ' ' || t[w] == '\t'))
					w++;
				size_t q = w;
				while (q < e && id_char(t[q]))
					q++;
				if (q > w && q - w < 256) {
					idset_add(&pe->ident_set, t + w, q - w);
					idset_add(&pe->defined_set, t + w, q - w);
				}
			}
		}
		i = e + 1;
	}
}

static void scan_idents(struct pch_entry *pe, const char *t, size_t n, const skipvec *sk, const char *file)
{
	scan_defined(pe, t, n, sk, file);
	for (size_t i = 0; i < n;) {
		if (!id_start(t[i]) || (i > 0 && id_char(t[i - 1]))) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < n && id_char(t[j]))
			j++;
		if (j - i < 256)
			idset_add(&pe->ident_set, t + i, j - i);
		i = j;
	}
}

/* The identifiers of every file the preamble includes, the virtual ones
 * (the buildless extconf.h) from their text. */
static bool collect_idents(struct pch_entry *pe, const strlist *files, const struct parse_opts *o, const char *hdr,
			   const skipvec *sk)
{
	scan_idents(pe, pe->prelude, strlen(pe->prelude), NULL, hdr);
	for (size_t i = 0; i < files->n; i++) {
		const char *f = files->v[i];
		if (strcmp(f, hdr) == 0)
			continue;
		bool done = false;
		for (unsigned k = 0; k < o->nvirtual && !done; k++)
			if (strcmp(o->virtual_files[k].Filename, f) == 0) {
				scan_idents(pe, o->virtual_files[k].Contents, o->virtual_files[k].Length, sk, f);
				done = true;
			}
		if (done)
			continue;
		size_t len = 0;
		char *t = read_file(f, &len, MAX_SOURCE_BYTES);
		if (!t)
			return false;
		scan_idents(pe, t, len, sk, f);
		free(t);
	}
	return true;
}

static char *build(struct pch_set *ps, struct pch_entry *pe, CXIndex idx, const struct tu_job *job,
		   const char *const *args, size_t nargs, const char *const *extra, size_t nextra,
		   const struct parse_opts *o, const char *key)
{
	char *hdr = xasprintf("%s/prelude-%s.h", ps->dir, key);
	char *out = xasprintf("%s/prelude-%s.pch", ps->dir, key);
	VEC(const char *) argv = {0};
	for (size_t i = 0; i < nargs; i++)
		vec_push(&argv, args[i]);
	for (size_t i = 0; i < nextra; i++)
		vec_push(&argv, extra[i]);
	vec_push(&argv, "-x");
	vec_push(&argv, job->cxx ? "c++-header" : "c-header");
	VEC(struct CXUnsavedFile) uf = {0};
	struct CXUnsavedFile pre = {hdr, pe->prelude, (unsigned long)strlen(pe->prelude)};
	vec_push(&uf, pre);
	for (unsigned i = 0; i < o->nvirtual; i++)
		vec_push(&uf, o->virtual_files[i]);
	CXTranslationUnit tu = NULL;
	/* the open guard (prescan.h): a refused open leaves no preamble; the
	 * file's own parse then meets the same refusal */
	unsigned long guard = prescan_guard_arm();
	enum CXErrorCode e =
		clang_parseTranslationUnit2(idx, hdr, argv.v, (int)argv.n, uf.v, (unsigned)uf.n,
					    CXTranslationUnit_ForSerialization | CXTranslationUnit_Incomplete |
						    CXTranslationUnit_DetailedPreprocessingRecord,
					    &tu);
	char *refused = prescan_guard_disarm(guard, NULL, NULL);
	bool ok = e == CXError_Success && tu && !refused;
	free(refused);
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
		/* a #define in an inactive branch (#undef _WIN32 under #ifdef _WIN32)
		 * is not one of the preamble's macros */
		skipvec sk = {0};
		strlist skfiles = {0};
		CXSourceRangeList *rl = clang_getAllSkippedRanges(tu);
		for (unsigned i = 0; rl && i < rl->count; i++) {
			CXFile f1 = NULL;
			unsigned l1 = 0, l2 = 0;
			clang_getSpellingLocation(clang_getRangeStart(rl->ranges[i]), &f1, &l1, NULL, NULL);
			clang_getSpellingLocation(clang_getRangeEnd(rl->ranges[i]), NULL, &l2, NULL, NULL);
			if (!f1)
				continue;
			CXString fn = clang_getFileName(f1);
			const char *name = clang_getCString(fn);
			if (name) {
				char *copy = xstrdup(name);
				vec_push(&skfiles, copy);
				/* the #if/#else line itself stays; the lines inside are skipped */
				struct skipped x = {copy, l1 + 1, l2 > l1 ? l2 - 1 : l1};
				vec_push(&sk, x);
			}
			clang_disposeString(fn);
		}
		if (rl)
			clang_disposeSourceRangeList(rl);
		pe->idents_known = collect_idents(pe, &tc.files, o, hdr, &sk);
		idset_seal(&pe->ident_set);
		idset_seal(&pe->defined_set);
		vec_free(&sk);
		strlist_free(&skfiles);
		strlist_free(&tc.dirs);
		strlist_free(&tc.files);
	}
	if (ok && clang_saveTranslationUnit(tu, out, clang_defaultSaveOptions(tu)) != CXSaveError_None)
		ok = false;
	if (tu)
		clang_disposeTranslationUnit(tu);
	vec_free(&argv);
	vec_free(&uf);
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

/* The entry for args, built if it is new; waits while another thread builds
 * it. Called and returns with ps->lock held. */
static struct pch_entry *entry_for(struct pch_set *ps, CXIndex idx, const struct tu_job *job, const char *const *args,
				   size_t nargs, const char *const *extra, size_t nextra, const struct parse_opts *o,
				   const char *prelude, bool *built)
{
	char *key = pch_key(job, args, nargs, prelude);
	struct pch_entry *pe = hmap_get(&ps->by_key, key);
	if (!pe) {
		pe = xcalloc(1, sizeof(*pe));
		pe->state = PCH_BUILDING;
		pe->prelude = xstrdup(prelude);
		vec_push(&ps->keys, key);
		hmap_put(&ps->by_key, key, pe);
		char *mine = xstrdup(key); /* ps->keys may grow while we build */
		key = NULL;                /* owned by ps->keys */
		pthread_mutex_unlock(&ps->lock);
		char *path = build(ps, pe, idx, job, args, nargs, extra, nextra, o, mine);
		free(mine);
		pthread_mutex_lock(&ps->lock);
		pe->path = path;
		pe->state = path ? PCH_READY : PCH_FAILED;
		if (path) {
			ps->n++;
			*built = true;
			if (strcmp(prelude, PRELUDE) != 0)
				log_verbose(2, "%s: a preamble with system headers besides Ruby's", job->display);
			if (log_verbosity >= 3)
				for (size_t i = 0; i < nargs; i++)
					if (args[i][0] == '-' && (args[i][1] == 'D' || args[i][1] == 'U'))
						log_verbose(3, "preamble %s: %s", pe->path, args[i]);
		} else
			log_verbose(2, "no precompiled Ruby headers for %s's arguments", job->display);
		pthread_cond_broadcast(&ps->built);
	} else {
		while (pe->state == PCH_BUILDING)
			pthread_cond_wait(&ps->built, &ps->lock);
	}
	free(key);
	return pe;
}

/* The macro name of a -D/-U argument (args[i], maybe with its value in
 * args[i + 1]); *used is how many arguments it takes. NULL for others. */
static char *macro_arg(const char *const *args, size_t nargs, size_t i, size_t *used)
{
	const char *a = args[i];
	if (!(a[0] == '-' && (a[1] == 'D' || a[1] == 'U')))
		return NULL;
	const char *v = a + 2;
	*used = 1;
	if (!*v) {
		if (i + 1 >= nargs)
			return NULL;
		v = args[i + 1];
		*used = 2;
	}
	size_t n = strcspn(v, "=(");
	char *name = xmalloc(n + 1);
	memcpy(name, v, n);
	name[n] = '\0';
	return name;
}

/* What the file's lines before ruby.h test must not be a macro of the
 * preamble, and what they define must not appear in it; nor may its
 * directory shadow one of the preamble's headers. Under ps->lock. */
/* The same for the second preamble (a project header's system includes). */
static bool block_fits(struct pch_entry *pe, const struct prefix *pre, const struct tu_job *job)
{
	const char *why = NULL, *name = NULL;
	for (size_t i = 0; !why && pre && i < pre->conds.n; i++)
		if (!pe->idents_known || idset_has(&pe->defined_set, pre->conds.v[i]))
			why = "tests", name = pre->conds.v[i];
	for (size_t i = 0; !why && pre && i < pre->defs.n; i++)
		if (!pe->idents_known || idset_has(&pe->ident_set, pre->defs.v[i]))
			why = "defines", name = pre->defs.v[i];
	if (!why && job->directory && shadows_tail(pe, job->directory))
		why = "its directory holds", name = "a header";
	if (why)
		log_verbose(2, "%s: %s %s, which its project header's system includes mention; Ruby's headers alone",
			    job->display, why, name);
	return !why;
}

static bool prefix_fits(struct pch_entry *pe, const struct prefix *pre, const struct tu_job *job)
{
	for (size_t i = 0; pre && i < pre->conds.n; i++)
		if (!pe->idents_known || idset_has(&pe->defined_set, pre->conds.v[i])) {
			log_verbose(2,
				    "%s: tests %s, a macro of Ruby's headers, before including them; parsed without "
				    "the preamble",
				    job->display, pre->conds.v[i]);
			return false;
		}
	for (size_t i = 0; pre && i < pre->defs.n; i++)
		if (!pe->idents_known || idset_has(&pe->ident_set, pre->defs.v[i])) {
			log_verbose(2,
				    "%s: defines %s, which Ruby's headers use, before including them; parsed without "
				    "the preamble",
				    job->display, pre->defs.v[i]);
			return false;
		}
	if (job->directory && shadows_tail(pe, job->directory)) {
		log_verbose(
			2,
			"%s: its directory holds a header Ruby's headers include; parsed without the shared preamble",
			job->display);
		return false;
	}
	return true;
}

/* A -D or -U whose name is not among the preamble's identifiers cannot change
 * it, so files that differ only in such defines (the HAVE_* of each
 * extconf.rb) share one preamble: it is built from the arguments without
 * those defines, and each file's parse still passes all of its own. */
static const char *lookup(struct pch_set *ps, CXIndex idx, const struct tu_job *job, const char *const *args,
			  size_t nargs, const char *const *extra, size_t nextra, const struct parse_opts *o,
			  const struct prefix *pre, const char *prelude, bool *built)
{
	*built = false;
	for (size_t i = 0; i < nargs; i++)
		if (strcmp(args[i], "-include") == 0 || strcmp(args[i], "-imacros") == 0 ||
		    str_starts(args[i], "-include-pch") || strcmp(args[i], "-include-pth") == 0)
			return NULL; /* something before the file's first line */
	char *own = job->directory ? xasprintf("-I%s", job->directory) : NULL;
	VEC(const char *) rest = {0};
	VEC(const char *) defs = {0}; /* the -D/-U arguments, joined */
	strlist names = {0};          /* their macro names, parallel */
	strlist joined = {0};
	for (size_t i = 0; i < nargs; i++) {
		size_t used = 0;
		char *name = macro_arg(args, nargs, i, &used);
		if (name) {
			char *j = used == 2 ? xasprintf("%s%s", args[i], args[i + 1]) : xstrdup(args[i]);
			vec_push(&joined, j);
			vec_push(&defs, j);
			vec_push(&names, name);
			i += used - 1;
			continue;
		}
		if (own && strcmp(args[i], own) == 0)
			continue; /* checked against the preamble's headers below */
		vec_push(&rest, args[i]);
	}

	/* the same arguments as an earlier file: its preamble. Otherwise the
	 * defines the first preamble of these other arguments mentions, and a
	 * preamble with only those. */
	size_t n0 = rest.n;
	for (size_t i = 0; i < defs.n; i++)
		vec_push(&rest, defs.v[i]);
	char *full_key = pch_key(job, rest.v, rest.n, prelude);
	rest.n = n0;
	char *rest_key = pch_key(job, rest.v, rest.n, prelude);
	struct pch_entry *pe = NULL;
	pthread_mutex_lock(&ps->lock);
	struct pch_entry *src = hmap_get(&ps->by_rest, rest_key);
	if (src)
		while (src->state == PCH_BUILDING)
			pthread_cond_wait(&ps->built, &ps->lock);
	if (hmap_has(&ps->by_key, full_key) || !src || src->state != PCH_READY || !src->idents_known) {
		for (size_t i = 0; i < defs.n; i++)
			vec_push(&rest, defs.v[i]);
		pe = entry_for(ps, idx, job, rest.v, rest.n, extra, nextra, o, prelude, built);
		rest.n = n0;
		if (!hmap_has(&ps->by_rest, rest_key)) {
			vec_push(&ps->keys, rest_key);
			hmap_put(&ps->by_rest, rest_key, pe);
			rest_key = NULL;
		}
	} else {
		bool dropped = false;
		for (size_t i = 0; i < defs.n; i++)
			if (idset_has(&src->ident_set, names.v[i]))
				vec_push(&rest, defs.v[i]);
			else
				dropped = true;
		pe = entry_for(ps, idx, job, rest.v, rest.n, extra, nextra, o, prelude, built);
		rest.n = n0;
		/* the defines it was built with may pull in headers that mention
		 * a define it was built without */
		for (size_t i = 0; dropped && i < defs.n && pe->state == PCH_READY; i++)
			if (!idset_has(&src->ident_set, names.v[i]) &&
			    (!pe->idents_known || idset_has(&pe->ident_set, names.v[i]))) {
				log_verbose(2, "%s: the preamble for its defines mentions %s; parsed without it",
					    job->display, names.v[i]);
				pe = NULL;
				break;
			}
	}
	free(full_key);
	free(rest_key);
	bool ruby_only = strcmp(prelude, PRELUDE) == 0;
	const char *r =
		pe && pe->state == PCH_READY && (ruby_only ? prefix_fits(pe, pre, job) : block_fits(pe, pre, job))
			? pe->path
			: NULL;
	pthread_mutex_unlock(&ps->lock);
	vec_free(&rest);
	vec_free(&defs);
	strlist_free(&names);
	strlist_free(&joined);
	free(own);
	return r;
}

/* Whether a second file asks for this preamble with these arguments (one
 * file alone does not pay for a preamble of its own). */
static bool wanted(struct pch_set *ps, const struct tu_job *job, const char *const *args, size_t nargs,
		   const char *prelude)
{
	char *key = pch_key(job, args, nargs, prelude);
	pthread_mutex_lock(&ps->lock);
	uintptr_t n = (uintptr_t)hmap_get(&ps->wanted, key);
	if (!n) {
		vec_push(&ps->keys, key);
		hmap_put(&ps->wanted, key, (void *)(uintptr_t)1);
		key = NULL;
	} else if (n < 2) {
		hmap_put(&ps->wanted, key, (void *)(uintptr_t)(n + 1));
	}
	pthread_mutex_unlock(&ps->lock);
	free(key);
	return n >= 1;
}

/* A file whose ruby.h comes from a project header shared by the gem's files
 * (ossl.h) gets a preamble that also holds the system headers that header
 * includes right after ruby.h, when a second file asks for the same lines with
 * the same arguments: the same checks as for Ruby's headers alone apply to
 * it (the file's lines before ruby.h, its directory, the -D/-U it mentions).
 * If it cannot be built, Ruby's headers alone. A file that includes system
 * headers before ruby.h (ossl.h's <assert.h>) has them, in order, ahead of
 * ruby.h in every preamble it may use, and shares one with a second file
 * only: none for the first. */
const char *pch_for(struct pch_set *ps, CXIndex idx, const struct tu_job *job, const char *const *args, size_t nargs,
		    const char *const *extra, size_t nextra, const struct parse_opts *o,
		    const struct pch_prefix *prefix, bool *built)
{
	*built = false;
	if (!ps)
		return NULL;
	const struct prefix *pre = (const struct prefix *)prefix;
	const char *head = pre && pre->head ? pre->head : "";
	const char *r = NULL;
	if (pre && pre->block && !ps->no_blocks) {
		char *prelude = xasprintf("%s%s%s", head, PRELUDE, pre->block);
		if (wanted(ps, job, args, nargs, prelude))
			r = lookup(ps, idx, job, args, nargs, extra, nextra, o, pre, prelude, built);
		free(prelude);
		if (r) {
			log_verbose(2, "%s: Ruby's headers and its project header's system includes from one preamble",
				    job->display);
			return r;
		}
	}
	char *prelude = xasprintf("%s%s", head, PRELUDE);
	bool b = false;
	if (!*head || wanted(ps, job, args, nargs, prelude))
		r = lookup(ps, idx, job, args, nargs, extra, nextra, o, pre, prelude, &b);
	free(prelude);
	*built = *built || b;
	return r;
}
