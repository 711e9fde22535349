/* extract_expr.c: the expression walk: atomic builtins, operators, calls
 * (extract_walk.h). */
#include "extract_walk.h"

#include <stdlib.h>
#include <string.h>

#include "gvlapi.h"

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
void walk_expr(struct xctx *x, CXCursor c, int mode, struct esum *out)
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

/* A cast, parentheses or an implicit conversion: the expression inside, with
 * the outer node's text and location. False when there is nothing to strip
 * (the generic walk takes the node). */
static bool walk_cast(struct xctx *x, CXCursor c, int mode, struct esum *out)
{
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
		return true;
	}
	return false;
}

/* A name: a function, an enum constant, a variable or parameter. */
static void walk_declref(struct xctx *x, CXCursor c, int mode, struct esum *out)
{
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

/* &x, ++/--, *p, !x and the other unary operators. False when the node is
 * not one operator and its operand (the generic walk takes it). */
static bool walk_unary(struct xctx *x, CXCursor c, int mode, struct esum *out)
{
	struct kids kd;
	kids_get(c, &kd);
	if (kd.n != 1) {
		kids_free(&kd);
		return false;
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
		return true;
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
		return true;
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
		return true;
	}
	struct esum in = {0};
	walk_expr(x, kd.p[0], ACC_READ, &in);
	esum_merge(out, &in);
	if (out->negated && in.e.kind == EX_CALL)
		out->e.call = in.e.call;
	esum_free(&in);
	kids_free(&kd);
	try_evaluate(x, c, out);
	return true;
}

/* The initialiser list of a compound literal c ((struct T){...}, under casts
 * and parentheses), else a null cursor. */
static CXCursor compound_literal_list(CXCursor c)
{
	CXCursor s = strip_wrappers(c, NULL);
	if (clang_getCursorKind(s) != CXCursor_CompoundLiteralExpr)
		return clang_getNullCursor();
	struct kids kd;
	kids_get(s, &kd);
	CXCursor list = clang_getNullCursor();
	for (unsigned i = 0; i < kd.n; i++)
		if (clang_getCursorKind(kd.p[i]) == CXCursor_InitListExpr)
			list = kd.p[i];
	kids_free(&kd);
	return list;
}

/* Assignments and binary operators. False when the node is not two operands
 * (the generic walk takes it). */
static bool walk_binary(struct xctx *x, CXCursor c, enum CXCursorKind k, struct esum *out)
{
	struct kids kd;
	kids_get(c, &kd);
	if (kd.n != 2) {
		kids_free(&kd);
		return false;
	}
	const char *op = k == CXCursor_CompoundAssignOperator ? "+=" : binop_spelling(x, kd.p[0], c);
	if (is_assign_op(op)) {
		bool compound = strcmp(op, "=") != 0;
		struct esum rhs = {0}, lhs = {0};
		CXCursor lit = compound ? clang_getNullCursor() : compound_literal_list(kd.p[1]);
		if (!clang_Cursor_isNull(lit)) {
			/* a = (struct T){.f = x, ...}: each member assigned, as for an
			 * initialised declaration (walk_decl) */
			walk_ref(x, kd.p[0], &lhs, ACC_WRITE);
			esum_merge(out, &lhs);
			if (lhs.e.kind == EX_REF) {
				emit_access(x, c, &lhs.e.ref, ACC_WRITE);
				walk_init_list(x, lit, &lhs.e.ref, clang_getCursorType(kd.p[0]));
				out->e.kind = EX_REF;
				out->e.ref = lhs.e.ref;
			} else {
				struct ref none = {.var = -1, .path = ""};
				walk_init_list(x, lit, &none, clang_getCursorType(kd.p[0]));
			}
			esum_free(&lhs);
			kids_free(&kd);
			return true;
		}
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
		return true;
	}
	for (unsigned i = 0; i < kd.n; i++) {
		struct esum in = {0};
		walk_expr(x, kd.p[i], ACC_READ, &in);
		esum_merge(out, &in);
		esum_free(&in);
	}
	kids_free(&kd);
	try_evaluate(x, c, out);
	return true;
}

/* Any other expression: its children walked as reads; an atomic builtin
 * recorded as a call of the builtin. */
static void walk_generic(struct xctx *x, CXCursor c, enum CXCursorKind k, struct esum *out)
{
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

static void walk_expr_at(struct xctx *x, CXCursor c, int mode, struct esum *out)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	set_expr_common(x, c, out);
	out->e.ref.var = -1;
	out->e.call = -1;

	switch (k) {
	case CXCursor_UnexposedExpr:
	case CXCursor_ParenExpr:
	case CXCursor_CStyleCastExpr:
		if (walk_cast(x, c, mode, out))
			return;
		break; /* generic walk below */
	case CXCursor_DeclRefExpr:
		walk_declref(x, c, mode, out);
		return;
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
	case CXCursor_UnaryOperator:
		if (walk_unary(x, c, mode, out))
			return;
		break;
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator:
		if (walk_binary(x, c, k, out))
			return;
		break;
	default:
		break;
	}
	/* generic: walk children as reads */
	walk_generic(x, c, k, out);
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

/* Ruby 3.1 headers pick the callee with a constant test:
 * rb_str_new(p, n) is `(CONSTANT_P(p) && CONSTANT_P(n) ? rb_str_new_static :
 * rb_str_new)((p), (n))`. A conditional whose branches both name
 * functions is a direct call to the last one (the general case). */
static void constant_test_callee(const struct kids *kd, CXCursor *ref, enum CXCursorKind *rk)
{
	CXCursor cal = strip_wrappers(kd->p[0], NULL);
	if (clang_getCursorKind(cal) != CXCursor_ConditionalOperator)
		return;
	struct kids ck;
	kids_get(cal, &ck);
	if (ck.n == 3) {
		CXCursor t = strip_wrappers(ck.p[1], NULL), f = strip_wrappers(ck.p[2], NULL);
		CXCursor td = clang_getCursorReferenced(t), fd = clang_getCursorReferenced(f);
		if (clang_getCursorKind(t) == CXCursor_DeclRefExpr && clang_getCursorKind(f) == CXCursor_DeclRefExpr &&
		    clang_getCursorKind(td) == CXCursor_FunctionDecl &&
		    clang_getCursorKind(fd) == CXCursor_FunctionDecl) {
			*ref = fd;
			*rk = CXCursor_FunctionDecl;
		}
	}
	kids_free(&ck);
}

/* The callee of a call: a function it names (directly or through a cast or
 * `*`), or the expression of an indirect call (its reads go to out). */
static void call_callee(struct xctx *x, CXCursor c, const struct kids *kd, CXCursor ref, enum CXCursorKind rk,
			struct call *call, struct esum *out)
{
	if (rk == CXCursor_FunctionDecl || rk == CXCursor_CXXMethod || rk == CXCursor_Constructor) {
		call->name = intern_cx(x, clang_getCursorSpelling(ref));
		call->usr = intern_cx(x, clang_getCursorUSR(ref));
		call->origin = (uint8_t)decl_origin(x, ref, c, call->name, &call->decl_file);
		call->variadic = clang_Cursor_isVariadic(ref) != 0;
		call->returns_value = type_is_value(clang_getResultType(clang_getCursorType(ref)));
		struct esum ce = {0};
		set_expr_common(x, kd->n ? kd->p[0] : c, &ce);
		ce.e.kind = EX_FUNC;
		ce.e.func_usr = call->usr;
		ce.e.func_name = call->name;
		esum_finish(x, &ce, &call->callee);
		esum_free(&ce);
	} else {
		call->indirect = 1;
		struct esum ce = {0};
		if (kd->n)
			walk_expr(x, kd->p[0], ACC_READ, &ce);
		esum_merge(out, &ce);
		esum_finish(x, &ce, &call->callee);
		esum_free(&ce);
		call->name = call->callee.ref.field ? call->callee.ref.field : call->callee.text;
		if (call->callee.kind == EX_FUNC) {
			/* (*fn)(x) or a cast function designator: still direct */
			call->indirect = 0;
			call->name = call->callee.func_name;
			call->usr = call->callee.func_usr;
		}
		if (!call->name)
			call->name = "";
	}
}

int32_t walk_call(struct xctx *x, CXCursor c, struct esum *out)
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
	if (rk != CXCursor_FunctionDecl && rk != CXCursor_CXXMethod && rk != CXCursor_Constructor && kd.n)
		constant_test_callee(&kd, &ref, &rk);
	call_callee(x, c, &kd, ref, rk, &call, out);
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
