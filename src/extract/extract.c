/* extract.c: walks one libclang TU and records facts (facts.h).
 *
 * Only the project's own files are walked: top-level cursors whose location is
 * in a Ruby or system header are skipped before descending, so the cost is
 * proportional to the gem's code, not to the 15k lines of ruby.h.
 *
 * libclang 14 exposes no operator kinds, so operators are read from the token
 * stream of the file (tokens are computed once per file and searched by
 * offset). Inside macro expansions operators cannot be read that way; such
 * nodes are summarised conservatively (EX_OTHER, reads and calls kept).
 */
#include "extract.h"
#include "extract_walk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gvlapi.h"

/* ---- file classification ---- */

static const char *const system_prefixes[] = {
	"/usr/include/", "/usr/lib/", "/usr/local/include/", "/usr/local/lib/", "/opt/homebrew/",
	"/Library/",     "/System/",
};

bool is_project_path(const struct file_classifier *fc, const char *path)
{
	return classify_path(fc, path) == ORIGIN_PROJECT;
}

enum origin classify_path(const struct file_classifier *fc, const char *path)
{
	if (!path || !*path)
		return ORIGIN_UNKNOWN;
	if (fc->stub_name && strcmp(path_basename(path), fc->stub_name) == 0)
		return ORIGIN_STUB;
	for (size_t i = 0; i < fc->nruby_dirs; i++)
		if (path_is_below(path, fc->ruby_dirs[i]))
			return ORIGIN_RUBY;
	for (size_t i = 0; i < fc->nproject_roots; i++)
		if (path_is_below(path, fc->project_roots[i]))
			return ORIGIN_PROJECT;
	for (size_t i = 0; i < ARRAY_SIZE(system_prefixes); i++)
		if (str_starts(path, system_prefixes[i]))
			return ORIGIN_SYSTEM;
	return ORIGIN_SYSTEM;
}

/* ---- per-file info and tokens ---- */

/* The lowest stack address the walk may use on this thread: the thread's
 * stack start plus EXTRACT_STACK_RESERVE. Frames are much bigger in
 * sanitizer and debug builds, where this, not EXTRACT_MAX_DEPTH, ends the
 * descent. 0 when the stack cannot be found. */
static uintptr_t stack_floor(void)
{
	pthread_attr_t a;
	if (pthread_getattr_np(pthread_self(), &a) != 0)
		return 0;
	void *addr = NULL;
	size_t size = 0;
	int rc = pthread_attr_getstack(&a, &addr, &size);
	pthread_attr_destroy(&a);
	if (rc != 0 || size <= 2 * EXTRACT_STACK_RESERVE)
		return 0;
	return (uintptr_t)addr + EXTRACT_STACK_RESERVE;
}

/* May the walk go one level deeper? */
bool may_descend(struct xctx *x)
{
	if (x->depth < EXTRACT_MAX_DEPTH && (!x->stack_floor || (uintptr_t)__builtin_frame_address(0) > x->stack_floor))
		return true;
	x->truncated = true;
	return false;
}

const char *intern_cx(struct xctx *x, CXString s)
{
	const char *c = clang_getCString(s);
	const char *r = intern(&x->tu->pool, c ? c : "");
	clang_disposeString(s);
	return r;
}

static struct fileinfo *file_info(struct xctx *x, CXFile f)
{
	if (!f)
		return NULL;
	if (f == x->last_file && x->last_fi)
		return x->last_fi;
	CXString s = clang_getFileName(f);
	const char *name = clang_getCString(s);
	if (!name) {
		clang_disposeString(s);
		return NULL;
	}
	struct fileinfo *fi = hmap_get(&x->files, name);
	if (fi) {
		clang_disposeString(s);
		x->last_file = f;
		x->last_fi = fi;
		return fi;
	}
	fi = arena_alloc(&x->tu->arena, sizeof(*fi));
	char *abs = path_absolute(name);
	fi->path = intern(&x->tu->pool, abs);
	free(abs);
	fi->origin = (uint8_t)classify_path(x->fc, fi->path);
	hmap_put(&x->files, intern(&x->tu->pool, name), fi);
	clang_disposeString(s);
	x->last_file = f;
	x->last_fi = fi;
	return fi;
}

struct loc make_loc(struct xctx *x, CXSourceLocation sl, struct fileinfo **fio)
{
	struct loc l = {0};
	CXFile f = NULL;
	unsigned line = 0, col = 0, off = 0;
	clang_getFileLocation(sl, &f, &line, &col, &off);
	struct fileinfo *fi = file_info(x, f);
	if (fio)
		*fio = fi;
	l.file = fi ? fi->path : NULL;
	l.line = line;
	l.col = col;
	l.off = off;
	return l;
}

uint32_t expansion_off(CXSourceLocation sl)
{
	CXFile f;
	unsigned line, col, off;
	clang_getExpansionLocation(sl, &f, &line, &col, &off);
	return off;
}

static int tok_cmp(const void *a, const void *b)
{
	const struct tok *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* The whole of file f (size bytes) as a range to tokenize. For the main file
 * the translation unit's own extent: clang_getLocationForOffset maps through
 * macro arguments, which makes libclang index every macro expansion of the
 * TU first (with a preamble, deserialising Ruby's headers' ones), about a
 * tenth of a file's parse time spent on two locations. */
CXSourceRange whole_file(CXTranslationUnit ctu, CXFile f, size_t size)
{
	CXSourceRange tr = clang_getCursorExtent(clang_getTranslationUnitCursor(ctu));
	CXFile mf = NULL, ef = NULL;
	unsigned bo = 1, eo = 0;
	clang_getFileLocation(clang_getRangeStart(tr), &mf, NULL, NULL, &bo);
	clang_getFileLocation(clang_getRangeEnd(tr), &ef, NULL, NULL, &eo);
	if (mf && ef && clang_File_isEqual(mf, f) && clang_File_isEqual(ef, f) && bo == 0 && eo == size)
		return tr;
	CXSourceLocation b = clang_getLocationForOffset(ctu, f, 0);
	CXSourceLocation e = clang_getLocationForOffset(ctu, f, (unsigned)size);
	return clang_getRange(b, e);
}

static void load_tokens(struct xctx *x, struct fileinfo *fi, CXFile f)
{
	fi->toks_done = true;
	size_t size = 0;
	const char *contents = clang_getFileContents(x->ctu, f, &size);
	if (!contents)
		return;
	CXToken *toks = NULL;
	unsigned n = 0;
	clang_tokenize(x->ctu, whole_file(x->ctu, f, size), &toks, &n);
	if (!n)
		return;
	fi->toks = arena_alloc(&x->tu->arena, n * sizeof(*fi->toks));
	for (unsigned i = 0; i < n; i++) {
		CXTokenKind k = clang_getTokenKind(toks[i]);
		CXSourceRange r = clang_getTokenExtent(x->ctu, toks[i]);
		unsigned o1, o2;
		clang_getFileLocation(clang_getRangeStart(r), NULL, NULL, NULL, &o1);
		clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &o2);
		struct tok *t = &fi->toks[fi->ntoks++];
		t->off = o1;
		t->end = o2;
		t->kind = (uint8_t)k;
		if (k == CXToken_Comment) {
			t->sp = "";
		} else if (o2 > o1 && o2 <= size) {
			t->sp = intern_n(&x->tu->pool, contents + o1, o2 - o1);
		} else {
			t->sp = intern_cx(x, clang_getTokenSpelling(x->ctu, toks[i]));
		}
	}
	clang_disposeTokens(x->ctu, toks, n);
	xqsort(fi->toks, fi->ntoks, sizeof(*fi->toks), tok_cmp);
}

/* The number of tokens before off: those starting before it (by_end false), or
 * those ending at or before it (by_end true). fi->toks is sorted by offset. */
static uint32_t toks_before(const struct fileinfo *fi, uint32_t off, bool by_end)
{
	uint32_t lo = 0, hi = fi->ntoks;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (by_end ? fi->toks[mid].end <= off : fi->toks[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* First non-comment token at or after off. */
const struct tok *tok_at(const struct fileinfo *fi, uint32_t off)
{
	if (!fi || !fi->ntoks)
		return NULL;
	uint32_t lo = toks_before(fi, off, false);
	while (lo < fi->ntoks && fi->toks[lo].kind == CXToken_Comment)
		lo++;
	return lo < fi->ntoks ? &fi->toks[lo] : NULL;
}

/* Last token ending at or before off. */
const struct tok *tok_before(const struct fileinfo *fi, uint32_t off)
{
	if (!fi || !fi->ntoks)
		return NULL;
	uint32_t lo = toks_before(fi, off, true);
	while (lo > 0 && fi->toks[lo - 1].kind == CXToken_Comment)
		lo--;
	return lo > 0 ? &fi->toks[lo - 1] : NULL;
}

const struct macro_exp *macro_at(struct xctx *x, const char *file, uint32_t off)
{
	if (!file || file != x->main_path)
		return NULL;
	const struct macro_exp *m = x->tu->macro_exps.v;
	size_t lo = 0, hi = x->tu->macro_exps.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m[mid].begin <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	const struct macro_exp *e = &m[lo - 1];
	return off >= e->begin && off < e->end ? e : NULL;
}

struct range cursor_range(struct xctx *x, CXCursor c)
{
	struct range r = {0};
	CXSourceRange ext = clang_getCursorExtent(c);
	CXSourceLocation b = clang_getRangeStart(ext), e = clang_getRangeEnd(ext);
	CXFile f1 = NULL, f2 = NULL;
	unsigned o1 = 0, o2 = 0;
	clang_getFileLocation(b, &f1, NULL, NULL, &o1);
	clang_getFileLocation(e, &f2, NULL, NULL, &o2);
	r.fi = file_info(x, f1);
	r.begin = o1;
	r.end = o2 >= o1 ? o2 : o1;
	/* Tokens show the code unless the node comes from a macro body (then the
	 * file location is the expansion site, where only the macro name is). */
	r.macro = r.fi && macro_at(x, r.fi->path, o1) != NULL && expansion_off(b) == o1;
	if (r.fi && !r.fi->toks_done)
		load_tokens(x, r.fi, f1);
	return r;
}

/* Source text of a range from tokens, whitespace-normalised, capped. */
const char *range_text(struct xctx *x, const struct range *r)
{
	if (!r->fi || !r->fi->ntoks)
		return "";
	struct strbuf *sb = &x->tmp;
	sb_reset(sb);
	const struct tok *t = tok_at(r->fi, r->begin);
	const struct tok *last = NULL;
	const struct tok *end = r->fi->toks + r->fi->ntoks;
	for (; t && t < end && t->off < r->end; t++) {
		if (t->kind == CXToken_Comment)
			continue;
		if (last) {
			bool wl = last->kind == CXToken_Identifier || last->kind == CXToken_Keyword ||
				  last->kind == CXToken_Literal;
			bool wt = t->kind == CXToken_Identifier || t->kind == CXToken_Keyword ||
				  t->kind == CXToken_Literal;
			if ((wl && wt) || (last->sp[0] == ',' && !last->sp[1]))
				sb_putc(sb, ' ');
		}
		sb_puts(sb, t->sp);
		last = t;
		if (sb->len > 160) {
			sb_puts(sb, "...");
			break;
		}
	}
	return intern(&x->tu->pool, sb_str(sb));
}

/* ---- children ---- */

static enum CXChildVisitResult kids_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	struct kids *k = d;
	if (k->n == k->cap) {
		unsigned nc = k->cap * 2;
		if (k->p == k->v) {
			k->p = xmalloc(nc * sizeof(CXCursor));
			memcpy(k->p, k->v, k->n * sizeof(CXCursor));
		} else {
			k->p = xrealloc(k->p, nc * sizeof(CXCursor));
		}
		k->cap = nc;
	}
	k->p[k->n++] = c;
	return CXChildVisit_Continue;
}

void kids_get(CXCursor c, struct kids *k)
{
	k->p = k->v;
	k->n = 0;
	k->cap = ARRAY_SIZE(k->v);
	clang_visitChildren(c, kids_cb, k);
}

void kids_free(struct kids *k)
{
	if (k->p != k->v)
		free(k->p);
}

bool is_expr_kind(enum CXCursorKind k)
{
	return clang_isExpression(k) != 0;
}

/* ---- functions and file scope ---- */

static void extract_function(struct xctx *x, CXCursor c, struct fileinfo *fi)
{
	struct func f = {0};
	f.name = intern_cx(x, clang_getCursorSpelling(c));
	f.usr = intern_cx(x, clang_getCursorUSR(c));
	f.loc = make_loc(x, clang_getCursorLocation(c), NULL);
	f.end = make_loc(x, clang_getRangeEnd(clang_getCursorExtent(c)), NULL);
	CXType ft = clang_getCursorType(c);
	CXType rt = clang_getResultType(ft);
	f.ret_type = type_name_of(x, rt);
	if (type_is_value(rt))
		f.flags |= FN_RETURNS_VALUE;
	if (type_is_pointerish(rt))
		f.flags |= FN_RETURNS_PTR;
	if (clang_Cursor_getStorageClass(c) == CX_SC_Static || clang_getCursorLinkage(c) == CXLinkage_Internal)
		f.flags |= FN_STATIC;
	if (clang_Cursor_isFunctionInlined(c))
		f.flags |= FN_INLINE;
	if (clang_Cursor_isVariadic(c))
		f.flags |= FN_VARIADIC;
	if (fi->path != x->main_path)
		f.flags |= FN_IN_HEADER;
	if (x->tu->cxx)
		f.flags |= FN_CXX;

	x->fn_index = (int32_t)x->tu->funcs.n;
	x->fn_usr = f.usr;
	x->ev.n = 0;
	x->rg.n = 0;
	x->guard = 0;
	x->region = -1;
	x->depth = 0;
	x->truncated = false;
	int np = clang_Cursor_getNumArguments(c);
	if (np > 0) {
		f.nparams = (uint32_t)np;
		f.params = arena_alloc(&x->tu->arena, (size_t)np * sizeof(int32_t));
		for (int i = 0; i < np; i++) {
			CXCursor p = clang_Cursor_getArgument(c, (unsigned)i);
			int32_t vi = var_index(x, p);
			f.params[i] = vi;
			if (vi >= 0)
				x->tu->vars.v[vi].param_index = i;
		}
	}
	/* body region */
	struct kids kd;
	kids_get(c, &kd);
	CXCursor body = clang_getNullCursor();
	for (unsigned i = 0; i < kd.n; i++)
		if (clang_getCursorKind(kd.p[i]) == CXCursor_CompoundStmt)
			body = kd.p[i];
	kids_free(&kd);
	if (!clang_Cursor_isNull(body)) {
		struct withgvl_targets wt = {0};
		withgvl_collect(body, &wt);
		x->has_withgvl = wt.n > 0;
		x->if_rest = NULL;
		x->if_nrest = 0;
		x->rest_holds_gvl = false;
		push_region(x, RG_BODY, body, NULL, false);
		walk_stmt(x, body);
	}
	if (x->truncated)
		f.flags |= FN_TRUNCATED;
	f.nevents = (uint32_t)x->ev.n;
	f.events = x->ev.n ? arena_memdup(&x->tu->arena, x->ev.v, x->ev.n * sizeof(struct event)) : NULL;
	f.nregions = (uint32_t)x->rg.n;
	f.regions = x->rg.n ? arena_memdup(&x->tu->arena, x->rg.v, x->rg.n * sizeof(struct region)) : NULL;
	vec_push(&x->tu->funcs, f);
	x->fn_index = -1;
}

static void extract_file_var(struct xctx *x, CXCursor c)
{
	x->fn_index = -1;
	int32_t vi = var_index(x, c);
	if (vi < 0)
		return;
	if (!clang_isCursorDefinition(c))
		return;
	struct kids kd;
	kids_get(c, &kd);
	CXCursor init = clang_getNullCursor();
	for (unsigned i = 0; i < kd.n; i++)
		if (is_expr_kind(clang_getCursorKind(kd.p[i])))
			init = kd.p[i];
	kids_free(&kd);
	if (clang_Cursor_isNull(init))
		return;
	/* Initialisers are walked with a throwaway event list: only the bindings
	 * (functions stored in fields / pointer variables) are kept. */
	x->ev.n = 0;
	x->rg.n = 0;
	x->region = -1;
	struct ref lhs = {.var = vi, .path = ""};
	CXCursor s = strip_wrappers(init, NULL);
	if (clang_getCursorKind(s) == CXCursor_InitListExpr) {
		walk_init_list(x, s, &lhs, clang_getCursorType(c));
	} else {
		struct esum rhs = {0};
		walk_expr(x, init, ACC_READ, &rhs);
		if (rhs.e.kind == EX_FUNC) {
			x->tu->vars.v[vi].init_fn_usr = rhs.e.func_usr;
			emit_assign(x, c, &lhs, &rhs, true, false);
		}
		esum_free(&rhs);
	}
	x->ev.n = 0;
}

static void visit_decls(struct xctx *x, CXCursor parent);

static enum CXChildVisitResult top_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	struct xctx *x = d;
	enum CXCursorKind k = clang_getCursorKind(c);
	bool pp = k == CXCursor_MacroExpansion || k == CXCursor_MacroDefinition || k == CXCursor_InclusionDirective;
	if (pp != x->pp_pass)
		return CXChildVisit_Continue; /* each pass reads only its kinds (as below), without locating the rest */
	CXSourceLocation sl = clang_getCursorLocation(c);
	CXFile f = NULL;
	clang_getFileLocation(sl, &f, NULL, NULL, NULL);
	struct fileinfo *fi = file_info(x, f);
	if (!fi)
		return CXChildVisit_Continue;

	if (k == CXCursor_MacroExpansion || k == CXCursor_MacroDefinition || k == CXCursor_InclusionDirective) {
		/* expansions and includes of the main file; definitions also from the
		 * project's own headers (a release macro in ext/foo_gvl.h) */
		if (!x->pp_pass ||
		    (fi->path != x->main_path && !(k == CXCursor_MacroDefinition && fi->origin == ORIGIN_PROJECT)))
			return CXChildVisit_Continue;
		if (k == CXCursor_MacroExpansion) {
			struct range r = cursor_range(x, c);
			struct macro_exp m = {0};
			m.name = intern_cx(x, clang_getCursorSpelling(c));
			m.loc = make_loc(x, sl, NULL);
			m.begin = r.begin;
			/* extents end just past the last token */
			m.end = r.end > r.begin ? r.end : r.begin + (uint32_t)strlen(m.name);
			vec_push(&x->tu->macro_exps, m);
		} else if (k == CXCursor_MacroDefinition) {
			struct macro_def m = {0};
			m.name = intern_cx(x, clang_getCursorSpelling(c));
			m.loc = make_loc(x, sl, NULL);
			m.function_like = clang_Cursor_isMacroFunctionLike(c) != 0;
			struct range r = cursor_range(x, c);
			r.macro = false;
			m.body = range_text(x, &r);
			vec_push(&x->tu->macro_defs, m);
		} else {
			struct include_dir inc = {0};
			inc.loc = make_loc(x, sl, NULL);
			struct range r = cursor_range(x, c);
			r.macro = false;
			inc.spelled = range_text(x, &r);
			inc.end_off = r.end;
			vec_push(&x->tu->includes, inc);
		}
		return CXChildVisit_Continue;
	}
	if (fi->origin != ORIGIN_PROJECT)
		return CXChildVisit_Continue;

	switch (k) {
	case CXCursor_FunctionDecl:
	case CXCursor_CXXMethod:
	case CXCursor_Constructor:
	case CXCursor_Destructor:
		if (clang_isCursorDefinition(c))
			extract_function(x, c, fi);
		break;
	case CXCursor_VarDecl:
		extract_file_var(x, c);
		break;
	case CXCursor_Namespace:
	case CXCursor_LinkageSpec:
	case CXCursor_ClassDecl:
	case CXCursor_StructDecl:
	case CXCursor_UnexposedDecl:
		if (x->tu->cxx || k == CXCursor_LinkageSpec || k == CXCursor_UnexposedDecl)
			visit_decls(x, c);
		break;
	default:
		break;
	}
	return CXChildVisit_Continue;
}

static void visit_decls(struct xctx *x, CXCursor parent)
{
	clang_visitChildren(parent, top_cb, x);
}

static int macro_cmp(const void *a, const void *b)
{
	const struct macro_exp *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end; /* outermost first */
}

/* Macro expansions come first in the preprocessing record; gather them before
 * walking bodies so events can be attributed to macros. */
static enum CXChildVisitResult macro_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	if (k != CXCursor_MacroExpansion && k != CXCursor_MacroDefinition && k != CXCursor_InclusionDirective)
		return CXChildVisit_Continue;
	return top_cb(c, parent, d);
}

void extract_tu(CXTranslationUnit ctu, struct tu_facts *tu, const struct file_classifier *fc)
{
	struct xctx x = {0};
	x.ctu = ctu;
	x.tu = tu;
	x.fc = fc;
	x.fn_index = -1;
	x.region = -1;
	x.stack_floor = stack_floor();
	x.main_file = clang_getFile(ctu, tu->path);
	if (!x.main_file) {
		/* tu->path is absolute; libclang may know the file under the spelled name */
		CXCursor root = clang_getTranslationUnitCursor(ctu);
		CXString s = clang_getCursorSpelling(root);
		x.main_file = clang_getFile(ctu, clang_getCString(s));
		clang_disposeString(s);
	}
	struct fileinfo *mfi = file_info(&x, x.main_file);
	x.main_path = mfi ? mfi->path : intern(&tu->pool, tu->path);
	if (mfi)
		mfi->origin = ORIGIN_PROJECT; /* the main file is always the project's */

	CXCursor root = clang_getTranslationUnitCursor(ctu);
	x.pp_pass = true;
	clang_visitChildren(root, macro_cb, &x);
	xqsort(tu->macro_exps.v, tu->macro_exps.n, sizeof(struct macro_exp), macro_cmp);
	/* keep only outermost expansions */
	size_t w = 0;
	for (size_t i = 0; i < tu->macro_exps.n; i++) {
		if (w && tu->macro_exps.v[i].begin < tu->macro_exps.v[w - 1].end)
			continue;
		tu->macro_exps.v[w++] = tu->macro_exps.v[i];
	}
	tu->macro_exps.n = w;

	/* now functions and variables */
	x.pp_pass = false;
	clang_visitChildren(root, top_cb, &x);

	vec_free(&x.ev);
	vec_free(&x.rg);
	hmap_free(&x.files);
	hmap_free(&x.vars);
	sb_free(&x.tmp);
}
