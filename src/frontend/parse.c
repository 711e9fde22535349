/* parse.c: parses translation units with libclang on N worker threads (one
 * CXIndex per worker), extracts facts and disposes each TU at once.
 *
 * Before a file is parsed, its arguments are checked once on an empty probe
 * file (cached by argument vector): arguments clang rejects ("unknown
 * argument: '-fno-allow-store-data-races'", GCC-only flags from mkmf) are
 * dropped and recorded in tu->dropped_flags, and an argument that makes the
 * driver fail outright (no translation unit at all) is found by bisection.
 *
 * Files that do not parse get up to three recovery rounds: clang's "unknown
 * type name" and "undeclared identifier" diagnostics become stub declarations
 * in a virtual header that is force-included on the next parse. Stubbed names
 * never produce findings by themselves (their origin is ORIGIN_STUB).
 */
#include "parse.h"
#include "schedule.h"
#include "sysprobe.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "cache.h"
#include "flags.h"
#include "isolate.h"
#include "pch.h"
#include "gvlapi.h"
#include "log.h"
#include "outguard.h"
#include "prescan.h"
#include "sigclean.h"

#define STUB_DIR "/nogvl-lint-stubs"

void tu_job_free(struct tu_job *j)
{
	free(j->file);
	free(j->display);
	free(j->build_probe);
	free(j->directory);
	for (size_t i = 0; i < j->args.n; i++)
		free(j->args.v[i]);
	vec_free(&j->args);
	for (size_t i = 0; i < j->dropped.n; i++)
		free(j->dropped.v[i]);
	vec_free(&j->dropped);
}

static struct tu_facts *new_facts(const struct tu_job *job)
{
	struct tu_facts *tu = xcalloc(1, sizeof(*tu));
	tu->path = intern(&tu->pool, job->file);
	tu->display = intern(&tu->pool, job->display ? job->display : job->file);
	tu->buildless = job->buildless;
	tu->cxx = job->cxx;
	for (size_t i = 0; i < job->dropped.n; i++)
		vec_push(&tu->dropped_flags, intern(&tu->pool, job->dropped.v[i]));
	return tu;
}

static void fail(struct tu_facts *tu, const char *reason)
{
	tu->status = TU_FAILED;
	tu->fail_reason = intern(&tu->pool, reason);
}

static bool looks_binary(const char *text, size_t len)
{
	size_t n = len < 8192 ? len : 8192;
	return memchr(text, '\0', n) != NULL;
}

/* The names clang could not resolve, with the kind of stub each needs. */
struct stub_set {
	struct hmap names; /* name -> kind (1 = type by value, 2 = opaque struct, 3 = constant, 4 = function) */
	struct strpool pool;
	unsigned next_value;
};

static bool is_ident(const char *s)
{
	if (!s || !*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return false;
	return true;
}

/* Extracts 'name' from a message like "unknown type name 'foo'". */
static const char *quoted_name(struct stub_set *st, const char *msg)
{
	const char *a = strchr(msg, '\'');
	if (!a)
		return NULL;
	const char *b = strchr(a + 1, '\'');
	if (!b || b == a + 1)
		return NULL;
	const char *n = intern_n(&st->pool, a + 1, (size_t)(b - a - 1));
	return is_ident(n) ? n : NULL;
}

/* Looks at the token after the unknown name to choose the stub kind. */
static int type_stub_kind(CXTranslationUnit ctu, CXDiagnostic d)
{
	CXSourceLocation l = clang_getDiagnosticLocation(d);
	CXFile f;
	unsigned off;
	clang_getFileLocation(l, &f, NULL, NULL, &off);
	if (!f)
		return 1;
	size_t size = 0;
	const char *text = clang_getFileContents(ctu, f, &size);
	if (!text || off >= size)
		return 1;
	size_t i = off;
	while (i < size && (text[i] == '_' || (text[i] >= 'a' && text[i] <= 'z') ||
			    (text[i] >= 'A' && text[i] <= 'Z') || (text[i] >= '0' && text[i] <= '9')))
		i++;
	while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	return i < size && text[i] == '*' ? 2 : 1;
}

static bool has_lower(const char *s)
{
	for (; *s; s++)
		if (*s >= 'a' && *s <= 'z')
			return true;
	return false;
}

static unsigned collect_stubs(CXTranslationUnit ctu, struct stub_set *st)
{
	unsigned added = 0;
	unsigned n = clang_getNumDiagnostics(ctu);
	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(ctu, i);
		if (clang_getDiagnosticSeverity(d) < CXDiagnostic_Error) {
			clang_disposeDiagnostic(d);
			continue;
		}
		CXString s = clang_getDiagnosticSpelling(d);
		const char *msg = clang_getCString(s);
		int kind = 0;
		if (str_starts(msg, "unknown type name "))
			kind = type_stub_kind(ctu, d);
		else if (str_starts(msg, "use of undeclared identifier "))
			kind = 3; /* refined below by spelling */
		if (kind) {
			const char *name = quoted_name(st, msg);
			/* an undeclared lower-case name is most likely a library function used
			 * as a value ((void *(*)(void *))lib_fn); ALL_CAPS ones are constants */
			if (kind == 3 && name && has_lower(name))
				kind = 4;
			if (name && !hmap_has(&st->names, name) && !gvl_api_is_name(name)) {
				hmap_put(&st->names, name, (void *)(uintptr_t)kind);
				added++;
			}
		}
		clang_disposeString(s);
		clang_disposeDiagnostic(d);
	}
	return added;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *render_stubs(struct stub_set *st)
{
	VEC(const char *) names = {0};
	hmap_foreach(&st->names, e) vec_push(&names, e->key);
	xqsort(names.v, names.n, sizeof(*names.v), name_cmp);
	struct strbuf sb = {0};
	sb_puts(&sb, "/* nogvl-lint recovery stubs for names clang could not resolve */\n");
	unsigned value = 1000001;
	for (size_t i = 0; i < names.n; i++) {
		int kind = (int)(uintptr_t)hmap_get(&st->names, names.v[i]);
		if (kind == 1)
			sb_printf(&sb, "typedef long %s;\n", names.v[i]);
		else if (kind == 2)
			sb_printf(&sb, "typedef struct nogvl_stub_%s %s;\n", names.v[i], names.v[i]);
		else if (kind == 4)
			sb_printf(&sb, "int %s();\n", names.v[i]);
		else
			sb_printf(&sb, "enum { %s = %u };\n", names.v[i], value++);
	}
	vec_free(&names);
	return sb_detach(&sb);
}

static unsigned count_errors(CXTranslationUnit ctu, struct tu_facts *tu, bool keep)
{
	unsigned errors = 0, warnings = 0;
	unsigned n = clang_getNumDiagnostics(ctu);
	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(ctu, i);
		enum CXDiagnosticSeverity sev = clang_getDiagnosticSeverity(d);
		if (sev >= CXDiagnostic_Error)
			errors++;
		else if (sev == CXDiagnostic_Warning)
			warnings++;
		bool want = keep && sev >= CXDiagnostic_Error && tu->diags.n < 20;
		if (keep && sev >= CXDiagnostic_Error && !want && tu->diags.n < 120) {
			/* every missing header is kept (issue 14: they are named) */
			CXString s0 = clang_getDiagnosticSpelling(d);
			char *name = missing_header_name(clang_getCString(s0));
			want = name != NULL;
			free(name);
			clang_disposeString(s0);
		}
		if (want) {
			struct diag dg = {0};
			dg.severity = (uint8_t)sev;
			CXFile f;
			unsigned line, col, off;
			clang_getFileLocation(clang_getDiagnosticLocation(d), &f, &line, &col, &off);
			if (f) {
				CXString fs = clang_getFileName(f);
				dg.loc.file = intern(&tu->pool, clang_getCString(fs) ? clang_getCString(fs) : "");
				clang_disposeString(fs);
			}
			dg.loc.line = line;
			dg.loc.col = col;
			dg.loc.off = off;
			CXString s = clang_getDiagnosticSpelling(d);
			dg.msg = intern(&tu->pool, clang_getCString(s) ? clang_getCString(s) : "");
			clang_disposeString(s);
			vec_push(&tu->diags, dg);
		}
		clang_disposeDiagnostic(d);
	}
	if (keep) {
		tu->nerrors = errors;
		tu->nwarnings = warnings;
	}
	return errors;
}

/* Does the file mention a release API (worth the cost of recovery)? */
static bool mentions_release_api(const char *text)
{
	for (unsigned i = 0; i < gvl_napis; i++)
		if (strstr(text, gvl_apis[i].name))
			return true;
	return strstr(text, "without_gvl") || strstr(text, "nogvl") || strstr(text, "blocking_region");
}

static const char *const extra_clang_args[] = {
	"-ferror-limit=0",
	"-w", /* warnings are not our business; errors are counted */
	"-Wno-error=implicit-function-declaration",
	"-Wno-error=implicit-int",
	"-Wno-error=int-conversion",
	"-Wno-error=incompatible-function-pointer-types",
	"-Wno-error=incompatible-pointer-types",
};

typedef VEC(const char *) argvec;

/* Whether a parse has an error naming the refused file (a refused open
 * leaves one where it is; with parses on several threads, the refusal may be
 * another's). */
static bool names_refused(const char *path, void *ctx)
{
	CXTranslationUnit ctu = ctx;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	bool hit = false;
	unsigned n = ctu ? clang_getNumDiagnostics(ctu) : 0;
	for (unsigned i = 0; i < n && !hit; i++) {
		CXDiagnostic d = clang_getDiagnostic(ctu, i);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString sp = clang_getDiagnosticSpelling(d);
			const char *t = clang_getCString(sp);
			hit = t && strstr(t, base);
			clang_disposeString(sp);
		}
		clang_disposeDiagnostic(d);
	}
	return hit;
}

static CXTranslationUnit do_parse(CXIndex idx, const struct tu_job *job, const argvec *args, const struct parse_opts *o,
				  struct prescan *ps, const char *stub_path, const char *stub_text, const char *pch,
				  enum CXErrorCode *err)
{
	argvec argv = {0};
	for (size_t i = 0; i < args->n; i++)
		vec_push(&argv, args->v[i]);
	for (size_t i = 0; i < ARRAY_SIZE(extra_clang_args); i++)
		vec_push(&argv, extra_clang_args[i]);
	if (pch) {
		vec_push(&argv, "-include-pch");
		vec_push(&argv, pch);
	}
	VEC(struct CXUnsavedFile) unsaved = {0};
	for (unsigned i = 0; i < o->nvirtual; i++)
		vec_push(&unsaved, o->virtual_files[i]);
	for (size_t i = 0; ps && i < ps->overrides.n; i++)
		vec_push(&unsaved, ps->overrides.v[i]);
	if (stub_text) {
		vec_push(&argv, "-include");
		vec_push(&argv, stub_path);
		struct CXUnsavedFile u = {stub_path, stub_text, strlen(stub_text)};
		vec_push(&unsaved, u);
	}
	unsigned flags = CXTranslationUnit_DetailedPreprocessingRecord | CXTranslationUnit_KeepGoing;
	CXTranslationUnit ctu = NULL;
	/* what libclang opens is looked at as it opens it (prescan.h) */
	unsigned long guard = prescan_guard_arm();
	*err = clang_parseTranslationUnit2(idx, job->file, argv.v, (int)argv.n, unsaved.v, (unsigned)unsaved.n, flags,
					   &ctu);
	char *refused = prescan_guard_disarm(guard, names_refused, ctu);
	static atomic_bool said;
	if (!prescan_guard_effective() && !atomic_exchange(&said, true))
		log_verbose(1, "the open guard saw no file opened by libclang: includes named through macros are "
			       "bounded by --memory-limit and the time limits only");
	if (refused && ps && !ps->refused)
		ps->refused = xasprintf("%s %s", job->display ? job->display : job->file, refused);
	free(refused);
	vec_free(&argv);
	vec_free(&unsaved);
	return ctu;
}

static void hash_project_files(CXTranslationUnit ctu, struct tu_facts *tu, const struct file_classifier *fc);

/* A diagnostic about the precompiled header itself (a mismatch with the
 * file's options, an unreadable file). */
static bool pch_trouble(CXTranslationUnit ctu)
{
	bool bad = false;
	unsigned n = clang_getNumDiagnostics(ctu);
	for (unsigned i = 0; i < n && !bad; i++) {
		CXDiagnostic d = clang_getDiagnostic(ctu, i);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString s = clang_getDiagnosticSpelling(d);
			const char *m = clang_getCString(s);
			bad = m && (strstr(m, "precompiled") || strstr(m, "PCH") || strstr(m, ".pch"));
			clang_disposeString(s);
		}
		clang_disposeDiagnostic(d);
	}
	return bad;
}

/* The file's text, or NULL with tu failed: unreadable, binary, or its
 * compile directory missing. */
static char *read_source(const struct tu_job *job, struct tu_facts *tu, size_t *len)
{
	char *text = read_file(job->file, len, MAX_SOURCE_BYTES);
	if (!text) {
		char *why = xasprintf("cannot read: %s", strerror(errno));
		fail(tu, why);
		free(why);
		return NULL;
	}
	if (looks_binary(text, *len)) {
		fail(tu, "not a C source file (binary content)");
		free(text);
		return NULL;
	}
	if (job->directory && *job->directory && !path_is_dir(job->directory)) {
		char *why = xasprintf("compile directory %s does not exist", job->directory);
		fail(tu, why);
		free(why);
		free(text);
		return NULL;
	}
	return text;
}

/* The arguments, without those clang rejects (recorded in tu). */
static void usable_args(void *cxindex, const struct tu_job *job, struct flag_cache *fcache, struct tu_facts *tu,
			argvec *args)
{
	struct flag_verdict *owned = NULL;
	const struct flag_verdict *fv = flags_verdict(cxindex, fcache, job->args.v, job->args.n, &owned);
	for (size_t i = 0; i < job->args.n; i++) {
		if (!fv->drop[i]) {
			vec_push(args, job->args.v[i]);
			continue;
		}
		const char *why = fv->why[i] ? fv->why[i] : "rejected by clang";
		char *d = xasprintf("%s (%s)", job->args.v[i], why);
		vec_push(&tu->dropped_flags, intern(&tu->pool, d));
		free(d);
	}
	verdict_free(owned);
}

/* Ruby's headers from the run's shared preamble when nothing before
 * ruby.h can change them (pch.h); NULL for the ordinary way. *pre: what the
 * lines before ruby.h hold, for the check after the parse (the caller frees
 * it). */
static const char *choose_pch(void *cxindex, const struct tu_job *job, const struct parse_opts *o, const char *text,
			      size_t len, const argvec *args, struct tu_facts *tu, struct pch_prefix **pre)
{
	const char *pch = NULL;
	*pre = NULL;
	if (o->pch && !o->no_pch) {
		char *fdir = path_dirname(job->file);
		*pre = pch_dir_shadows(fdir) ? NULL : pch_eligible(text, len, fdir, args->v, args->n);
		bool built = false;
		if (*pre)
			pch = pch_for(o->pch, cxindex, job, args->v, args->n, extra_clang_args,
				      ARRAY_SIZE(extra_clang_args), o, *pre, &built);
		free(fdir);
		tu->pch_built = built;
		tu->pch_use = pch ? PCH_USE_USED : PCH_USE_INELIGIBLE;
	}
	return pch;
}

/* Up to three recovery rounds with stub declarations for the names clang
 * could not resolve; *ctu becomes the last parse that worked. */
static void recover(void *cxindex, const struct tu_job *job, const struct parse_opts *o, const argvec *args,
		    struct prescan *ps, const char *pch, struct tu_facts *tu, CXTranslationUnit *ctu)
{
	char stub_path[512];
	snprintf(stub_path, sizeof(stub_path), STUB_DIR "/%s",
		 o->fc && o->fc->stub_name ? o->fc->stub_name : "stubs.h");
	struct stub_set st = {0};
	char *stub_text = NULL;
	for (unsigned round = 0; round < 3; round++) {
		if (!collect_stubs(*ctu, &st))
			break;
		free(stub_text);
		stub_text = render_stubs(&st);
		enum CXErrorCode e2 = CXError_Success;
		CXTranslationUnit next = do_parse(cxindex, job, args, o, ps, stub_path, stub_text, pch, &e2);
		if (!next || e2 != CXError_Success) {
			if (next)
				clang_disposeTranslationUnit(next);
			break;
		}
		unsigned errs2 = count_errors(next, tu, false);
		clang_disposeTranslationUnit(*ctu);
		*ctu = next;
		tu->stub_rounds = round + 1;
		tu->nstubs = (uint32_t)st.names.n;
		tu->degraded = 1;
		if (!errs2)
			break;
	}
	free(stub_text);
	hmap_free(&st.names);
	strpool_free(&st.pool);
}

/* Why libclang gave no translation unit. */
static const char *parse_failure(enum CXErrorCode err)
{
	return err == CXError_Crashed            ? "libclang crashed while parsing"
	       : err == CXError_ASTReadError     ? "libclang could not read the AST"
	       : err == CXError_InvalidArguments ? "libclang rejected the arguments"
						 : "libclang could not parse the file";
}

static struct tu_facts *parse_one_cached(void *cxindex, const struct tu_job *job, const struct parse_opts *o,
					 struct flag_cache *fcache)
{
	struct tu_facts *tu = new_facts(job);
	double t0 = now_seconds();
	size_t len = 0;
	char *text = read_source(job, tu, &len);
	if (!text)
		return tu;
	argvec args = {0};
	usable_args(cxindex, job, fcache, tu, &args);

	/* includes of devices, FIFOs, /proc: refused before libclang opens
	 * them; debug pragmas neutralised (prescan.h) */
	struct prescan ps;
	prescan_run(&ps, job->file, text, len, (char *const *)args.v, args.n, o->fc ? o->fc->ruby_dirs : NULL,
		    o->fc ? o->fc->nruby_dirs : 0);
	CXTranslationUnit ctu = NULL;
	bool parsed = false;
	if (ps.refused) {
		fail(tu, ps.refused);
		goto done;
	}
	struct pch_prefix *pre = NULL;
	const char *pch = choose_pch(cxindex, job, o, text, len, &args, tu, &pre);
	enum CXErrorCode err = CXError_Success;
	ctu = do_parse(cxindex, job, &args, o, &ps, NULL, NULL, pch, &err);
	bool read_cond = pch && ctu && err == CXError_Success && !pch_prefix_skipped(pre, ctu, job->file);
	if (read_cond)
		log_verbose(2, "%s: an #include in a conditional before ruby.h was read; parsed without the preamble",
			    job->display);
	pch_prefix_free(pre);
	if (pch && (!ctu || err != CXError_Success || read_cond || pch_trouble(ctu))) {
		/* the preamble did not fit after all: the ordinary way */
		if (ctu)
			clang_disposeTranslationUnit(ctu);
		pch = NULL;
		tu->pch_use = PCH_USE_FELL_BACK;
		ctu = do_parse(cxindex, job, &args, o, &ps, NULL, NULL, NULL, &err);
	}
	if (ps.refused) {
		/* an include the pre-scan could not resolve, refused as libclang
		 * opened it: nothing of this parse is used */
		fail(tu, ps.refused);
		goto done;
	}
	if (!ctu || err != CXError_Success) {
		fail(tu, parse_failure(err));
		goto done;
	}
	unsigned errors = count_errors(ctu, tu, false);
	if (errors && o->recover && mentions_release_api(text)) {
		recover(cxindex, job, o, &args, &ps, pch, tu, &ctu);
		if (ps.refused) {
			fail(tu, ps.refused);
			goto done;
		}
	}
	count_errors(ctu, tu, true);
	tu->status = tu->nerrors ? TU_ERRORS : TU_OK;

	extract_tu(ctu, tu, o->fc);
	extract_token_sites(ctu, tu);
	scan_pp_conds(tu, text, len);
	hash_project_files(ctu, tu, o->fc);
	parsed = true;
done:
	if (ctu)
		clang_disposeTranslationUnit(ctu);
	free(text);
	vec_free(&args);
	prescan_free(&ps);
	if (parsed)
		tu->parse_seconds = now_seconds() - t0;
	return tu;
}

/* What the facts take from the job, not from the parse (so neither the cache
 * nor a parser process carries it). */
static struct tu_facts *with_job_info(struct tu_facts *tu, const struct tu_job *job)
{
	if (tu && job->build_probe)
		tu->build_probe = intern(&tu->pool, job->build_probe);
	return tu;
}

/* parse_one's verdicts on compiler arguments, kept for the process's life: a
 * parser process (isolate.c) checked every file's arguments with a probe
 * parse of an empty file, though a gem's files share them (0.6 s of 359
 * files' 19 s). */
static struct flag_cache one_flags = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct tu_facts *parse_one(void *cxindex, const struct tu_job *job, const struct parse_opts *o)
{
	return with_job_info(parse_one_cached(cxindex, job, o, &one_flags), job);
}

void parse_one_done(void)
{
	flag_cache_free(&one_flags);
	memset(&one_flags, 0, sizeof(one_flags));
	pthread_mutex_init(&one_flags.lock, NULL);
}

struct incl_ctx {
	struct tu_facts *tu;
	const struct file_classifier *fc;
	CXTranslationUnit ctu;
};

static void incl_cb(CXFile f, CXSourceLocation *stack, unsigned depth, CXClientData d)
{
	struct incl_ctx *c = d;
	CXString s = clang_getFileName(f);
	const char *name = clang_getCString(s);
	if (name && *name) {
		char *abs = path_absolute(name);
		bool is_main = strcmp(abs, c->tu->path) == 0;
		if (is_main || classify_path(c->fc, abs) == ORIGIN_PROJECT) {
			size_t size = 0;
			const char *text = clang_getFileContents(c->ctu, f, &size);
			struct tu_file tf = {0};
			tf.path = intern(&c->tu->pool, abs);
			tf.hash = text ? XXH3_64bits(text, size) : 0;
			tf.is_main = is_main;
			vec_push(&c->tu->files, tf);
			if (!is_main && text)
				scan_pp_defines(c->tu, tf.path, text, size);
		}
		free(abs);
	}
	clang_disposeString(s);
}

static void hash_project_files(CXTranslationUnit ctu, struct tu_facts *tu, const struct file_classifier *fc)
{
	struct incl_ctx c = {tu, fc, ctu};
	clang_getInclusions(ctu, incl_cb, &c);
}

/* ---- worker pool ---- */

struct pool {
	struct tu_job *jobs;
	size_t n;
	const struct parse_opts *o;
	struct tu_facts **out;
	atomic_size_t next;
	atomic_size_t done;
	atomic_uint worker_ids;
	struct job_sched *sched; /* with more than one worker */
	pthread_mutex_t progress_lock;
	struct flag_cache flags;
};

/* The index is created on the first parse in this process: with parser
 * processes this one never loads libclang (clang_api.h). */
static struct tu_facts *parse_here(CXIndex *idx, const struct tu_job *job, const struct parse_opts *o,
				   struct flag_cache *flags, struct worker_proc *proc)
{
	if (o->tu_timeout > 0 && isolate_available())
		return isolate_parse(proc, job, o);
	/* excludeDeclarationsFromPCH: walking a file's declarations does not
	 * load every declaration of the shared Ruby-header preamble (pch.h) */
	if (!*idx)
		*idx = clang_createIndex(1, 0);
	return parse_one_cached(*idx, job, o, flags);
}

/* The facts cache first (--cache), then a parse whose facts are stored. */
static struct tu_facts *parse_or_reuse(CXIndex *idx, const struct tu_job *job, const struct parse_opts *o,
				       struct flag_cache *flags, struct worker_proc *proc)
{
	if (!o->cache)
		return parse_here(idx, job, o, flags, proc);
	size_t len = 0;
	char *text = read_file(job->file, &len, MAX_SOURCE_BYTES);
	struct tu_facts *tu = NULL;
	uint64_t key = 0;
	if (text) {
		key = cache_key(o->cache, job, text, len);
		tu = cache_lookup(o->cache, key, job);
	}
	if (!tu) {
		tu = parse_here(idx, job, o, flags, proc);
		if (text)
			cache_store(o->cache, key, job, tu);
	}
	free(text);
	return tu;
}

static void *worker(void *arg)
{
	struct pool *p = arg;
	CXIndex idx = NULL;
	struct worker_proc proc = {0};
	unsigned w = atomic_fetch_add(&p->worker_ids, 1);
	for (;;) {
		size_t i = p->sched ? sched_next(p->sched, w) : atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		if (p->o->deadline > 0 && now_seconds() >= p->o->deadline) {
			/* --time-budget: what is left is said, not silently skipped */
			struct tu_facts *tu = new_facts(&p->jobs[i]);
			fail(tu, "budget: the run's --time-budget ran out before it was parsed");
			p->out[i] = with_job_info(tu, &p->jobs[i]);
		} else {
			p->out[i] =
				with_job_info(parse_or_reuse(&idx, &p->jobs[i], p->o, &p->flags, &proc), &p->jobs[i]);
		}
		size_t d = atomic_fetch_add(&p->done, 1) + 1;
		if (p->o->progress) {
			pthread_mutex_lock(&p->progress_lock);
			p->o->progress(p->o->progress_ctx, d, p->n, p->jobs[i].display);
			pthread_mutex_unlock(&p->progress_lock);
		}
	}
	isolate_stop(&proc);
	if (idx)
		clang_disposeIndex(idx);
	return NULL;
}

struct tu_facts **parse_all(struct tu_job *jobs, size_t n, const struct parse_opts *o_in)
{
	/* the shared Ruby-header preamble lives as long as this call */
	struct parse_opts local = *o_in;
	const struct parse_opts *o = &local;
	/* with --tu-timeout each worker process keeps its own set, below this one */
	if (!local.no_pch && n > 1)
		local.pch = pch_set_new(NULL);
	if (local.pch)
		sigclean_dir(pch_set_dir(local.pch)); /* SIGTERM or SIGINT does not leave it in $TMPDIR */
	struct tu_facts **out = xcalloc(n ? n : 1, sizeof(*out));
	struct pool p = {.jobs = jobs, .n = n, .o = o, .out = out};
	atomic_init(&p.next, 0);
	atomic_init(&p.done, 0);
	atomic_init(&p.worker_ids, 0);
	pthread_mutex_init(&p.progress_lock, NULL);
	pthread_mutex_init(&p.flags.lock, NULL);
	/* parsing here: what libclang prints is relayed, not ours (outguard.h) */
	struct out_guard guard = {0};
	if (!(o->tu_timeout > 0 && isolate_available()))
		out_guard_start(&guard, o->verbose);
	unsigned nt = o->jobs ? o->jobs : 1;
	if (nt > n)
		nt = n ? (unsigned)n : 1;
	if (nt <= 1) {
		worker(&p);
	} else {
		/* the first index registers LLVM's targets (InitializeAllTargets,
		 * whose first registration is not thread-safe): here, before the
		 * workers, not by two of them at once */
		if (!(o->tu_timeout > 0 && isolate_available()))
			clang_disposeIndex(clang_createIndex(1, 0));
		p.sched = sched_new(jobs, n, nt);
		pthread_t *th = xcalloc(nt, sizeof(*th));
		unsigned started = 0;
		for (unsigned i = 0; i < nt; i++) {
			/* libclang parses on its own thread with an 8 MiB stack; ours only walks */
			pthread_attr_t attr;
			pthread_attr_init(&attr);
			pthread_attr_setstacksize(&attr, 16u * 1024 * 1024);
			if (pthread_create(&th[i], &attr, worker, &p) == 0)
				started++;
			else
				th[i] = 0;
			pthread_attr_destroy(&attr);
		}
		if (!started)
			worker(&p);
		for (unsigned i = 0; i < nt; i++)
			if (th[i])
				pthread_join(th[i], NULL);
		free(th);
		sched_free(p.sched);
	}
	out_guard_stop(&guard);
	pthread_mutex_destroy(&p.progress_lock);
	flag_cache_free(&p.flags);
	if (local.pch) {
		unsigned used = 0, back = 0, inel = 0, built = 0;
		for (size_t i = 0; i < n; i++) {
			if (!out[i])
				continue;
			built += out[i]->pch_built;
			used += out[i]->pch_use == PCH_USE_USED;
			back += out[i]->pch_use == PCH_USE_FELL_BACK;
			inel += out[i]->pch_use == PCH_USE_INELIGIBLE;
		}
		if (used + back + inel)
			log_verbose(
				1,
				"precompiled Ruby headers: %u built, %u files used them, %u fell back, %u not eligible",
				built, used, back, inel);
	}
	if (local.pch)
		sigclean_dir(NULL);
	pch_set_free(local.pch);
	for (size_t i = 0; i < n; i++)
		if (!out[i]) {
			out[i] = new_facts(&jobs[i]);
			fail(out[i], "not analysed");
		}
	return out;
}
