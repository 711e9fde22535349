/* extract_stmt.c: the statement walk: regions, branches, guards and a gem's own
 * "do I hold the GVL" flag (extract_walk.h). */
#include "extract_walk.h"

#include <stdlib.h>
#include <string.h>

#include "gvlapi.h"

/* ---- statements ---- */

int32_t push_region(struct xctx *x, int kind, CXCursor c, struct esum *cond, bool negated)
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

/* A call of a function declared noreturn (Ruby's NORETURN(), a gem's own
 * raise helper): clang writes the attribute into the function's type. */
static bool calls_noreturn(CXCursor call)
{
	CXCursor d = clang_getCursorReferenced(call);
	if (clang_getCursorKind(d) != CXCursor_FunctionDecl)
		return false;
	CXString ts = clang_getTypeSpelling(clang_getCursorType(d));
	const char *t = clang_getCString(ts);
	bool r = t && strstr(t, "noreturn");
	clang_disposeString(ts);
	return r;
}

static bool stmt_jumps_out(CXCursor c)
{
	enum CXCursorKind k = clang_getCursorKind(c);
	if (k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt || k == CXCursor_BreakStmt || k == CXCursor_ContinueStmt)
		return true;
	if (k == CXCursor_CompoundStmt || k == CXCursor_LabelStmt) {
		/* the last statement, or the one a label (`out: return x;`) marks */
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
		return r || calls_noreturn(c);
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

void withgvl_collect(CXCursor s, struct withgvl_targets *t)
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

/* ---- a condition named after the GVL ----
 *
 * `if (have_gvl) { ...Ruby API... } else grab_gvl_and_raise(...);` and
 * `if (holding_the_gvl()) { ...; raise(); } rb_thread_call_with_gvl(g, a);`:
 * the condition spells the GVL (an identifier or a call with "gvl" in its
 * name) and exactly one side takes the GVL (rb_thread_call_with_gvl, or a
 * call of a function named for taking it); the other side is where the gem
 * already holds it. A condition that does not name the GVL needs the
 * same-function pairing above. */

struct gvl_scan {
	unsigned nodes;
	bool found;
	bool takes; /* looking for a call that takes the GVL, not for the word */
};

static bool gvl_word(const char *n)
{
	return n && strcasestr(n, "gvl");
}

/* A call that takes the GVL: rb_thread_call_with_gvl or a function named so
 * (grab_gvl_and_raise, call_with_gvl ...), not one that releases it or only
 * asks about it. */
static bool takes_gvl_name(const char *n)
{
	static const char *const not_taking[] = {"without", "nogvl", "no_gvl",  "releas", "unlock",
						 "has_",    "have_", "holding", "is_",    "owner"};
	if (!gvl_word(n))
		return false;
	for (size_t i = 0; i < sizeof(not_taking) / sizeof(not_taking[0]); i++)
		if (strcasestr(n, not_taking[i]))
			return false;
	return true;
}

static enum CXChildVisitResult gvl_scan_cb(CXCursor c, CXCursor parent, CXClientData d)
{
	(void)parent;
	struct gvl_scan *g = d;
	if (++g->nodes > OWNFLAG_NODE_BUDGET)
		return CXChildVisit_Break;
	enum CXCursorKind k = clang_getCursorKind(c);
	bool look = g->takes ? k == CXCursor_CallExpr
			     : k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr || k == CXCursor_CallExpr;
	if (look) {
		CXString sp = clang_getCursorSpelling(c);
		const char *n = clang_getCString(sp);
		g->found = g->takes ? takes_gvl_name(n) : gvl_word(n);
		clang_disposeString(sp);
		if (g->found)
			return CXChildVisit_Break;
	}
	return CXChildVisit_Recurse;
}

static bool gvl_scan(const CXCursor *v, unsigned n, bool takes)
{
	struct gvl_scan g = {0, false, takes};
	for (unsigned i = 0; i < n && !g.found && g.nodes <= OWNFLAG_NODE_BUDGET; i++) {
		gvl_scan_cb(v[i], clang_getNullCursor(), &g);
		if (!g.found)
			clang_visitChildren(v[i], gvl_scan_cb, &g);
	}
	return g.found && g.nodes <= OWNFLAG_NODE_BUDGET;
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

/* A backward goto is a retry path, a forward one resumes at its label:
 * record either by offsets (RG_RETRY, RG_GOTO). */
static void walk_goto(struct xctx *x, CXCursor c)
{
	CXCursor label = clang_getCursorReferenced(c);
	if (clang_getCursorKind(label) != CXCursor_LabelStmt)
		return;
	struct range lr = cursor_range(x, label), gr = cursor_range(x, c);
	if (lr.end <= lr.begin || gr.end <= gr.begin || lr.begin == gr.begin)
		return;
	struct region r = {0};
	bool back = lr.begin < gr.begin;
	r.kind = back ? RG_RETRY : RG_GOTO;
	r.parent = -1;
	r.begin = back ? lr.begin : gr.begin;
	r.end = back ? gr.end : lr.begin;
	r.cond.call = -1, r.cond.ref.var = -1, r.cond.text = "";
	vec_push(&x->rg, r);
}

static void walk_stmt_at(struct xctx *x, CXCursor c);

/* walk_stmt_at with the depth limit (extract.h: EXTRACT_MAX_DEPTH) */
void walk_stmt(struct xctx *x, CXCursor c)
{
	if (!may_descend(x))
		return;
	x->depth++;
	walk_stmt_at(x, c);
	x->depth--;
}

/* An if: its condition, its branches, and a gem's own GVL flag deciding
 * which branch holds the GVL. */
static void walk_if(struct xctx *x, CXCursor c)
{
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
	if (g == 0 && !x->rest_holds_gvl && i + 1 < kd.n && gvl_scan(&kd.p[i], 1, false)) {
		/* a condition named after the GVL: the side that does not take it */
		CXCursor thn = kd.p[i + 1];
		bool t = gvl_scan(&thn, 1, true);
		if (i + 2 < kd.n) {
			bool e = gvl_scan(&kd.p[i + 2], 1, true);
			g = e && !t ? 1 : t && !e ? -1 : 0;
		} else if (nrest && stmt_jumps_out(thn)) {
			bool r = gvl_scan(rest, nrest, true);
			if (r && !t)
				g = 1;
			else if (t && !r)
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

/* while, do and for: a loop region whose condition is its first expression. */
static void walk_loop(struct xctx *x, CXCursor c)
{
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

/* A switch: a region with its condition. */
static void walk_switch(struct xctx *x, CXCursor c)
{
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
	case CXCursor_IfStmt:
		walk_if(x, c);
		return;
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt:
	case CXCursor_ForStmt:
		walk_loop(x, c);
		return;
	case CXCursor_SwitchStmt:
		walk_switch(x, c);
		return;
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
		walk_goto(x, c);
		return;
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
