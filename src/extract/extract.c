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

struct tok {
	uint32_t off, end;
	uint8_t kind; /* CXTokenKind */
	const char *sp;
};

struct fileinfo {
	const char *path; /* absolute, interned in tu->pool */
	uint8_t origin;
	bool toks_done;
	struct tok *toks;
	uint32_t ntoks;
};

struct scope_guard {
	int depth;
};

struct xctx {
	CXTranslationUnit ctu;
	struct tu_facts *tu;
	const struct file_classifier *fc;
	struct hmap files; /* clang file name -> struct fileinfo* */
	struct hmap vars;  /* USR -> var index + 1 */
	CXFile main_file;
	const char *main_path;
	CXFile last_file; /* file_info's last answer (most lookups repeat it) */
	struct fileinfo *last_fi;

	/* current function */
	int32_t fn_index;
	VEC(struct event) ev;
	VEC(struct region) rg;
	int32_t region;
	int guard;               /* > 0: the GVL is known held here */
	bool has_withgvl;        /* the function calls rb_thread_call_with_gvl somewhere */
	const CXCursor *if_rest; /* walk_compound -> IfStmt: the statements after the if */
	unsigned if_nrest;
	bool rest_holds_gvl; /* IfStmt -> walk_compound: they hold the GVL (own flag) */
	const char *fn_usr;  /* USR of the function being walked */
	int atomic;          /* > 0: inside an atomic builtin's arguments */
	bool pp_pass;        /* first pass: preprocessing record only */
	struct strbuf tmp;
	unsigned depth;        /* nesting of walk_stmt/walk_expr (EXTRACT_MAX_DEPTH) */
	bool truncated;        /* the current function hit EXTRACT_MAX_DEPTH */
	uintptr_t stack_floor; /* the walk stops descending below this address (0: unknown) */
};

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
static bool may_descend(struct xctx *x)
{
	if (x->depth < EXTRACT_MAX_DEPTH && (!x->stack_floor || (uintptr_t)__builtin_frame_address(0) > x->stack_floor))
		return true;
	x->truncated = true;
	return false;
}

static const char *intern_cx(struct xctx *x, CXString s)
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

static struct loc make_loc(struct xctx *x, CXSourceLocation sl, struct fileinfo **fio)
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

static uint32_t expansion_off(CXSourceLocation sl)
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
static CXSourceRange whole_file(CXTranslationUnit ctu, CXFile f, size_t size)
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

/* First non-comment token at or after off. */
static const struct tok *tok_at(const struct fileinfo *fi, uint32_t off)
{
	if (!fi || !fi->ntoks)
		return NULL;
	uint32_t lo = 0, hi = fi->ntoks;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (fi->toks[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo < fi->ntoks && fi->toks[lo].kind == CXToken_Comment)
		lo++;
	return lo < fi->ntoks ? &fi->toks[lo] : NULL;
}

/* Last token ending at or before off. */
static const struct tok *tok_before(const struct fileinfo *fi, uint32_t off)
{
	if (!fi || !fi->ntoks)
		return NULL;
	uint32_t lo = 0, hi = fi->ntoks;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (fi->toks[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && fi->toks[lo - 1].kind == CXToken_Comment)
		lo--;
	return lo > 0 ? &fi->toks[lo - 1] : NULL;
}

struct range {
	uint32_t begin, end;
	struct fileinfo *fi;
	bool macro; /* the range is (part of) a macro expansion: tokens do not show the code */
};

static const struct macro_exp *macro_at(struct xctx *x, const char *file, uint32_t off)
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

static struct range cursor_range(struct xctx *x, CXCursor c)
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
static const char *range_text(struct xctx *x, const struct range *r)
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

struct kids {
	CXCursor v[8];
	CXCursor *p;
	unsigned n, cap;
};

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

static void kids_get(CXCursor c, struct kids *k)
{
	k->p = k->v;
	k->n = 0;
	k->cap = ARRAY_SIZE(k->v);
	clang_visitChildren(c, kids_cb, k);
}

static void kids_free(struct kids *k)
{
	if (k->p != k->v)
		free(k->p);
}

static bool is_expr_kind(enum CXCursorKind k)
{
	return clang_isExpression(k) != 0;
}

/* ---- types ---- */

static bool type_is_value(CXType t)
{
	/* VALUE, const VALUE, volatile VALUE; also ID-free: only the typedef name counts. */
	while (t.kind == CXType_Elaborated)
		t = clang_Type_getNamedType(t);
	if (t.kind != CXType_Typedef)
		return false;
	CXString s = clang_getTypedefName(t);
	const char *n = clang_getCString(s);
	bool r = n && strcmp(n, "VALUE") == 0;
	clang_disposeString(s);
	if (!r) {
		/* a typedef of VALUE (rare): look one level down */
		CXCursor d = clang_getTypeDeclaration(t);
		CXType u = clang_getTypedefDeclUnderlyingType(d);
		if (u.kind == CXType_Typedef) {
			s = clang_getTypedefName(u);
			n = clang_getCString(s);
			r = n && strcmp(n, "VALUE") == 0;
			clang_disposeString(s);
		}
	}
	return r;
}

static const char *type_name_of(struct xctx *x, CXType t)
{
	return intern_cx(x, clang_getTypeSpelling(t));
}

/* "struct foo" for struct foo, struct foo *, foo_t (typedef of struct) ... */
static const char *record_of(struct xctx *x, CXType t)
{
	CXType c = clang_getCanonicalType(t);
	while (c.kind == CXType_Pointer || c.kind == CXType_ConstantArray || c.kind == CXType_IncompleteArray) {
		c = c.kind == CXType_Pointer ? clang_getPointeeType(c) : clang_getArrayElementType(c);
		c = clang_getCanonicalType(c);
	}
	if (c.kind != CXType_Record)
		return NULL;
	/* clang_getUnqualifiedType arrived in LLVM 16: strip qualifiers from the spelling */
	CXString cs = clang_getTypeSpelling(c);
	const char *sp = clang_getCString(cs);
	const char *p = sp ? sp : "";
	for (;;) {
		if (str_starts(p, "const "))
			p += 6;
		else if (str_starts(p, "volatile "))
			p += 9;
		else if (str_starts(p, "restrict "))
			p += 9;
		else
			break;
	}
	const char *r = intern(&x->tu->pool, p);
	clang_disposeString(cs);
	return r;
}

static uint32_t type_flags(struct xctx *x, CXType t)
{
	uint32_t fl = 0;
	if (type_is_value(t))
		fl |= VF_VALUE;
	if (clang_isConstQualifiedType(t))
		fl |= VF_CONST;
	if (clang_isVolatileQualifiedType(t))
		fl |= VF_VOLATILE;
	CXType c = clang_getCanonicalType(t);
	if (c.kind == CXType_Atomic)
		fl |= VF_ATOMIC;
	if (clang_isConstQualifiedType(c))
		fl |= VF_CONST;
	if (clang_isVolatileQualifiedType(c))
		fl |= VF_VOLATILE;
	if (c.kind == CXType_Pointer) {
		fl |= VF_POINTER;
		CXType p = clang_getCanonicalType(clang_getPointeeType(c));
		if (p.kind == CXType_FunctionProto || p.kind == CXType_FunctionNoProto)
			fl |= VF_FNPTR;
		if (clang_isConstQualifiedType(p))
			fl |= VF_CONST_POINTEE;
	}
	if (c.kind == CXType_ConstantArray || c.kind == CXType_IncompleteArray || c.kind == CXType_VariableArray) {
		fl |= VF_ARRAY;
		CXType el = clang_getCanonicalType(clang_getArrayElementType(c));
		if (clang_isConstQualifiedType(el))
			fl |= VF_CONST;
	}
	if (c.kind == CXType_Record)
		fl |= VF_RECORD;
	const char *sp = type_name_of(x, t);
	if (strstr(sp, "sig_atomic_t"))
		fl |= VF_SIG_ATOMIC;
	if (strstr(sp, "_Atomic") || strstr(sp, "atomic_"))
		fl |= VF_ATOMIC;
	if (!(fl & VF_POINTER) && (strstr(sp, "pthread_mutex_t") || strstr(sp, "rb_nativethread_lock_t") ||
				   strstr(sp, "pthread_rwlock_t") || strstr(sp, "pthread_spinlock_t")))
		fl |= VF_MUTEX;
	return fl;
}

static bool type_is_pointerish(CXType t)
{
	CXType c = clang_getCanonicalType(t);
	return c.kind == CXType_Pointer;
}

static bool type_is_array(CXType t)
{
	CXType c = clang_getCanonicalType(t);
	return c.kind == CXType_ConstantArray || c.kind == CXType_IncompleteArray || c.kind == CXType_VariableArray ||
	       c.kind == CXType_DependentSizedArray;
}

static bool type_is_integral(CXType t)
{
	CXType c = clang_getCanonicalType(t);
	return (c.kind >= CXType_Bool && c.kind <= CXType_Int128 && c.kind != CXType_Void) || c.kind == CXType_Enum;
}

/* ---- variables ---- */

static int32_t var_index(struct xctx *x, CXCursor d)
{
	enum CXCursorKind k = clang_getCursorKind(d);
	if (k != CXCursor_VarDecl && k != CXCursor_ParmDecl)
		return -1;
	CXString us = clang_getCursorUSR(d);
	const char *u = clang_getCString(us);
	const char *usr = NULL;
	if (u && *u) {
		usr = intern(&x->tu->pool, u);
	} else {
		/* unnamed or odd declarations: key by location */
		struct loc l = make_loc(x, clang_getCursorLocation(d), NULL);
		usr = arena_printf(&x->tu->arena, "@%s:%u", l.file ? l.file : "?", l.off);
	}
	clang_disposeString(us);
	uintptr_t found = (uintptr_t)hmap_get(&x->vars, usr);
	if (found)
		return (int32_t)(found - 1);

	struct var v = {0};
	v.name = intern_cx(x, clang_getCursorSpelling(d));
	v.usr = usr;
	CXType t = clang_getCursorType(d);
	v.type = type_name_of(x, t);
	v.record = record_of(x, t);
	v.flags = type_flags(x, t);
	v.fn = -1;
	v.param_index = -1;
	struct fileinfo *fi = NULL;
	v.loc = make_loc(x, clang_getCursorLocation(d), &fi);
	if (fi && fi->origin == ORIGIN_RUBY)
		v.flags |= VF_RUBY_HEADER;
	else if (fi && fi->origin == ORIGIN_SYSTEM)
		v.flags |= VF_SYSTEM_HEADER;
	if (clang_getCursorTLSKind(d) != CXTLS_None)
		v.flags |= VF_TLS;
	CXCursor sem = clang_getCursorSemanticParent(d);
	enum CXCursorKind sk = clang_getCursorKind(sem);
	bool in_fn = sk == CXCursor_FunctionDecl || sk == CXCursor_CXXMethod || sk == CXCursor_Constructor ||
		     sk == CXCursor_Destructor || sk == CXCursor_FunctionTemplate;
	enum CX_StorageClass sc = clang_Cursor_getStorageClass(d);
	if (k == CXCursor_ParmDecl) {
		v.kind = VK_PARAM;
	} else if (in_fn) {
		v.kind = (sc == CX_SC_Static) ? VK_LOCAL_STATIC : VK_LOCAL;
		if (sc == CX_SC_Extern)
			v.kind = VK_GLOBAL;
	} else {
		v.kind = (sc == CX_SC_Static) ? VK_FILE_STATIC : VK_GLOBAL;
		if (clang_getCursorLinkage(d) == CXLinkage_Internal)
			v.kind = VK_FILE_STATIC;
		/* point at the definition when this TU has it (not at an extern
		 * declaration in a header that happens to come first) */
		CXCursor def = clang_getCursorDefinition(d);
		bool has_def = !clang_Cursor_isNull(def) && clang_getCursorKind(def) == CXCursor_VarDecl;
		if (has_def && !clang_equalCursors(def, d))
			v.loc = make_loc(x, clang_getCursorLocation(def), NULL);
		if (sc == CX_SC_Extern && !clang_isCursorDefinition(d) && !has_def)
			v.flags |= VF_EXTERN_DECL;
	}
	if (v.kind == VK_LOCAL || v.kind == VK_PARAM || v.kind == VK_LOCAL_STATIC)
		v.fn = x->fn_index;
	vec_push(&x->tu->vars, v);
	int32_t idx = (int32_t)x->tu->vars.n - 1;
	hmap_put(&x->vars, usr, (void *)(uintptr_t)(idx + 1));
	return idx;
}

/* C++: the implicit object parameter of a member function. `this->m`, a
 * bare member name `m` and `(*this).m` all reach state owned by whoever
 * holds the object, the way `self->m` does through a struct pointer
 * parameter in C. It is recorded as a pointer parameter named "this" with no
 * position in the argument list (param_index -1: nothing maps a call's
 * arguments onto it). rec is the class type (or a pointer to it). Returns -1
 * outside a function body. */
static int32_t this_var(struct xctx *x, CXCursor at, CXType rec)
{
	if (!x->fn_usr || x->fn_index < 0)
		return -1;
	const char *usr = arena_printf(&x->tu->arena, "this@%s", x->fn_usr);
	uintptr_t found = (uintptr_t)hmap_get(&x->vars, usr);
	if (found)
		return (int32_t)(found - 1);
	struct var v = {0};
	v.name = "this";
	v.usr = usr;
	v.record = record_of(x, rec);
	v.type = arena_printf(&x->tu->arena, "%s *", v.record ? v.record : "void");
	v.flags = VF_POINTER;
	v.kind = VK_PARAM;
	v.fn = x->fn_index;
	v.param_index = -1;
	v.loc = make_loc(x, clang_getCursorLocation(at), NULL);
	vec_push(&x->tu->vars, v);
	int32_t idx = (int32_t)x->tu->vars.n - 1;
	hmap_put(&x->vars, usr, (void *)(uintptr_t)(idx + 1));
	return idx;
}

/* ---- expression summaries ---- */

struct esum {
	struct expr e;
	VEC(struct ref) reads;
	VEC(int32_t) calls;
	bool negated; /* outermost operator was `!` */
};

static void esum_free(struct esum *s)
{
	vec_free(&s->reads);
	vec_free(&s->calls);
}

static void esum_merge(struct esum *into, struct esum *from)
{
	for (size_t i = 0; i < from->reads.n; i++)
		vec_push(&into->reads, from->reads.v[i]);
	for (size_t i = 0; i < from->calls.n; i++)
		vec_push(&into->calls, from->calls.v[i]);
}

static void esum_finish(struct xctx *x, struct esum *s, struct expr *out)
{
	*out = s->e;
	out->nreads = (uint32_t)s->reads.n;
	out->reads = s->reads.n ? arena_memdup(&x->tu->arena, s->reads.v, s->reads.n * sizeof(struct ref)) : NULL;
	out->ncalls = (uint32_t)s->calls.n;
	out->calls = s->calls.n ? arena_memdup(&x->tu->arena, s->calls.v, s->calls.n * sizeof(int32_t)) : NULL;
	if (!out->text)
		out->text = "";
}

static void walk_stmt(struct xctx *x, CXCursor c);
static void walk_expr(struct xctx *x, CXCursor c, int mode, struct esum *out);

static struct event *new_event(struct xctx *x, int kind, CXCursor c)
{
	struct event e = {0};
	e.kind = (uint8_t)kind;
	if (kind == EV_CALL)
		e.u.call = arena_alloc(&x->tu->arena, sizeof(struct call));
	else if (kind == EV_ASSIGN)
		e.u.assign = arena_alloc(&x->tu->arena, sizeof(struct assign));
	else if (kind == EV_RETURN)
		e.u.ret = arena_alloc(&x->tu->arena, sizeof(struct expr));
	e.region = x->region;
	e.gvl_guard = x->guard > 0;
	CXSourceLocation sl = clang_getCursorLocation(c);
	e.loc = make_loc(x, sl, NULL);
	e.spell = e.loc;
	uint32_t eo = expansion_off(sl);
	const struct macro_exp *m = macro_at(x, e.loc.file, eo);
	if (m) {
		e.macro = m->name;
		e.in_macro_arg = eo != e.loc.off;
	}
	vec_push(&x->ev, e);
	return &x->ev.v[x->ev.n - 1];
}

static void set_expr_common(struct xctx *x, CXCursor c, struct esum *s)
{
	struct range r = cursor_range(x, c);
	if (s->e.kind == EX_OTHER && s->e.ref.var == 0 && !s->e.ref.path) {
		/* a fresh summary: no variable, no call yet (0 would name the first ones) */
		s->e.ref.var = -1;
		s->e.call = -1;
	}
	s->e.text = range_text(x, &r);
	CXSourceLocation sl = clang_getCursorLocation(c);
	s->e.loc = make_loc(x, sl, NULL);
	/* exact: the spelled text is this expression, or one whole macro invocation
	 * that expands to it (`RB_NOGVL_INTR_FAIL` as an argument) */
	const struct macro_exp *whole = r.macro && r.fi ? macro_at(x, r.fi->path, r.begin) : NULL;
	if (whole && (whole->begin != r.begin || whole->end != r.end))
		whole = NULL;
	if ((!r.macro || whole) && r.fi && r.fi->path == s->e.loc.file) {
		/* libclang extents end just past the last token */
		s->e.exact = 1;
		s->e.begin = r.begin;
		s->e.end = r.end;
	}
	s->e.is_value = type_is_value(clang_getCursorType(c));
	uint32_t eo = expansion_off(sl);
	const struct macro_exp *m = macro_at(x, s->e.loc.file, eo);
	if (m && eo == s->e.loc.off && r.begin == m->begin && r.end >= m->end)
		s->e.macro = m->name;
	else if (m && eo == s->e.loc.off && !s->e.macro) {
		/* object-like macro in the body: the whole expansion is this expression
		 * when the expansion range is the cursor's range */
		if (r.begin == m->begin)
			s->e.macro = m->name;
	}
}

static void try_evaluate(struct xctx *x, CXCursor c, struct esum *s)
{
	if (s->reads.n || s->calls.n || s->e.has_ival)
		return;
	if (!type_is_integral(clang_getCursorType(c)))
		return;
	CXEvalResult r = clang_Cursor_Evaluate(c);
	if (!r)
		return;
	if (clang_EvalResult_getKind(r) == CXEval_Int) {
		s->e.ival = clang_EvalResult_getAsLongLong(r);
		s->e.has_ival = 1;
		if (s->e.kind == EX_OTHER)
			s->e.kind = EX_INT;
	}
	clang_EvalResult_dispose(r);
}

static const char *path_append(struct xctx *x, const char *path, const char *seg, bool subscript)
{
	if (subscript)
		return path && *path ? arena_printf(&x->tu->arena, "%s[]", path) : "[]";
	if (!path || !*path)
		return seg;
	return arena_printf(&x->tu->arena, "%s.%s", path, seg);
}

static void emit_access(struct xctx *x, CXCursor c, const struct ref *r, int mode)
{
	if (r->var < 0)
		return;
	struct event *e = new_event(x, EV_ACCESS, c);
	e->u.access.ref = *r;
	e->u.access.mode = (uint8_t)mode;
	e->u.access.atomic_op = x->atomic > 0;
}

static bool first_tok_is(struct xctx *x, CXCursor c, const char *sp, struct range *rout)
{
	struct range r = cursor_range(x, c);
	if (rout)
		*rout = r;
	if (r.macro)
		return false;
	const struct tok *t = tok_at(r.fi, r.begin);
	return t && t->off == r.begin && strcmp(t->sp, sp) == 0;
}

/* Inside a macro body the tokens do not show the operator (libclang 14 has
 * no operator kinds). An assignment is recognised by its shape instead: the
 * left operand is used as an lvalue (no implicit conversion node between the
 * operator and the operand, which every other binary operator has: `a + b`,
 * `a || b`, `a == b`, `a, b`) and the result has the left operand's type.
 * This catches TypedData_Get_Struct's `(sval) = ...` and RSTRING_GETMEM's
 * `(ptrvar) = ...`. */
static const char *binop_in_macro(CXCursor lhs, CXCursor whole)
{
	enum CXCursorKind k = clang_getCursorKind(lhs);
	if (k != CXCursor_ParenExpr && k != CXCursor_DeclRefExpr && k != CXCursor_MemberRefExpr &&
	    k != CXCursor_ArraySubscriptExpr && k != CXCursor_UnaryOperator)
		return NULL;
	CXType lt = clang_getCanonicalType(clang_getCursorType(lhs));
	CXType wt = clang_getCanonicalType(clang_getCursorType(whole));
	return clang_equalTypes(lt, wt) ? "=" : NULL;
}

/* The operator of a binary operator node: first punctuation token after lhs. */
static const char *binop_spelling(struct xctx *x, CXCursor lhs, CXCursor whole)
{
	struct range rw = cursor_range(x, whole);
	if (rw.macro)
		return binop_in_macro(lhs, whole);
	struct range rl = cursor_range(x, lhs);
	if (rl.macro)
		return binop_in_macro(lhs, whole);
	if (rl.fi != rw.fi)
		return NULL;
	const struct tok *t = tok_at(rl.fi, rl.end);
	/* rl.end is the start of the last token of lhs in libclang ranges? make sure we
	 * are past it */
	const struct tok *end = rl.fi->toks + rl.fi->ntoks;
	while (t && t < end && t->off < rl.end)
		t++;
	while (t && t < end && t->kind != CXToken_Punctuation)
		t++;
	if (!t || t >= end)
		return NULL;
	return t->sp;
}

static bool is_assign_op(const char *op)
{
	if (!op)
		return false;
	size_t n = strlen(op);
	return n >= 1 && op[n - 1] == '=' && strcmp(op, "==") != 0 && strcmp(op, "!=") != 0 && strcmp(op, "<=") != 0 &&
	       strcmp(op, ">=") != 0;
}

static void walk_ref(struct xctx *x, CXCursor c, struct esum *out, int mode);

static CXCursor strip_wrappers(CXCursor c, bool *cast)
{
	for (;;) {
		enum CXCursorKind k = clang_getCursorKind(c);
		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr && k != CXCursor_CStyleCastExpr)
			return c;
		struct kids kd;
		kids_get(c, &kd);
		CXCursor next = clang_getNullCursor();
		for (unsigned i = 0; i < kd.n; i++)
			if (is_expr_kind(clang_getCursorKind(kd.p[i])))
				next = kd.p[i];
		unsigned n = kd.n;
		kids_free(&kd);
		if (clang_Cursor_isNull(next))
			return c;
		if (k == CXCursor_CStyleCastExpr && cast)
			*cast = true;
		/* an UnexposedExpr with several expression children is not a wrapper */
		if (k == CXCursor_UnexposedExpr && n > 1)
			return c;
		c = next;
	}
}

static int32_t walk_call(struct xctx *x, CXCursor c, struct esum *out);

/* Fills out with a reference summary for lvalue-ish nodes; falls back to walk_expr. */
static void walk_ref(struct xctx *x, CXCursor c, struct esum *out, int mode)
{
	bool cast = false;
	CXCursor s = strip_wrappers(c, &cast);
	enum CXCursorKind k = clang_getCursorKind(s);
	if (k == CXCursor_DeclRefExpr) {
		CXCursor d = clang_getCursorReferenced(s);
		enum CXCursorKind dk = clang_getCursorKind(d);
		if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) {
			out->e.kind = EX_REF;
			out->e.ref.var = var_index(x, d);
			out->e.ref.path = "";
			return;
		}
	}
	if (k == CXCursor_CXXThisExpr) {
		int32_t tv = this_var(x, s, clang_getCursorType(s));
		if (tv >= 0) {
			out->e.kind = EX_REF;
			out->e.ref.var = tv;
			out->e.ref.path = "";
			return;
		}
	}
	if (k == CXCursor_MemberRefExpr) {
		struct kids kd;
		kids_get(s, &kd);
		CXCursor base = clang_getNullCursor();
		for (unsigned i = 0; i < kd.n; i++)
			if (is_expr_kind(clang_getCursorKind(kd.p[i])))
				base = kd.p[i];
		kids_free(&kd);
		const char *field = intern_cx(x, clang_getCursorSpelling(s));
		CXCursor md = clang_getCursorReferenced(s);
		enum CXCursorKind mk = clang_getCursorKind(md);
		if (mk == CXCursor_VarDecl) {
			/* C++ static data member (obj.s, this->s): one object for the
			 * whole process, whatever the base */
			if (!clang_Cursor_isNull(base)) {
				struct esum b = {0};
				walk_ref(x, base, &b, ACC_READ);
				esum_merge(out, &b);
				esum_free(&b);
			}
			out->e.kind = EX_REF;
			out->e.ref.var = var_index(x, md);
			out->e.ref.path = "";
			return;
		}
		struct esum b = {0};
		CXType bt;
		bool ptr;
		if (clang_Cursor_isNull(base)) {
			/* C++ implicit this->field: a member of the object the
			 * method was called on */
			int32_t tv = mk == CXCursor_FieldDecl
					     ? this_var(x, s, clang_getCursorType(clang_getCursorSemanticParent(md)))
					     : -1;
			if (tv < 0) {
				out->e.kind = EX_OTHER;
				return;
			}
			b.e.kind = EX_REF;
			b.e.ref.var = tv;
			b.e.ref.path = "";
			bt = clang_getCursorType(clang_getCursorSemanticParent(md));
			ptr = true;
		} else {
			walk_ref(x, base, &b, ACC_READ);
			esum_merge(out, &b);
			bt = clang_getCursorType(base);
			ptr = type_is_pointerish(bt);
		}
		if (b.e.kind == EX_REF) {
			out->e.kind = EX_REF;
			out->e.ref = b.e.ref;
			out->e.ref.path = path_append(x, b.e.ref.path, field, false);
			out->e.ref.field = field;
			out->e.ref.record = record_of(x, bt);
			if (ptr)
				out->e.ref.deref = out->e.ref.ptr_deref = 1;
			out->e.ref.addr = 0;
		} else {
			out->e.kind = EX_OTHER;
			out->e.ref.var = -1;
			out->e.ref.field = field;
			out->e.ref.record = record_of(x, bt);
		}
		esum_free(&b);
		return;
	}
	if (k == CXCursor_ArraySubscriptExpr) {
		struct kids kd;
		kids_get(s, &kd);
		if (kd.n == 2) {
			struct esum b = {0}, ix = {0};
			walk_ref(x, kd.p[0], &b, ACC_READ);
			walk_expr(x, kd.p[1], ACC_READ, &ix);
			esum_merge(out, &b);
			esum_merge(out, &ix);
			if (b.e.kind == EX_REF) {
				out->e.kind = EX_REF;
				out->e.ref = b.e.ref;
				out->e.ref.path = path_append(x, b.e.ref.path, NULL, true);
				if (type_is_pointerish(clang_getCursorType(kd.p[0])))
					out->e.ref.deref = 1;
				if (!type_is_array(clang_getCursorType(strip_wrappers(kd.p[0], NULL))))
					out->e.ref.ptr_deref = 1;
			}
			esum_free(&b);
			esum_free(&ix);
			kids_free(&kd);
			return;
		}
		kids_free(&kd);
	}
	if (k == CXCursor_UnaryOperator && first_tok_is(x, s, "*", NULL)) {
		struct kids kd;
		kids_get(s, &kd);
		if (kd.n == 1) {
			struct esum b = {0};
			walk_ref(x, kd.p[0], &b, ACC_READ);
			esum_merge(out, &b);
			if (b.e.kind == EX_REF) {
				out->e.kind = EX_REF;
				out->e.ref = b.e.ref;
				out->e.ref.deref = 1;
				if (!type_is_array(clang_getCursorType(strip_wrappers(kd.p[0], NULL))))
					out->e.ref.ptr_deref = 1;
			}
			esum_free(&b);
			kids_free(&kd);
			return;
		}
		kids_free(&kd);
	}
	walk_expr(x, c, mode, out);
}

/* Designated and positional initialisers: emits EV_ASSIGN for lhs.path.field. */
static void walk_init_list(struct xctx *x, CXCursor list, const struct ref *lhs, CXType type);

static void emit_assign(struct xctx *x, CXCursor at, const struct ref *lhs, struct esum *rhs, bool init, bool compound)
{
	struct event *e = new_event(x, EV_ASSIGN, at);
	e->u.assign->lhs = *lhs;
	e->u.assign->is_init = init;
	e->u.assign->compound = compound;
	esum_finish(x, rhs, &e->u.assign->rhs);
	struct expr *r = &e->u.assign->rhs;
	int32_t ei = (int32_t)(e - x->ev.v);
	(void)ei;
	if (r->kind == EX_CALL && r->call >= 0 && (size_t)r->call < x->ev.n)
		x->ev.v[r->call].u.call->result = *lhs;
	const struct var *pv = r->kind == EX_REF && (!r->ref.path || !*r->ref.path) ? tu_var(x->tu, r->ref.var) : NULL;
	bool param_fp = pv && pv->kind == VK_PARAM && (pv->flags & VF_FNPTR) && x->fn_usr && lhs->field;
	/* a function-pointer field or global given a value that names no function
	 * (va_arg(ap, fn_t), a copy of another pointer, a call's result): a binding
	 * with no function, so that resolving the pointer is partial instead of
	 * resting on the other assignments alone */
	if (r->kind != EX_FUNC && r->kind != EX_NULL && !(r->kind == EX_INT && r->has_ival && r->ival == 0) &&
	    !param_fp && !compound) {
		const struct var *lv = lhs->field ? NULL : tu_var(x->tu, lhs->var);
		bool global_fp = lv && (lv->flags & VF_FNPTR) && lv->kind != VK_LOCAL && lv->kind != VK_PARAM;
		bool field_fp = false;
		if (lhs->field) {
			CXType ty = clang_getCanonicalType(clang_getCursorType(at));
			if (ty.kind == CXType_Pointer) {
				CXType pt = clang_getCanonicalType(clang_getPointeeType(ty));
				field_fp = pt.kind == CXType_FunctionProto || pt.kind == CXType_FunctionNoProto;
			}
		}
		if (field_fp || global_fp) {
			struct binding b = {0};
			b.loc = r->loc;
			b.param_index = -1;
			b.record = lhs->field ? lhs->record : NULL;
			b.field = lhs->field ? lhs->field : lv->usr;
			if (b.field)
				vec_push(&x->tu->bindings, b);
		}
	}
	if ((r->kind == EX_FUNC && (lhs->field || lhs->var >= 0)) || param_fp) {
		struct binding b = {0};
		b.fn_usr = r->func_usr;
		b.fn_name = r->func_name;
		b.loc = r->loc;
		b.param_index = -1;
		if (param_fp) {
			b.fn_usr = NULL;
			b.fn_name = NULL;
			b.param_of_usr = x->fn_usr;
			b.param_index = pv->param_index;
		}
		if (lhs->field) {
			b.record = lhs->record;
			b.field = lhs->field;
		} else {
			b.record = NULL;
			b.field = x->tu->vars.v[lhs->var].usr;
		}
		vec_push(&x->tu->bindings, b);
	}
}

static void walk_init_value(struct xctx *x, CXCursor val, const struct ref *lhs, CXType ftype)
{
	CXCursor s = strip_wrappers(val, NULL);
	if (clang_getCursorKind(s) == CXCursor_InitListExpr) {
		walk_init_list(x, s, lhs, ftype);
		return;
	}
	struct esum rhs = {0};
	walk_expr(x, val, ACC_READ, &rhs);
	emit_assign(x, val, lhs, &rhs, true, false);
	esum_free(&rhs);
}

static void walk_init_list(struct xctx *x, CXCursor list, const struct ref *lhs, CXType type)
{
	/* the whole object is initialised (unnamed members become zero) */
	struct esum whole = {0};
	set_expr_common(x, list, &whole);
	{
		struct event *e = new_event(x, EV_ASSIGN, list);
		e->u.assign->lhs = *lhs;
		e->u.assign->is_init = 1;
		e->u.assign->whole_init = 1;
		esum_finish(x, &whole, &e->u.assign->rhs);
	}
	esum_free(&whole);

	CXType canon = clang_getCanonicalType(type);
	bool is_array = canon.kind == CXType_ConstantArray || canon.kind == CXType_IncompleteArray;
	/* field names in order for positional initialisers */
	struct kids fields = {0};
	bool have_fields = false;
	if (canon.kind == CXType_Record) {
		CXCursor decl = clang_getTypeDeclaration(canon);
		struct kids all;
		kids_get(decl, &all);
		fields.p = fields.v;
		fields.cap = ARRAY_SIZE(fields.v);
		for (unsigned i = 0; i < all.n; i++) {
			if (clang_getCursorKind(all.p[i]) == CXCursor_FieldDecl) {
				if (fields.n == fields.cap) {
					unsigned nc = fields.cap * 2;
					CXCursor *np = xmalloc(nc * sizeof(CXCursor));
					memcpy(np, fields.p, fields.n * sizeof(CXCursor));
					if (fields.p != fields.v)
						free(fields.p);
					fields.p = np;
					fields.cap = nc;
				}
				fields.p[fields.n++] = all.p[i];
			}
		}
		kids_free(&all);
		have_fields = true;
	}
	const char *record = canon.kind == CXType_Record ? record_of(x, canon) : NULL;

	struct kids kd;
	kids_get(list, &kd);
	unsigned pos = 0;
	for (unsigned i = 0; i < kd.n; i++) {
		CXCursor ch = kd.p[i];
		struct kids dk;
		kids_get(ch, &dk);
		bool designated = clang_getCursorKind(ch) == CXCursor_UnexposedExpr && dk.n >= 2 &&
				  (clang_getCursorKind(dk.p[0]) == CXCursor_MemberRef ||
				   (clang_getCursorKind(dk.p[0]) == CXCursor_IntegerLiteral && is_array));
		struct ref sub = *lhs;
		CXType ftype = clang_getCursorType(ch);
		if (designated) {
			unsigned j = 0;
			const char *last_field = NULL;
			for (; j + 1 < dk.n; j++) {
				if (clang_getCursorKind(dk.p[j]) == CXCursor_MemberRef) {
					last_field = intern_cx(x, clang_getCursorSpelling(dk.p[j]));
					sub.path = path_append(x, sub.path, last_field, false);
					sub.field = last_field;
					sub.record = record;
					CXCursor fd = clang_getCursorReferenced(dk.p[j]);
					ftype = clang_getCursorType(fd);
				} else {
					sub.path = path_append(x, sub.path, NULL, true);
				}
			}
			walk_init_value(x, dk.p[dk.n - 1], &sub, ftype);
		} else {
			if (is_array) {
				sub.path = path_append(x, sub.path, NULL, true);
				ftype = clang_getArrayElementType(canon);
			} else if (have_fields && pos < fields.n) {
				const char *fname = intern_cx(x, clang_getCursorSpelling(fields.p[pos]));
				sub.path = path_append(x, sub.path, fname, false);
				sub.field = fname;
				sub.record = record;
				ftype = clang_getCursorType(fields.p[pos]);
			}
			walk_init_value(x, ch, &sub, ftype);
			pos++;
		}
		kids_free(&dk);
	}
	kids_free(&kd);
	if (fields.p && fields.p != fields.v)
		free(fields.p);
}

static bool atomic_name(const char *n)
{
	return str_starts(n, "__atomic_") || str_starts(n, "__c11_atomic_") || str_starts(n, "__sync_") ||
	       str_starts(n, "__opencl_atomic_") || str_starts(n, "rbimpl_atomic_");
}

/* An atomic builtin expression (clang's AtomicExpr, exposed as an
 * UnexposedExpr): __atomic_add_fetch(&x, ...) written here, or a macro such as
 * C11's atomic_fetch_add or RUBY_ATOMIC_INC expanding to one. */
static bool is_atomic_expr(struct xctx *x, CXCursor c)
{
	struct range r = cursor_range(x, c);
	const struct tok *t = tok_at(r.fi, r.begin);
	if (!t || t->off != r.begin || !t->sp)
		return false;
	if (atomic_name(t->sp))
		return true;
	return r.macro && (str_starts(t->sp, "atomic_") || strstr(t->sp, "ATOMIC") != NULL);
}

static bool atomic_builtin_ident(const char *n)
{
	return str_starts(n, "__atomic_") || str_starts(n, "__c11_atomic_") || str_starts(n, "__sync_");
}

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The atomic builtins a project macro's body names, through nested project
 * macros (depth-limited): *found is the one seen, *count how many distinct. */
static void macro_atomic_builtins(struct xctx *x, const char *name, int depth, const char **found, int *count)
{
	if (depth > 3 || *count > 1)
		return;
	for (size_t i = 0; i < x->tu->macro_defs.n && *count <= 1; i++) {
		const struct macro_def *md = &x->tu->macro_defs.v[i];
		if (!md->name || !md->body || strcmp(md->name, name) != 0)
			continue;
		/* the body text starts with the macro's name and parameters */
		const char *b = md->body + strlen(md->name);
		if (md->function_like && *b == '(') {
			const char *close = strchr(b, ')');
			b = close ? close + 1 : b;
		}
		while (*b && *count <= 1) {
			if (!ident_char(*b) || (*b >= '0' && *b <= '9')) {
				b++;
				continue;
			}
			char id[64];
			size_t n = 0;
			while (ident_char(b[n]) && n < sizeof(id) - 1) {
				id[n] = b[n];
				n++;
			}
			id[n] = '\0';
			while (ident_char(b[n]))
				n++;
			b += n;
			if (atomic_builtin_ident(id)) {
				if (!*found || strcmp(*found, id) != 0) {
					(*count)++;
					*found = intern(&x->tu->pool, id);
				}
			} else if (strcmp(id, name) != 0) {
				macro_atomic_builtins(x, id, depth + 1, found, count);
			}
		}
	}
}

/* The builtin an atomic expression stands for (__atomic_exchange_n ...), read
 * at its spelling location: written there, or the one builtin a project
 * macro used there expands to (a gem's fio_atomic_xchange). C11's
 * atomic_exchange & co. keep their own names. Interned; NULL when it is not
 * one or cannot be told. */
static const char *atomic_builtin_name(struct xctx *x, CXCursor c)
{
	CXFile f = NULL;
	unsigned off = 0;
	clang_getSpellingLocation(clang_getCursorLocation(c), &f, NULL, NULL, &off);
	if (!f)
		return NULL;
	size_t size = 0;
	const char *text = clang_getFileContents(x->ctu, f, &size);
	if (!text || off >= size)
		return NULL;
	size_t n = 0;
	while (off + n < size && n < 64 && ident_char(text[off + n]))
		n++;
	if (n == 0 || n >= 64)
		return NULL;
	char name[64];
	memcpy(name, text + off, n);
	name[n] = '\0';
	if (atomic_builtin_ident(name) || str_starts(name, "atomic_"))
		return intern(&x->tu->pool, name);
	const char *found = NULL;
	int count = 0;
	macro_atomic_builtins(x, name, 0, &found, &count);
	return count == 1 ? found : NULL;
}

static void walk_expr_at(struct xctx *x, CXCursor c, int mode, struct esum *out);

/* walk_expr_at with the depth limit (extract.h: EXTRACT_MAX_DEPTH) */
static void walk_expr(struct xctx *x, CXCursor c, int mode, struct esum *out)
{
	if (!may_descend(x)) {
		set_expr_common(x, c, out);
		out->e.ref.var = -1;
		out->e.call = -1;
		return;
	}
	x->depth++;
	walk_expr_at(x, c, mode, out);
	x->depth--;
}

static void walk_expr_at(struct xctx *x, CXCursor c, int mode, struct esum *out)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	set_expr_common(x, c, out);
	out->e.ref.var = -1;
	out->e.call = -1;

	switch (k) {
	case CXCursor_UnexposedExpr:
	case CXCursor_ParenExpr:
	case CXCursor_CStyleCastExpr: {
		bool cast = false;
		CXCursor s = strip_wrappers(c, &cast);
		if (!clang_equalCursors(s, c)) {
			struct esum in = {0};
			walk_expr(x, s, mode, &in);
			esum_merge(out, &in);
			const char *text = out->e.text;
			const char *macro = out->e.macro;
			struct loc loc = out->e.loc;
			bool isv = out->e.is_value;
			uint8_t exact = out->e.exact;
			uint32_t begin = out->e.begin, end = out->e.end;
			out->e = in.e;
			out->e.text = text;
			out->e.exact = exact;
			out->e.begin = begin;
			out->e.end = end;
			if (macro)
				out->e.macro = macro;
			out->e.loc = loc;
			out->e.is_value = isv;
			if (cast)
				out->e.cast = 1;
			if (cast && (in.e.kind == EX_INT || in.e.kind == EX_NULL) && in.e.has_ival &&
			    type_is_pointerish(clang_getCursorType(c)))
				out->e.kind = in.e.ival == 0 ? EX_NULL : EX_INT;
			esum_free(&in);
			return;
		}
		break; /* generic walk below */
	}
	case CXCursor_DeclRefExpr: {
		CXCursor d = clang_getCursorReferenced(c);
		enum CXCursorKind dk = clang_getCursorKind(d);
		if (dk == CXCursor_FunctionDecl || dk == CXCursor_CXXMethod) {
			out->e.kind = EX_FUNC;
			out->e.func_usr = intern_cx(x, clang_getCursorUSR(d));
			out->e.func_name = intern_cx(x, clang_getCursorSpelling(d));
			return;
		}
		if (dk == CXCursor_EnumConstantDecl) {
			out->e.kind = EX_INT;
			out->e.has_ival = 1;
			out->e.ival = clang_getEnumConstantDeclValue(d);
			return;
		}
		if (dk == CXCursor_VarDecl || dk == CXCursor_ParmDecl) {
			out->e.kind = EX_REF;
			out->e.ref.var = var_index(x, d);
			out->e.ref.path = "";
			if (mode & ACC_READ)
				vec_push(&out->reads, out->e.ref);
			emit_access(x, c, &out->e.ref, mode ? mode : ACC_READ);
			return;
		}
		return;
	}
	case CXCursor_CXXThisExpr: /* C++ `this` as a value: the object pointer */
		walk_ref(x, c, out, mode);
		if (out->e.kind == EX_REF && (mode & ACC_READ))
			vec_push(&out->reads, out->e.ref);
		return;
	case CXCursor_MemberRefExpr:
	case CXCursor_ArraySubscriptExpr: {
		walk_ref(x, c, out, mode);
		if (out->e.kind == EX_REF) {
			if (mode & ACC_READ)
				vec_push(&out->reads, out->e.ref);
			emit_access(x, c, &out->e.ref, mode ? mode : ACC_READ);
		}
		return;
	}
	case CXCursor_CallExpr: {
		int32_t idx = walk_call(x, c, out);
		out->e.kind = EX_CALL;
		out->e.call = idx;
		if (idx >= 0)
			vec_push(&out->calls, idx);
		return;
	}
	case CXCursor_IntegerLiteral:
	case CXCursor_CharacterLiteral:
		try_evaluate(x, c, out);
		if (!out->e.has_ival)
			out->e.kind = EX_INT;
		return;
	case CXCursor_StringLiteral:
		out->e.kind = EX_STRING;
		return;
	case CXCursor_FloatingLiteral:
	case CXCursor_UnaryExpr: /* sizeof/alignof: reads nothing */
		try_evaluate(x, c, out);
		return;
	case CXCursor_InitListExpr: {
		struct ref tmp = {.var = -1, .path = ""};
		walk_init_list(x, c, &tmp, clang_getCursorType(c));
		return;
	}
	case CXCursor_StmtExpr: {
		struct kids kd;
		kids_get(c, &kd);
		for (unsigned i = 0; i < kd.n; i++)
			walk_stmt(x, kd.p[i]);
		kids_free(&kd);
		return;
	}
	case CXCursor_UnaryOperator: {
		struct kids kd;
		kids_get(c, &kd);
		if (kd.n != 1) {
			kids_free(&kd);
			break;
		}
		struct range r;
		bool addr_of = first_tok_is(x, c, "&", &r);
		if (!addr_of && r.macro) {
			/* inside a macro body (StringValue(v) is rb_string_value(&(v))) the
			 * tokens are not the expansion's: the result is a pointer to the
			 * operand's type */
			CXType rt = clang_getCanonicalType(clang_getCursorType(c));
			CXType ot = clang_getCanonicalType(clang_getCursorType(kd.p[0]));
			addr_of = rt.kind == CXType_Pointer && clang_equalTypes(clang_getPointeeType(rt), ot);
		}
		if (addr_of) {
			struct esum in = {0};
			walk_ref(x, kd.p[0], &in, ACC_ADDR);
			esum_merge(out, &in);
			if (in.e.kind == EX_REF) {
				out->e.kind = EX_REF;
				out->e.ref = in.e.ref;
				out->e.ref.addr = 1;
				emit_access(x, c, &in.e.ref, ACC_ADDR);
			} else if (in.e.kind == EX_FUNC) {
				out->e.kind = EX_FUNC;
				out->e.func_usr = in.e.func_usr;
				out->e.func_name = in.e.func_name;
			}
			esum_free(&in);
			kids_free(&kd);
			return;
		}
		bool incdec = false;
		if (!r.macro) {
			const struct tok *t0 = tok_at(r.fi, r.begin);
			const struct tok *tl = tok_before(r.fi, r.end);
			if (t0 && (strcmp(t0->sp, "++") == 0 || strcmp(t0->sp, "--") == 0))
				incdec = true;
			if (tl && (strcmp(tl->sp, "++") == 0 || strcmp(tl->sp, "--") == 0))
				incdec = true;
			if (t0 && strcmp(t0->sp, "!") == 0)
				out->negated = true;
		}
		if (incdec) {
			struct esum in = {0};
			walk_ref(x, kd.p[0], &in, ACC_READ | ACC_WRITE);
			esum_merge(out, &in);
			if (in.e.kind == EX_REF) {
				vec_push(&out->reads, in.e.ref);
				emit_access(x, c, &in.e.ref, ACC_READ | ACC_WRITE);
			}
			esum_free(&in);
			kids_free(&kd);
			return;
		}
		if (first_tok_is(x, c, "*", NULL)) {
			struct esum in = {0};
			walk_ref(x, c, &in, mode ? mode : ACC_READ);
			esum_merge(out, &in);
			if (in.e.kind == EX_REF) {
				out->e.kind = EX_REF;
				out->e.ref = in.e.ref;
				if ((mode ? mode : ACC_READ) & ACC_READ)
					vec_push(&out->reads, in.e.ref);
				emit_access(x, c, &in.e.ref, mode ? mode : ACC_READ);
			}
			esum_free(&in);
			kids_free(&kd);
			return;
		}
		struct esum in = {0};
		walk_expr(x, kd.p[0], ACC_READ, &in);
		esum_merge(out, &in);
		if (out->negated && in.e.kind == EX_CALL)
			out->e.call = in.e.call;
		esum_free(&in);
		kids_free(&kd);
		try_evaluate(x, c, out);
		return;
	}
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator: {
		struct kids kd;
		kids_get(c, &kd);
		if (kd.n != 2) {
			kids_free(&kd);
			break;
		}
		const char *op = k == CXCursor_CompoundAssignOperator ? "+=" : binop_spelling(x, kd.p[0], c);
		if (is_assign_op(op)) {
			bool compound = strcmp(op, "=") != 0;
			struct esum rhs = {0}, lhs = {0};
			walk_expr(x, kd.p[1], ACC_READ, &rhs);
			walk_ref(x, kd.p[0], &lhs, compound ? (ACC_READ | ACC_WRITE) : ACC_WRITE);
			esum_merge(out, &lhs);
			esum_merge(out, &rhs);
			if (lhs.e.kind == EX_REF) {
				emit_access(x, c, &lhs.e.ref, compound ? (ACC_READ | ACC_WRITE) : ACC_WRITE);
				emit_assign(x, c, &lhs.e.ref, &rhs, false, compound);
				out->e.kind = EX_REF;
				out->e.ref = lhs.e.ref;
			} else {
				/* unknown lvalue (inside a macro, or *f()): still record the rhs */
				struct ref none = {.var = -1, .path = ""};
				if (lhs.e.ref.field) {
					none.field = lhs.e.ref.field;
					none.record = lhs.e.ref.record;
				}
				emit_assign(x, c, &none, &rhs, false, compound);
			}
			esum_free(&rhs);
			esum_free(&lhs);
			kids_free(&kd);
			return;
		}
		for (unsigned i = 0; i < kd.n; i++) {
			struct esum in = {0};
			walk_expr(x, kd.p[i], ACC_READ, &in);
			esum_merge(out, &in);
			esum_free(&in);
		}
		kids_free(&kd);
		try_evaluate(x, c, out);
		return;
	}
	default:
		break;
	}
	/* generic: walk children as reads */
	struct kids kd;
	kids_get(c, &kd);
	/* an AtomicExpr (pointer and memory order at least), not an implicit
	 * cast around a call */
	unsigned nexpr = 0;
	for (unsigned i = 0; i < kd.n; i++)
		if (is_expr_kind(clang_getCursorKind(kd.p[i])))
			nexpr++;
	const char *builtin = k == CXCursor_UnexposedExpr && nexpr >= 2 ? atomic_builtin_name(x, c) : NULL;
	bool atomic = builtin || (k == CXCursor_UnexposedExpr && is_atomic_expr(x, c));
	if (atomic)
		x->atomic++;
	/* an atomic builtin (clang's AtomicExpr) is recorded as a call of the
	 * builtin, with its operands as arguments in source order (pointer first),
	 * so a project's own spinlock can be recognised from it */
	struct esum bargs[6];
	unsigned nb = 0;
	for (unsigned i = 0; i < kd.n; i++) {
		enum CXCursorKind ck = clang_getCursorKind(kd.p[i]);
		if (ck == CXCursor_TypeRef || ck == CXCursor_MemberRef || ck == CXCursor_ParmDecl)
			continue;
		if (is_expr_kind(ck)) {
			struct esum in = {0};
			walk_expr(x, kd.p[i], ACC_READ, &in);
			esum_merge(out, &in);
			if (builtin && nb < ARRAY_SIZE(bargs)) {
				try_evaluate(x, kd.p[i], &in);
				bargs[nb++] = in;
			} else {
				esum_free(&in);
			}
		} else if (clang_isStatement(ck) || clang_isDeclaration(ck)) {
			walk_stmt(x, kd.p[i]);
		}
	}
	if (builtin) {
		struct call call = {0};
		call.parent = -1;
		call.parent_arg = -1;
		call.result.var = -1;
		call.result.path = "";
		call.result_used = 1;
		call.origin = ORIGIN_SYSTEM;
		call.name = builtin;
		call.usr = arena_printf(&x->tu->arena, "c:@F@%s", builtin);
		struct esum ce = {0};
		set_expr_common(x, c, &ce);
		ce.e.kind = EX_FUNC;
		ce.e.func_usr = call.usr;
		ce.e.func_name = call.name;
		ce.e.exact = 0;
		esum_finish(x, &ce, &call.callee);
		esum_free(&ce);
		call.nargs = nb;
		call.args = nb ? arena_alloc(&x->tu->arena, (size_t)nb * sizeof(struct expr)) : NULL;
		/* clang keeps an AtomicExpr's operands as pointer, order, value1,
		 * order-on-failure, value2, weak: put them back in the order they
		 * are written (op(ptr, val, order); op(ptr, expected, desired, weak,
		 * order, failure-order)) */
		static const unsigned order3[] = {0, 2, 1}, order6[] = {0, 2, 4, 5, 1, 3};
		const unsigned *order = nb == 3 ? order3 : nb == 6 ? order6 : NULL;
		if (order) {
			struct esum tmp[6];
			for (unsigned i = 0; i < nb; i++)
				tmp[i] = bargs[order[i]];
			memcpy(bargs, tmp, nb * sizeof(struct esum));
		}
		for (unsigned i = 0; i < nb; i++) {
			esum_finish(x, &bargs[i], &call.args[i]);
			esum_free(&bargs[i]);
		}
		struct event *e = new_event(x, EV_CALL, c);
		*e->u.call = call;
		vec_push(&out->calls, (int32_t)x->ev.n - 1);
	} else {
		for (unsigned i = 0; i < nb; i++)
			esum_free(&bargs[i]);
	}
	kids_free(&kd);
	if (atomic)
		x->atomic--;
	try_evaluate(x, c, out);
}

static enum origin decl_origin(struct xctx *x, CXCursor d, CXCursor call, const char *name, const char **file)
{
	if (str_starts(name, "__builtin") || str_starts(name, "__atomic") || str_starts(name, "__sync") ||
	    str_starts(name, "__c11_atomic")) {
		*file = NULL;
		return ORIGIN_SYSTEM;
	}
	struct fileinfo *fi = NULL;
	CXSourceLocation dl = clang_getCursorLocation(d);
	struct loc l = make_loc(x, dl, &fi);
	*file = l.file;
	if (!fi)
		return ORIGIN_UNKNOWN;
	/* implicit declarations (C89 calls to undeclared functions) are located at the call */
	struct loc cl = make_loc(x, clang_getCursorLocation(call), NULL);
	if (cl.file == l.file && cl.off == l.off && !clang_isCursorDefinition(d))
		return ORIGIN_UNKNOWN;
	return (enum origin)fi->origin;
}

static int32_t walk_call(struct xctx *x, CXCursor c, struct esum *out)
{
	struct call call = {0};
	call.parent = -1;
	call.parent_arg = -1;
	call.result.var = -1;
	call.result.path = "";
	call.result_used = 1;
	CXCursor ref = clang_getCursorReferenced(c);
	enum CXCursorKind rk = clang_getCursorKind(ref);
	struct kids kd;
	kids_get(c, &kd);
	int nargs = clang_Cursor_getNumArguments(c);
	if (nargs < 0)
		nargs = 0;
	if (rk != CXCursor_FunctionDecl && rk != CXCursor_CXXMethod && rk != CXCursor_Constructor && kd.n) {
		/* Ruby 3.1 headers pick the callee with a constant test:
		 * rb_str_new(p, n) is `(CONSTANT_P(p) && CONSTANT_P(n) ? rb_str_new_static :
		 * rb_str_new)((p), (n))`. A conditional whose branches both name
		 * functions is a direct call to the last one (the general case). */
		CXCursor cal = strip_wrappers(kd.p[0], NULL);
		if (clang_getCursorKind(cal) == CXCursor_ConditionalOperator) {
			struct kids ck;
			kids_get(cal, &ck);
			if (ck.n == 3) {
				CXCursor t = strip_wrappers(ck.p[1], NULL), f = strip_wrappers(ck.p[2], NULL);
				CXCursor td = clang_getCursorReferenced(t), fd = clang_getCursorReferenced(f);
				if (clang_getCursorKind(t) == CXCursor_DeclRefExpr &&
				    clang_getCursorKind(f) == CXCursor_DeclRefExpr &&
				    clang_getCursorKind(td) == CXCursor_FunctionDecl &&
				    clang_getCursorKind(fd) == CXCursor_FunctionDecl) {
					ref = fd;
					rk = CXCursor_FunctionDecl;
				}
			}
			kids_free(&ck);
		}
	}

	if (rk == CXCursor_FunctionDecl || rk == CXCursor_CXXMethod || rk == CXCursor_Constructor) {
		call.name = intern_cx(x, clang_getCursorSpelling(ref));
		call.usr = intern_cx(x, clang_getCursorUSR(ref));
		call.origin = (uint8_t)decl_origin(x, ref, c, call.name, &call.decl_file);
		call.variadic = clang_Cursor_isVariadic(ref) != 0;
		call.returns_value = type_is_value(clang_getResultType(clang_getCursorType(ref)));
		struct esum ce = {0};
		set_expr_common(x, kd.n ? kd.p[0] : c, &ce);
		ce.e.kind = EX_FUNC;
		ce.e.func_usr = call.usr;
		ce.e.func_name = call.name;
		esum_finish(x, &ce, &call.callee);
		esum_free(&ce);
	} else {
		call.indirect = 1;
		struct esum ce = {0};
		if (kd.n)
			walk_expr(x, kd.p[0], ACC_READ, &ce);
		esum_merge(out, &ce);
		esum_finish(x, &ce, &call.callee);
		esum_free(&ce);
		call.name = call.callee.ref.field ? call.callee.ref.field : call.callee.text;
		if (call.callee.kind == EX_FUNC) {
			/* (*fn)(x) or a cast function designator: still direct */
			call.indirect = 0;
			call.name = call.callee.func_name;
			call.usr = call.callee.func_usr;
		}
		if (!call.name)
			call.name = "";
	}
	call.nargs = (uint32_t)nargs;
	call.args = nargs ? arena_alloc(&x->tu->arena, (size_t)nargs * sizeof(struct expr)) : NULL;
	bool atomic = call.name && atomic_name(call.name);
	if (atomic)
		x->atomic++;
	for (int i = 0; i < nargs; i++) {
		CXCursor a = clang_Cursor_getArgument(c, (unsigned)i);
		struct esum as = {0};
		walk_expr(x, a, ACC_READ, &as);
		try_evaluate(x, a, &as);
		esum_merge(out, &as);
		esum_finish(x, &as, &call.args[i]);
		esum_free(&as);
	}
	if (atomic)
		x->atomic--;
	kids_free(&kd);
	if (call.callee.exact) {
		struct range r = cursor_range(x, c);
		const struct tok *t = r.macro ? NULL : tok_before(r.fi, r.end);
		if (t && t->end == r.end && strcmp(t->sp, ")") == 0)
			call.rparen = t->off;
	}
	struct event *e = new_event(x, EV_CALL, c);
	*e->u.call = call;
	int32_t idx = (int32_t)x->ev.n - 1;
	/* nested calls found in the arguments get this call as parent */
	for (uint32_t i = 0; i < call.nargs; i++) {
		for (uint32_t j = 0; j < call.args[i].ncalls; j++) {
			int32_t ci = call.args[i].calls[j];
			if (ci >= 0 && ci < idx && x->ev.v[ci].u.call->parent < 0) {
				x->ev.v[ci].u.call->parent = idx;
				x->ev.v[ci].u.call->parent_arg = (int32_t)i;
			}
		}
	}
	return idx;
}

/* ---- statements ---- */

static int32_t push_region(struct xctx *x, int kind, CXCursor c, struct esum *cond, bool negated)
{
	struct region r = {0};
	r.kind = (uint8_t)kind;
	r.parent = x->region;
	r.negated = negated;
	struct range rr = cursor_range(x, c);
	r.begin = rr.begin;
	r.end = rr.end;
	if (cond)
		esum_finish(x, cond, &r.cond);
	else
		r.cond.call = -1, r.cond.ref.var = -1, r.cond.text = "";
	vec_push(&x->rg, r);
	x->region = (int32_t)x->rg.n - 1;
	return x->region;
}

static bool stmt_jumps_out(CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt || k == CXCursor_BreakStmt || k == CXCursor_ContinueStmt)
		return true;
	if (k == CXCursor_CompoundStmt) {
		struct kids kd;
		kids_get(c, &kd);
		bool r = kd.n && stmt_jumps_out(kd.p[kd.n - 1]);
		kids_free(&kd);
		return r;
	}
	if (k == CXCursor_CallExpr) {
		/* noreturn raisers end the path too */
		CXString s = clang_getCursorSpelling(c);
		const char *n = clang_getCString(s);
		bool r = n && (strcmp(n, "rb_raise") == 0 || strcmp(n, "rb_sys_fail") == 0 ||
			       strcmp(n, "rb_exc_raise") == 0 || strcmp(n, "rb_jump_tag") == 0 ||
			       strcmp(n, "abort") == 0 || strcmp(n, "rb_bug") == 0);
		clang_disposeString(s);
		return r;
	}
	return false;
}

/* +1: condition true means the GVL is held; -1: false means held; 0: unrelated. */
static int cond_gvl(struct xctx *x, struct esum *cond)
{
	if (cond->calls.n != 1)
		return 0;
	int32_t ci = cond->calls.v[0];
	if (ci < 0 || (size_t)ci >= x->ev.n)
		return 0;
	if (!gvl_is_guard_predicate(x->ev.v[ci].u.call->name))
		return 0;
	return cond->negated ? -1 : 1;
}

/* ---- a gem's own "do I hold the GVL" flag ----
 *
 * `if (flag) return f(arg); ... rb_thread_call_with_gvl(f, arg);` (or the two
 * calls in the two branches of one if/else): whatever the condition tests (a
 * TLS flag, a field, ruby_thread_has_gvl_p()), the branch that calls f
 * directly is the one that already holds the GVL, or the gem would not call
 * f there without it. That branch counts as guarded. */

#define OWNFLAG_MAX_TARGETS 8

struct withgvl_targets {
	CXCursor decl[OWNFLAG_MAX_TARGETS];
	unsigned n;
	bool direct;    /* second pass: a direct call of one of them was seen */
	unsigned nodes; /* visit budget */
};

/* What the first argument of a call names: a function, a parameter or a
 * variable (null when it is anything else). */
static CXCursor callee_decl_of_expr(CXCursor e)
{
	CXCursor s = strip_wrappers(e, NULL);
	if (clang_getCursorKind(s) != CXCursor_DeclRefExpr)
		return clang_getNullCursor();
	CXCursor d = clang_getCursorReferenced(s);
	enum CXCursorKind k = clang_getCursorKind(d);
	if (k != CXCursor_FunctionDecl && k != CXCursor_ParmDecl && k != CXCursor_VarDecl)
		return clang_getNullCursor();
	return d;
}

static bool call_named(CXCursor c, const char *name)
{
	CXString sp = clang_getCursorSpelling(c);
	const char *n = clang_getCString(sp);
	bool r = n && strcmp(n, name) == 0;
	clang_disposeString(sp);
	return r;
}

#define OWNFLAG_NODE_BUDGET 20000u

static enum CXChildVisitResult withgvl_collect_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	(void)parent;
	struct withgvl_targets *t = d;
	if (++t->nodes > OWNFLAG_NODE_BUDGET)
		return CXChildVisit_Break;
	if (clang_getCursorKind(c) == CXCursor_CallExpr && call_named(c, WITH_GVL_API) &&
	    clang_Cursor_getNumArguments(c) >= 1 && t->n < OWNFLAG_MAX_TARGETS) {
		CXCursor dcl = callee_decl_of_expr(clang_Cursor_getArgument(c, 0));
		if (!clang_Cursor_isNull(dcl))
			t->decl[t->n++] = dcl;
	}
	return CXChildVisit_Recurse;
}

static enum CXChildVisitResult direct_call_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	(void)parent;
	struct withgvl_targets *t = d;
	if (++t->nodes > OWNFLAG_NODE_BUDGET)
		return CXChildVisit_Break;
	if (clang_getCursorKind(c) != CXCursor_CallExpr)
		return CXChildVisit_Recurse;
	struct kids kd;
	kids_get(c, &kd);
	CXCursor dcl = kd.n ? callee_decl_of_expr(kd.p[0]) : clang_getNullCursor();
	kids_free(&kd);
	if (!clang_Cursor_isNull(dcl))
		for (unsigned i = 0; i < t->n; i++)
			if (clang_equalCursors(dcl, t->decl[i])) {
				t->direct = true;
				return CXChildVisit_Break;
			}
	return CXChildVisit_Recurse;
}

static void withgvl_collect(CXCursor s, struct withgvl_targets *t)
{
	if (clang_Cursor_isNull(s))
		return;
	if (clang_getCursorKind(s) == CXCursor_CallExpr)
		withgvl_collect_cb(s, clang_getNullCursor(), t);
	clang_visitChildren(s, withgvl_collect_cb, t);
}

static bool calls_directly(CXCursor s, struct withgvl_targets *t)
{
	if (clang_Cursor_isNull(s) || !t->n)
		return false;
	t->direct = false;
	if (clang_getCursorKind(s) == CXCursor_CallExpr)
		direct_call_cb(s, clang_getNullCursor(), t);
	if (!t->direct)
		clang_visitChildren(s, direct_call_cb, t);
	return t->direct;
}

/* `a` calls f directly and `b` (the other branch, or the statements after an
 * if whose branch leaves) passes the same f to rb_thread_call_with_gvl. */
static bool own_gvl_flag_pair(const CXCursor *a, unsigned na, const CXCursor *b, unsigned nb)
{
	struct withgvl_targets t = {0};
	for (unsigned i = 0; i < nb; i++)
		withgvl_collect(b[i], &t);
	if (!t.n || t.nodes > OWNFLAG_NODE_BUDGET)
		return false;
	/* a side that itself re-enters through rb_thread_call_with_gvl is not
	 * the "already held" side */
	struct withgvl_targets ta = {0};
	for (unsigned i = 0; i < na; i++)
		withgvl_collect(a[i], &ta);
	if (ta.n || ta.nodes > OWNFLAG_NODE_BUDGET)
		return false;
	for (unsigned i = 0; i < na; i++)
		if (calls_directly(a[i], &t))
			return t.nodes <= OWNFLAG_NODE_BUDGET;
	return false;
}

static void walk_branch(struct xctx *x, int kind, CXCursor body, struct esum *cond, bool negated, bool guarded)
{
	int32_t saved = x->region;
	struct esum copy = {0};
	if (cond) {
		copy.e = cond->e;
		esum_merge(&copy, cond);
	}
	int32_t ri = push_region(x, kind, body, cond ? &copy : NULL, negated);
	esum_free(&copy);
	if (guarded)
		x->guard++;
	walk_stmt(x, body);
	if (guarded)
		x->guard--;
	x->rg.v[ri].ends_with_return = stmt_jumps_out(body);
	x->region = saved;
}

static void walk_compound(struct xctx *x, CXCursor c)
{
	struct kids kd;
	kids_get(c, &kd);
	int extra_guard = 0;
	for (unsigned i = 0; i < kd.n; i++) {
		CXCursor s = kd.p[i];
		if (clang_getCursorKind(s) == CXCursor_IfStmt) {
			/* `if (!ruby_thread_has_gvl_p()) return ...;` guards the rest */
			size_t before_rg = x->rg.n;
			x->if_rest = kd.p + i + 1;
			x->if_nrest = kd.n - i - 1;
			x->rest_holds_gvl = false;
			walk_stmt(x, s);
			x->if_rest = NULL;
			x->if_nrest = 0;
			bool rest_holds = x->rest_holds_gvl;
			x->rest_holds_gvl = false;
			if (x->rg.n > before_rg) {
				struct region *r = &x->rg.v[before_rg];
				if (r->kind == RG_THEN && r->negated && r->ends_with_return && r->cond.ncalls == 1 &&
				    r->cond.calls[0] >= 0 &&
				    gvl_is_guard_predicate(x->ev.v[r->cond.calls[0]].u.call->name))
					rest_holds = true;
			}
			if (rest_holds) {
				extra_guard++;
				x->guard++;
			}
			continue;
		}
		walk_stmt(x, s);
	}
	x->guard -= extra_guard;
	kids_free(&kd);
}

static void walk_decl(struct xctx *x, CXCursor d)
{
	int32_t vi = var_index(x, d);
	if (vi < 0)
		return;
	/* The initialiser, not just any expression child: `char buf[512]` has its
	 * size as a child too (walked as a read; a VLA size reads variables). */
	CXCursor init = clang_Cursor_getVarDeclInitializer(d);
	struct kids kd;
	kids_get(d, &kd);
	for (unsigned i = 0; i < kd.n; i++) {
		if (!is_expr_kind(clang_getCursorKind(kd.p[i])) || clang_equalCursors(kd.p[i], init))
			continue;
		struct esum sz = {0};
		walk_expr(x, kd.p[i], ACC_READ, &sz);
		esum_free(&sz);
	}
	kids_free(&kd);
	if (clang_Cursor_isNull(init))
		return;
	struct ref lhs = {.var = vi, .path = ""};
	CXCursor s = strip_wrappers(init, NULL);
	if (clang_getCursorKind(s) == CXCursor_InitListExpr) {
		walk_init_list(x, s, &lhs, clang_getCursorType(d));
		return;
	}
	struct esum rhs = {0};
	walk_expr(x, init, ACC_READ, &rhs);
	emit_access(x, d, &lhs, ACC_WRITE);
	emit_assign(x, d, &lhs, &rhs, true, false);
	if (rhs.e.kind == EX_FUNC && (x->tu->vars.v[vi].flags & VF_FNPTR))
		x->tu->vars.v[vi].init_fn_usr = rhs.e.func_usr;
	esum_free(&rhs);
}

static void walk_stmt_at(struct xctx *x, CXCursor c);

/* walk_stmt_at with the depth limit (extract.h: EXTRACT_MAX_DEPTH) */
static void walk_stmt(struct xctx *x, CXCursor c)
{
	if (!may_descend(x))
		return;
	x->depth++;
	walk_stmt_at(x, c);
	x->depth--;
}

static void walk_stmt_at(struct xctx *x, CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	switch (k) {
	case CXCursor_CompoundStmt:
		walk_compound(x, c);
		return;
	case CXCursor_DeclStmt: {
		struct kids kd;
		kids_get(c, &kd);
		for (unsigned i = 0; i < kd.n; i++)
			if (clang_getCursorKind(kd.p[i]) == CXCursor_VarDecl)
				walk_decl(x, kd.p[i]);
		kids_free(&kd);
		return;
	}
	case CXCursor_IfStmt: {
		/* the statements after this if in its block (walk_compound) */
		const CXCursor *rest = x->if_rest;
		unsigned nrest = x->if_nrest;
		x->if_rest = NULL;
		x->if_nrest = 0;
		struct kids kd;
		kids_get(c, &kd);
		unsigned i = 0;
		while (i < kd.n && !is_expr_kind(clang_getCursorKind(kd.p[i])))
			walk_stmt(x, kd.p[i++]); /* C++ init-statement / condition variable */
		if (i >= kd.n) {
			kids_free(&kd);
			return;
		}
		struct esum cond = {0};
		walk_expr(x, kd.p[i], ACC_READ, &cond);
		int g = cond_gvl(x, &cond);
		if (g == 0 && x->has_withgvl && i + 1 < kd.n) {
			/* a gem's own GVL flag: f() in one branch, rb_thread_call_with_gvl(f)
			 * in the other (or after this if, when the branch leaves) */
			CXCursor thn = kd.p[i + 1];
			bool has_else = i + 2 < kd.n;
			CXCursor els = has_else ? kd.p[i + 2] : clang_getNullCursor();
			if (has_else) {
				if (own_gvl_flag_pair(&thn, 1, &els, 1))
					g = 1;
				else if (own_gvl_flag_pair(&els, 1, &thn, 1))
					g = -1;
			} else if (nrest && stmt_jumps_out(thn)) {
				if (own_gvl_flag_pair(&thn, 1, rest, nrest))
					g = 1;
				else if (own_gvl_flag_pair(rest, nrest, &thn, 1))
					x->rest_holds_gvl = true;
			}
		}
		if (i + 1 < kd.n)
			walk_branch(x, RG_THEN, kd.p[i + 1], &cond, cond.negated, g > 0);
		if (i + 2 < kd.n)
			walk_branch(x, RG_ELSE, kd.p[i + 2], &cond, cond.negated, g < 0);
		esum_free(&cond);
		kids_free(&kd);
		return;
	}
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt:
	case CXCursor_ForStmt: {
		int32_t saved = x->region;
		int32_t ri = push_region(x, RG_LOOP, c, NULL, false);
		struct kids kd;
		kids_get(c, &kd);
		for (unsigned i = 0; i < kd.n; i++) {
			if (is_expr_kind(clang_getCursorKind(kd.p[i]))) {
				struct esum e = {0};
				walk_expr(x, kd.p[i], ACC_READ, &e);
				if (!x->rg.v[ri].cond.text || !*x->rg.v[ri].cond.text) {
					esum_finish(x, &e, &x->rg.v[ri].cond);
					struct range cr = cursor_range(x, kd.p[i]);
					x->rg.v[ri].cond_end = cr.end;
				}
				esum_free(&e);
			} else {
				walk_stmt(x, kd.p[i]);
			}
		}
		kids_free(&kd);
		x->region = saved;
		return;
	}
	case CXCursor_SwitchStmt: {
		struct kids kd;
		kids_get(c, &kd);
		int32_t saved = x->region;
		struct esum cond = {0};
		unsigned i = 0;
		if (kd.n && is_expr_kind(clang_getCursorKind(kd.p[0]))) {
			walk_expr(x, kd.p[0], ACC_READ, &cond);
			i = 1;
		}
		push_region(x, RG_SWITCH, c, &cond, false);
		esum_free(&cond);
		for (; i < kd.n; i++)
			walk_stmt(x, kd.p[i]);
		x->region = saved;
		kids_free(&kd);
		return;
	}
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
	case CXCursor_LabelStmt: {
		struct kids kd;
		kids_get(c, &kd);
		for (unsigned i = 0; i < kd.n; i++) {
			if (k == CXCursor_CaseStmt && i == 0)
				continue; /* the case value */
			walk_stmt(x, kd.p[i]);
		}
		kids_free(&kd);
		return;
	}
	case CXCursor_ReturnStmt: {
		struct kids kd;
		kids_get(c, &kd);
		struct esum e = {0};
		e.e.ref.var = -1;
		e.e.call = -1;
		if (kd.n)
			walk_expr(x, kd.p[0], ACC_READ, &e);
		struct event *ev = new_event(x, EV_RETURN, c);
		esum_finish(x, &e, ev->u.ret);
		esum_free(&e);
		kids_free(&kd);
		return;
	}
	case CXCursor_GotoStmt:
	case CXCursor_BreakStmt:
	case CXCursor_ContinueStmt:
	case CXCursor_NullStmt:
	case CXCursor_AsmStmt:
	case CXCursor_MSAsmStmt:
	case CXCursor_LambdaExpr:
		return;
	case CXCursor_VarDecl:
		walk_decl(x, c);
		return;
	default:
		if (is_expr_kind(k)) {
			struct esum e = {0};
			walk_expr(x, c, ACC_READ, &e);
			if (e.e.kind == EX_CALL && e.e.call >= 0)
				x->ev.v[e.e.call].u.call->result_used = 0;
			esum_free(&e);
			return;
		}
		if (clang_isStatement(k)) {
			struct kids kd;
			kids_get(c, &kd);
			for (unsigned i = 0; i < kd.n; i++)
				walk_stmt(x, kd.p[i]);
			kids_free(&kd);
		}
		return;
	}
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

/* ---- token-level scan ---- */

struct rawtok {
	uint32_t off, line;
	uint8_t kind;
	const char *sp; /* interned */
};

/* End offset of the logical line starting at off (backslash continuations joined). */
static size_t logical_line_end(const char *text, size_t size, size_t off)
{
	size_t i = off;
	for (;;) {
		while (i < size && text[i] != '\n')
			i++;
		size_t j = i;
		while (j > off && (text[j - 1] == '\r' || text[j - 1] == ' ' || text[j - 1] == '\t'))
			j--;
		if (i < size && j > off && text[j - 1] == '\\') {
			i++;
			continue;
		}
		return i;
	}
}

void extract_token_sites(CXTranslationUnit ctu, struct tu_facts *tu)
{
	CXFile f = clang_getFile(ctu, tu->path);
	if (!f)
		return;
	size_t size = 0;
	const char *contents = clang_getFileContents(ctu, f, &size);
	if (!contents)
		return;
	CXSourceRangeList *skipped = clang_getSkippedRanges(ctu, f);
	CXToken *toks = NULL;
	unsigned n = 0;
	clang_tokenize(ctu, whole_file(ctu, f, size), &toks, &n);
	VEC(struct rawtok) rt = {0};
	for (unsigned i = 0; i < n; i++) {
		CXTokenKind k = clang_getTokenKind(toks[i]);
		if (k == CXToken_Comment)
			continue;
		struct rawtok t = {0};
		clang_getFileLocation(clang_getTokenLocation(ctu, toks[i]), NULL, &t.line, NULL, &t.off);
		t.kind = (uint8_t)k;
		CXString s = clang_getTokenSpelling(ctu, toks[i]);
		t.sp = intern(&tu->pool, clang_getCString(s) ? clang_getCString(s) : "");
		clang_disposeString(s);
		vec_push(&rt, t);
	}
	if (toks)
		clang_disposeTokens(ctu, toks, n);

	const char *fn = NULL;              /* function whose body we are in */
	const char *last_call_ident = NULL; /* file scope: identifier followed by '(' */
	int depth = 0;
	uint32_t prev_line = 0;
	for (size_t i = 0; i < rt.n; i++) {
		const struct rawtok *t = &rt.v[i];
		bool first_on_line = t->line != prev_line;
		prev_line = t->line;
		if (first_on_line && t->kind == CXToken_Punctuation && strcmp(t->sp, "#") == 0) {
			/* a preprocessor directive: #define bodies are counted where they expand */
			size_t end = logical_line_end(contents, size, t->off);
			while (i + 1 < rt.n && rt.v[i + 1].off < end)
				i++;
			prev_line = rt.v[i].line;
			continue;
		}
		if (t->kind == CXToken_Punctuation) {
			if (strcmp(t->sp, "{") == 0) {
				if (depth == 0)
					fn = last_call_ident;
				depth++;
			} else if (strcmp(t->sp, "}") == 0 && depth > 0) {
				depth--;
			}
			continue;
		}
		if (t->kind != CXToken_Identifier)
			continue;
		bool next_paren = i + 1 < rt.n && strcmp(rt.v[i + 1].sp, "(") == 0;
		if (depth == 0 && next_paren)
			last_call_ident = t->sp;
		bool needs_call = true;
		if (depth == 0 || !gvl_watch_name(t->sp, &needs_call) || (needs_call && !next_paren))
			continue;
		struct token_site ts = {0};
		ts.api = t->sp;
		ts.function = fn;
		ts.loc.file = intern(&tu->pool, tu->path);
		ts.loc.line = t->line;
		ts.loc.off = t->off;
		ts.loc.col = 1;
		for (uint32_t o = t->off; o > 0 && contents[o - 1] != '\n'; o--)
			ts.loc.col++;
		if (i + 3 < rt.n && rt.v[i + 2].kind == CXToken_Identifier &&
		    (strcmp(rt.v[i + 3].sp, ",") == 0 || strcmp(rt.v[i + 3].sp, ")") == 0))
			ts.callback = rt.v[i + 2].sp;
		for (unsigned r = 0; skipped && r < skipped->count; r++) {
			unsigned o1, o2;
			clang_getFileLocation(clang_getRangeStart(skipped->ranges[r]), NULL, NULL, NULL, &o1);
			clang_getFileLocation(clang_getRangeEnd(skipped->ranges[r]), NULL, NULL, NULL, &o2);
			if (t->off >= o1 && t->off <= o2) {
				ts.inactive = 1;
				break;
			}
		}
		vec_push(&tu->token_sites, ts);
	}
	vec_free(&rt);
	if (skipped)
		clang_disposeSourceRangeList(skipped);
}

/* ---- preprocessor conditional scan (text) ---- */

void scan_pp_conds(struct tu_facts *tu, const char *text, size_t len)
{
	VEC(int32_t) stack = {0};
	uint32_t line = 1;
	size_t i = 0;
	while (i < len) {
		size_t ls = i;
		while (i < len && text[i] != '\n')
			i++;
		size_t le = i;
		/* join continuation lines for the condition text */
		size_t j = ls;
		while (j < le && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j < le && text[j] == '#') {
			j++;
			while (j < le && (text[j] == ' ' || text[j] == '\t'))
				j++;
			size_t ws = j;
			while (j < le && ((text[j] >= 'a' && text[j] <= 'z')))
				j++;
			size_t wl = j - ws;
			const char *d = text + ws;
			while (j < le && (text[j] == ' ' || text[j] == '\t'))
				j++;
			size_t ce = le;
			while (ce > j && (text[ce - 1] == ' ' || text[ce - 1] == '\t' || text[ce - 1] == '\r' ||
					  text[ce - 1] == '\\'))
				ce--;
			const char *cond = intern_n(&tu->pool, text + j, ce - j);
			if (wl == 6 && memcmp(d, "define", 6) == 0) {
				size_t ne = j;
				while (ne < le &&
				       (text[ne] == '_' || (text[ne] >= 'a' && text[ne] <= 'z') ||
					(text[ne] >= 'A' && text[ne] <= 'Z') || (text[ne] >= '0' && text[ne] <= '9')))
					ne++;
				if (ne > j) {
					struct pp_define pd = {intern_n(&tu->pool, text + j, ne - j), tu->path, line,
							       stack.n ? stack.v[stack.n - 1] : -1};
					vec_push(&tu->pp_defines, pd);
				}
			}
			bool opens = (wl == 2 && memcmp(d, "if", 2) == 0) || (wl == 5 && memcmp(d, "ifdef", 5) == 0) ||
				     (wl == 6 && memcmp(d, "ifndef", 6) == 0);
			bool mid = (wl == 4 && memcmp(d, "elif", 4) == 0) || (wl == 4 && memcmp(d, "else", 4) == 0);
			bool closes = wl == 5 && memcmp(d, "endif", 5) == 0;
			if ((mid || closes) && stack.n) {
				int32_t top = stack.v[stack.n - 1];
				tu->pp_conds.v[top].line_end = line - 1;
				tu->pp_conds.v[top].close_off = (uint32_t)le;
				tu->pp_conds.v[top].closed_by_endif = closes;
				stack.n--;
			}
			if (opens || mid) {
				struct pp_cond pc = {0};
				pc.directive = intern_n(&tu->pool, d, wl);
				pc.cond = mid && wl == 4 && memcmp(d, "else", 4) == 0 ? "" : cond;
				pc.line_begin = line + 1;
				pc.line_end = UINT32_MAX;
				pc.parent = stack.n ? stack.v[stack.n - 1] : -1;
				if (mid && tu->pp_conds.n) {
					/* siblings share the parent of the branch they follow */
				}
				vec_push(&tu->pp_conds, pc);
				vec_push(&stack, (int32_t)tu->pp_conds.n - 1);
			}
		}
		/* count the line; continuation lines are counted as they come */
		line++;
		i++;
	}
	vec_free(&stack);
}

void scan_pp_defines(struct tu_facts *tu, const char *file, const char *text, size_t len)
{
	uint32_t line = 1;
	size_t i = 0;
	while (i < len) {
		size_t ls = i;
		while (i < len && text[i] != '\n')
			i++;
		size_t j = ls;
		while (j < i && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j < i && text[j] == '#') {
			j++;
			while (j < i && (text[j] == ' ' || text[j] == '\t'))
				j++;
			if (i - j > 7 && memcmp(text + j, "define", 6) == 0 &&
			    (text[j + 6] == ' ' || text[j + 6] == '\t')) {
				j += 7;
				while (j < i && (text[j] == ' ' || text[j] == '\t'))
					j++;
				size_t ne = j;
				while (ne < i &&
				       (text[ne] == '_' || (text[ne] >= 'a' && text[ne] <= 'z') ||
					(text[ne] >= 'A' && text[ne] <= 'Z') || (text[ne] >= '0' && text[ne] <= '9')))
					ne++;
				if (ne > j) {
					struct pp_define pd = {intern_n(&tu->pool, text + j, ne - j), file, line, -1};
					vec_push(&tu->pp_defines, pd);
				}
			}
		}
		line++;
		i++;
	}
}
