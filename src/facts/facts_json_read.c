/* facts_json_read.c: facts_from_json (see facts_io.h), the JSON reader. */
#include <stdlib.h>
#include <string.h>

#include "facts_io_impl.h"

static const json_t *at(struct rctx *r, const json_t *a, size_t i)
{
	const json_t *v = json_is_array(a) ? json_array_get(a, i) : NULL;
	if (!v)
		facts_bad(r, "short array");
	return v;
}

/* Trailing elements may be absent (the writer trims defaults). */
static const json_t *opt(const json_t *a, size_t i)
{
	return json_is_array(a) ? json_array_get(a, i) : NULL;
}

static long long oI(struct rctx *r, const json_t *a, size_t i, long long dflt)
{
	const json_t *v = opt(a, i);
	if (!v)
		return dflt;
	if (!json_is_integer(v)) {
		facts_bad(r, "integer expected");
		return dflt;
	}
	return (long long)json_integer_value(v);
}

static uint8_t oU8(struct rctx *r, const json_t *a, size_t i)
{
	long long v = oI(r, a, i, 0);
	if (v < 0 || v > 255) {
		facts_bad(r, "byte out of range");
		return 0;
	}
	return (uint8_t)v;
}

static uint32_t oU(struct rctx *r, const json_t *a, size_t i)
{
	long long v = oI(r, a, i, 0);
	if (v < 0 || v > UINT32_MAX) {
		facts_bad(r, "unsigned value out of range");
		return 0;
	}
	return (uint32_t)v;
}

static int32_t oS32(struct rctx *r, const json_t *a, size_t i, int32_t dflt)
{
	long long v = oI(r, a, i, dflt);
	if (v < INT32_MIN || v > INT32_MAX) {
		facts_bad(r, "value out of range");
		return dflt;
	}
	return (int32_t)v;
}

static const char *rstr_of(struct rctx *r, const json_t *v);

static const char *oStr(struct rctx *r, const json_t *a, size_t i)
{
	const json_t *v = opt(a, i);
	return v ? rstr_of(r, v) : NULL;
}

static long long rI(struct rctx *r, const json_t *a, size_t i)
{
	const json_t *v = at(r, a, i);
	if (!json_is_integer(v)) {
		facts_bad(r, "integer expected");
		return 0;
	}
	return (long long)json_integer_value(v);
}

static uint32_t rU(struct rctx *r, const json_t *a, size_t i)
{
	long long v = rI(r, a, i);
	if (v < 0 || v > UINT32_MAX) {
		facts_bad(r, "unsigned value out of range");
		return 0;
	}
	return (uint32_t)v;
}

static int32_t rS32(struct rctx *r, const json_t *a, size_t i)
{
	long long v = rI(r, a, i);
	if (v < INT32_MIN || v > INT32_MAX) {
		facts_bad(r, "value out of range");
		return 0;
	}
	return (int32_t)v;
}

static uint8_t rU8(struct rctx *r, const json_t *a, size_t i)
{
	long long v = rI(r, a, i);
	if (v < 0 || v > 255) {
		facts_bad(r, "byte out of range");
		return 0;
	}
	return (uint8_t)v;
}

static const char *rstr_of(struct rctx *r, const json_t *v)
{
	if (json_is_null(v))
		return NULL;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (size_t)json_integer_value(v) >= r->nstrings) {
		facts_bad(r, "bad string reference");
		return NULL;
	}
	return r->strings[json_integer_value(v)];
}

static const char *rStr(struct rctx *r, const json_t *a, size_t i)
{
	const json_t *v = at(r, a, i);
	return v ? rstr_of(r, v) : NULL;
}

static void rloc(struct rctx *r, const json_t *a, struct loc *l)
{
	l->file = rStr(r, a, 0);
	l->line = rU(r, a, 1);
	l->col = rU(r, a, 2);
	l->off = rU(r, a, 3);
}

static void rref(struct rctx *r, const json_t *a, struct ref *f)
{
	memset(f, 0, sizeof(*f));
	f->var = -1;
	if (json_is_null(a))
		return;
	if (!json_is_array(a)) {
		facts_bad(r, "reference");
		return;
	}
	f->var = oS32(r, a, 0, -1);
	f->path = oStr(r, a, 1);
	f->record = oStr(r, a, 2);
	f->field = oStr(r, a, 3);
	f->addr = oU8(r, a, 4);
	f->deref = oU8(r, a, 5);
	f->ptr_deref = oU8(r, a, 6);
	if (f->var < -1 || (f->var >= 0 && (size_t)f->var >= r->tu->vars.n))
		facts_bad(r, "variable index out of range");
}

static void rexpr(struct rctx *r, const json_t *a, struct expr *e)
{
	memset(e, 0, sizeof(*e));
	if (!json_is_array(a)) {
		facts_bad(r, "expression");
		return;
	}
	e->kind = oU8(r, a, 0);
	e->text = oStr(r, a, 1);
	rloc(r, at(r, a, 2), &e->loc);
	rref(r, opt(a, 3) ? opt(a, 3) : json_null(), &e->ref);
	e->call = oS32(r, a, 4, -1);
	const json_t *reads = opt(a, 5), *calls = opt(a, 6);
	if ((reads && !json_is_array(reads)) || (calls && !json_is_array(calls))) {
		facts_bad(r, "expression lists");
		return;
	}
	e->exact = oU8(r, a, 7);
	e->begin = oU(r, a, 8);
	e->end = oU(r, a, 9);
	e->has_ival = oU8(r, a, 10);
	e->ival = oI(r, a, 11, 0);
	e->cast = oU8(r, a, 12);
	e->is_value = oU8(r, a, 13);
	e->macro = oStr(r, a, 14);
	e->func_usr = oStr(r, a, 15);
	e->func_name = oStr(r, a, 16);
	e->nreads = reads ? (uint32_t)json_array_size(reads) : 0;
	e->reads = e->nreads ? arena_alloc(&r->tu->arena, e->nreads * sizeof(struct ref)) : NULL;
	for (uint32_t i = 0; i < e->nreads; i++)
		rref(r, json_array_get(reads, i), &e->reads[i]);
	e->ncalls = calls ? (uint32_t)json_array_size(calls) : 0;
	e->calls = e->ncalls ? arena_alloc(&r->tu->arena, e->ncalls * sizeof(int32_t)) : NULL;
	for (uint32_t i = 0; i < e->ncalls; i++)
		e->calls[i] = rS32(r, calls, i);
}

static void revent(struct rctx *r, const json_t *a, struct event *e)
{
	e->kind = rU8(r, a, 0);
	rloc(r, at(r, a, 1), &e->loc);
	e->region = oS32(r, a, 2, 0);
	const json_t *p = at(r, a, 3);
	e->in_macro_arg = oU8(r, a, 4);
	e->gvl_guard = oU8(r, a, 5);
	e->macro = oStr(r, a, 6);
	switch (e->kind) {
	case EV_CALL: {
		struct call *c = e->u.call = arena_alloc(&r->tu->arena, sizeof(struct call));
		c->name = rStr(r, p, 0);
		c->usr = rStr(r, p, 1);
		c->decl_file = rStr(r, p, 2);
		c->origin = rU8(r, p, 3);
		c->indirect = rU8(r, p, 4);
		c->variadic = rU8(r, p, 5);
		c->returns_value = rU8(r, p, 6);
		rexpr(r, at(r, p, 7), &c->callee);
		const json_t *args = at(r, p, 8);
		if (!json_is_array(args)) {
			facts_bad(r, "call arguments");
			break;
		}
		c->nargs = (uint32_t)json_array_size(args);
		c->args = c->nargs ? arena_alloc(&r->tu->arena, c->nargs * sizeof(struct expr)) : NULL;
		for (uint32_t i = 0; i < c->nargs; i++)
			rexpr(r, json_array_get(args, i), &c->args[i]);
		c->parent = rS32(r, p, 9);
		c->parent_arg = rS32(r, p, 10);
		rref(r, at(r, p, 11), &c->result);
		c->rparen = rU(r, p, 12);
		c->result_used = rU8(r, p, 13);
		break;
	}
	case EV_ASSIGN:
		e->u.assign = arena_alloc(&r->tu->arena, sizeof(struct assign));
		rref(r, at(r, p, 0), &e->u.assign->lhs);
		rexpr(r, at(r, p, 1), &e->u.assign->rhs);
		e->u.assign->compound = rU8(r, p, 2);
		e->u.assign->is_init = rU8(r, p, 3);
		e->u.assign->whole_init = rU8(r, p, 4);
		break;
	case EV_ACCESS:
		e->u.access = arena_alloc(&r->tu->arena, sizeof(struct access));
		rref(r, at(r, p, 0), &e->u.access->ref);
		e->u.access->mode = rU8(r, p, 1);
		e->u.access->atomic_op = rU8(r, p, 2);
		break;
	case EV_RETURN:
		e->u.ret = arena_alloc(&r->tu->arena, sizeof(struct expr));
		rexpr(r, p, e->u.ret);
		break;
	default:
		facts_bad(r, "unknown event kind");
		break;
	}
}

static void rfunc(struct rctx *r, const json_t *a, struct func *f)
{
	f->name = rStr(r, a, 0);
	f->usr = rStr(r, a, 1);
	f->flags = rU(r, a, 2);
	rloc(r, at(r, a, 3), &f->loc);
	rloc(r, at(r, a, 4), &f->end);
	f->ret_type = rStr(r, a, 5);
	const json_t *params = at(r, a, 6), *events = at(r, a, 7), *regions = at(r, a, 8);
	if (!json_is_array(params) || !json_is_array(events) || !json_is_array(regions)) {
		facts_bad(r, "function lists");
		return;
	}
	f->nparams = (uint32_t)json_array_size(params);
	f->params = f->nparams ? arena_alloc(&r->tu->arena, f->nparams * sizeof(int32_t)) : NULL;
	for (uint32_t i = 0; i < f->nparams; i++)
		f->params[i] = rS32(r, params, i);
	f->nevents = (uint32_t)json_array_size(events);
	f->events = f->nevents ? arena_alloc(&r->tu->arena, f->nevents * sizeof(struct event)) : NULL;
	for (uint32_t i = 0; i < f->nevents && !r->bad; i++)
		revent(r, json_array_get(events, i), &f->events[i]);
	f->nregions = (uint32_t)json_array_size(regions);
	f->regions = f->nregions ? arena_alloc(&r->tu->arena, f->nregions * sizeof(struct region)) : NULL;
	for (uint32_t i = 0; i < f->nregions && !r->bad; i++) {
		const json_t *g = json_array_get(regions, i);
		struct region *rg = &f->regions[i];
		rg->kind = rU8(r, g, 0);
		rg->negated = rU8(r, g, 1);
		rg->parent = rS32(r, g, 2);
		rexpr(r, at(r, g, 3), &rg->cond);
		rg->begin = rU(r, g, 4);
		rg->end = rU(r, g, 5);
		rg->ends_with_return = rU8(r, g, 6);
		rg->cond_end = rU(r, g, 7);
	}
	check_func_indices(r, f);
}

static const json_t *obj_array(struct rctx *r, const json_t *root, const char *key)
{
	const json_t *a = json_object_get(root, key);
	if (!json_is_array(a)) {
		facts_bad(r, key);
		return NULL;
	}
	return a;
}

/* The string table: every string once, interned in the TU's pool. */
static void rstrings(struct rctx *r, const json_t *strings)
{
	for (size_t i = 0; i < r->nstrings; i++) {
		size_t sl = 0;
		char *sv = json_bytes_value(json_array_get(strings, i), &sl);
		if (!sv) {
			facts_bad(r, "string table");
			break;
		}
		r->strings[i] = intern_n(&r->tu->pool, sv, sl);
		free(sv);
	}
}

/* The path, display name and the parse status. */
static void rstatus(struct rctx *r, const json_t *root)
{
	struct tu_facts *tu = r->tu;
	tu->path = rstr_of(r, json_object_get(root, "path"));
	tu->display = rstr_of(r, json_object_get(root, "display"));
	const json_t *st = json_object_get(root, "status");
	tu->status = rU8(r, st, 0);
	tu->degraded = rU8(r, st, 1);
	tu->buildless = rU8(r, st, 2);
	tu->cxx = rU8(r, st, 3);
	tu->fail_reason = rStr(r, st, 4);
	tu->nerrors = rU(r, st, 5);
	tu->nwarnings = rU(r, st, 6);
	tu->stub_rounds = rU(r, st, 7);
	tu->nstubs = rU(r, st, 8);
	const json_t *ps = at(r, st, 9);
	tu->parse_seconds = json_is_real(ps) ? json_real_value(ps) : 0;
	const json_t *pu = json_array_get(st, 10), *pb = json_array_get(st, 11);
	tu->pch_use = json_is_integer(pu) && json_integer_value(pu) <= PCH_USE_INELIGIBLE
			      ? (uint8_t)json_integer_value(pu)
			      : 0;
	tu->pch_built = json_is_integer(pb) && json_integer_value(pb) >= 0 && json_integer_value(pb) < 8
				? (uint8_t)json_integer_value(pb)
				: 0;
	if (!tu->path)
		facts_bad(r, "path");
}

/* Variables, then functions (refs are checked against the variables' count). */
static void rvars_funcs(struct rctx *r, const json_t *root)
{
	struct tu_facts *tu = r->tu;
	const json_t *a;
	/* vars first: refs are checked against their count */
	if ((a = obj_array(r, root, "vars")) != NULL) {
		vec_reserve(&tu->vars, json_array_size(a));
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct var x = {0};
			x.name = rStr(r, v, 0);
			x.usr = rStr(r, v, 1);
			x.type = rStr(r, v, 2);
			x.record = rStr(r, v, 3);
			x.flags = rU(r, v, 4);
			x.kind = rU8(r, v, 5);
			x.fn = rS32(r, v, 6);
			x.param_index = rS32(r, v, 7);
			rloc(r, at(r, v, 8), &x.loc);
			x.init_fn_usr = rStr(r, v, 9);
			vec_push(&tu->vars, x);
		}
	}
	if ((a = obj_array(r, root, "funcs")) != NULL) {
		vec_reserve(&tu->funcs, json_array_size(a));
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			struct func f = {0};
			rfunc(r, json_array_get(a, i), &f);
			vec_push(&tu->funcs, f);
		}
	}
	for (size_t i = 0; i < tu->vars.n; i++)
		if (tu->vars.v[i].fn < -1 || tu->vars.v[i].fn >= (int32_t)tu->funcs.n)
			facts_bad(r, "variable owner out of range");
}

/* Bindings and what the preprocessor left: macros, includes, conditionals. */
static void rsource(struct rctx *r, const json_t *root)
{
	struct tu_facts *tu = r->tu;
	const json_t *a;
	if ((a = obj_array(r, root, "bindings")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct binding b = {0};
			b.record = rStr(r, v, 0);
			b.field = rStr(r, v, 1);
			b.fn_usr = rStr(r, v, 2);
			b.fn_name = rStr(r, v, 3);
			rloc(r, at(r, v, 4), &b.loc);
			b.param_of_usr = rStr(r, v, 5);
			b.param_index = rS32(r, v, 6);
			vec_push(&tu->bindings, b);
		}
	if ((a = obj_array(r, root, "macro_exps")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct macro_exp m = {0};
			m.name = rStr(r, v, 0);
			rloc(r, at(r, v, 1), &m.loc);
			m.begin = rU(r, v, 2);
			m.end = rU(r, v, 3);
			vec_push(&tu->macro_exps, m);
		}
	if ((a = obj_array(r, root, "macro_defs")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct macro_def m = {0};
			m.name = rStr(r, v, 0);
			rloc(r, at(r, v, 1), &m.loc);
			m.function_like = rU8(r, v, 2);
			m.body = rStr(r, v, 3);
			vec_push(&tu->macro_defs, m);
		}
	if ((a = obj_array(r, root, "includes")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct include_dir in = {0};
			in.spelled = rStr(r, v, 0);
			rloc(r, at(r, v, 1), &in.loc);
			in.end_off = rU(r, v, 2);
			vec_push(&tu->includes, in);
		}
	if ((a = obj_array(r, root, "pp_conds")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct pp_cond c = {0};
			c.directive = rStr(r, v, 0);
			c.cond = rStr(r, v, 1);
			c.line_begin = rU(r, v, 2);
			c.line_end = rU(r, v, 3);
			c.parent = rS32(r, v, 4);
			c.close_off = oU(r, v, 5);
			c.closed_by_endif = oU8(r, v, 6);
			vec_push(&tu->pp_conds, c);
		}
	if ((a = obj_array(r, root, "pp_defines")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct pp_define d = {0};
			d.name = rStr(r, v, 0);
			d.file = rStr(r, v, 1);
			d.line = rU(r, v, 2);
			d.cond = rS32(r, v, 3);
			vec_push(&tu->pp_defines, d);
		}
}

/* Token sites, diagnostics, the files of the TU, the dropped flags. */
static void rsites(struct rctx *r, const json_t *root)
{
	struct tu_facts *tu = r->tu;
	const json_t *a;
	if ((a = obj_array(r, root, "token_sites")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct token_site t = {0};
			t.api = rStr(r, v, 0);
			t.callback = rStr(r, v, 1);
			t.function = rStr(r, v, 2);
			rloc(r, at(r, v, 3), &t.loc);
			t.inactive = rU8(r, v, 4);
			t.guard = rStr(r, v, 5);
			t.in_ast = rU8(r, v, 6);
			vec_push(&tu->token_sites, t);
		}
	if ((a = obj_array(r, root, "diags")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct diag d = {0};
			d.severity = rU8(r, v, 0);
			rloc(r, at(r, v, 1), &d.loc);
			d.msg = rStr(r, v, 2);
			vec_push(&tu->diags, d);
		}
	if ((a = obj_array(r, root, "files")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct tu_file f = {0};
			f.path = rStr(r, v, 0);
			const json_t *h = at(r, v, 1);
			char *end = NULL;
			f.hash = json_is_string(h) ? strtoull(json_string_value(h), &end, 16) : 0;
			if (!json_is_string(h) || !end || *end)
				facts_bad(r, "file hash");
			f.is_main = rU8(r, v, 2);
			vec_push(&tu->files, f);
		}
	if ((a = obj_array(r, root, "dropped_flags")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r->bad; i++)
			vec_push(&tu->dropped_flags, rstr_of(r, json_array_get(a, i)));
}

struct tu_facts *facts_from_json(const json_t *root, char **err)
{
	if (!json_is_object(root) || json_integer_value(json_object_get(root, "format")) != FACTS_FORMAT_VERSION) {
		*err = xstrdup("not facts of this format version");
		return NULL;
	}
	const json_t *strings = json_object_get(root, "strings");
	if (!json_is_array(strings)) {
		*err = xstrdup("no string table");
		return NULL;
	}
	struct tu_facts *tu = xcalloc(1, sizeof(*tu));
	struct rctx r = {tu, NULL, 0, false, NULL};
	r.nstrings = json_array_size(strings);
	r.strings = xcalloc(r.nstrings + 1, sizeof(char *));
	rstrings(&r, strings);
	rstatus(&r, root);
	rvars_funcs(&r, root);
	rsource(&r, root);
	rsites(&r, root);
	free(r.strings);
	if (r.bad) {
		*err = xasprintf("malformed facts (%s)", r.what ? r.what : "?");
		tu_facts_free(tu);
		return NULL;
	}
	return tu;
}
