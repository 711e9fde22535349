/* extract_ref.c: expression summaries, events, references (lvalue paths) and
 * assignments and initialisers (extract_walk.h). */
#include "extract_walk.h"

#include <stdlib.h>
#include <string.h>

#include "gvlapi.h"

/* ---- expression summaries ---- */

void esum_free(struct esum *s)
{
	vec_free(&s->reads);
	vec_free(&s->calls);
}

void esum_merge(struct esum *into, struct esum *from)
{
	for (size_t i = 0; i < from->reads.n; i++)
		vec_push(&into->reads, from->reads.v[i]);
	for (size_t i = 0; i < from->calls.n; i++)
		vec_push(&into->calls, from->calls.v[i]);
}

void esum_finish(struct xctx *x, struct esum *s, struct expr *out)
{
	*out = s->e;
	out->nreads = (uint32_t)s->reads.n;
	out->reads = s->reads.n ? arena_memdup(&x->tu->arena, s->reads.v, s->reads.n * sizeof(struct ref)) : NULL;
	out->ncalls = (uint32_t)s->calls.n;
	out->calls = s->calls.n ? arena_memdup(&x->tu->arena, s->calls.v, s->calls.n * sizeof(int32_t)) : NULL;
	if (!out->text)
		out->text = "";
}

struct event *new_event(struct xctx *x, int kind, CXCursor c)
{
	struct event e = {0};
	e.kind = (uint8_t)kind;
	if (kind == EV_CALL)
		e.u.call = arena_alloc(&x->tu->arena, sizeof(struct call));
	else if (kind == EV_ASSIGN)
		e.u.assign = arena_alloc(&x->tu->arena, sizeof(struct assign));
	else if (kind == EV_RETURN)
		e.u.ret = arena_alloc(&x->tu->arena, sizeof(struct expr));
	else if (kind == EV_ACCESS)
		e.u.access = arena_alloc(&x->tu->arena, sizeof(struct access));
	e.region = x->region;
	e.gvl_guard = x->guard > 0;
	CXSourceLocation sl = clang_getCursorLocation(c);
	e.loc = make_loc(x, sl, NULL);
	uint32_t eo = expansion_off(sl);
	const struct macro_exp *m = macro_at(x, e.loc.file, eo);
	if (m) {
		e.macro = m->name;
		e.in_macro_arg = eo != e.loc.off;
	}
	vec_push(&x->ev, e);
	return &x->ev.v[x->ev.n - 1];
}

void set_expr_common(struct xctx *x, CXCursor c, struct esum *s)
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

void try_evaluate(struct xctx *x, CXCursor c, struct esum *s)
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

void emit_access(struct xctx *x, CXCursor c, const struct ref *r, int mode)
{
	if (r->var < 0)
		return;
	struct event *e = new_event(x, EV_ACCESS, c);
	e->u.access->ref = *r;
	e->u.access->mode = (uint8_t)mode;
	e->u.access->atomic_op = x->atomic > 0;
}

bool first_tok_is(struct xctx *x, CXCursor c, const char *sp, struct range *rout)
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
const char *binop_spelling(struct xctx *x, CXCursor lhs, CXCursor whole)
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

bool is_assign_op(const char *op)
{
	if (!op)
		return false;
	size_t n = strlen(op);
	return n >= 1 && op[n - 1] == '=' && strcmp(op, "==") != 0 && strcmp(op, "!=") != 0 && strcmp(op, "<=") != 0 &&
	       strcmp(op, ">=") != 0;
}

CXCursor strip_wrappers(CXCursor c, bool *cast)
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

/* Fills out with a reference summary for lvalue-ish nodes; falls back to walk_expr. */
/* s.field, p->field, a C++ static data member or implicit this->field: the
 * base's path with the field appended. */
static void walk_member_ref(struct xctx *x, CXCursor s, struct esum *out)
{
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

void walk_ref(struct xctx *x, CXCursor c, struct esum *out, int mode)
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
		walk_member_ref(x, s, out);
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

void emit_assign(struct xctx *x, CXCursor at, const struct ref *lhs, struct esum *rhs, bool init, bool compound)
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

void walk_init_list(struct xctx *x, CXCursor list, const struct ref *lhs, CXType type)
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
