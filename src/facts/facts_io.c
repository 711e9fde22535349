/* facts_io.c: see facts_io.h. */
#include "facts_io.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* the first bytes of the binary form */
#define BIN_MAGIC "NGVF"

/* ---- writing ---- */

struct wctx {
	struct hmap index; /* string -> index + 1 */
	json_t *strings;
};

json_t *json_bytes(const char *s)
{
	size_t n = strlen(s);
	json_t *j = json_stringn(s, n);
	if (j)
		return j;
	/* not UTF-8 (a file name in another encoding): its bytes in hex */
	static const char hex[] = "0123456789abcdef";
	char *h = xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++) {
		h[2 * i] = hex[(unsigned char)s[i] >> 4];
		h[2 * i + 1] = hex[(unsigned char)s[i] & 15];
	}
	h[2 * n] = '\0';
	j = json_pack("{ss}", "hex", h);
	free(h);
	return j;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

char *json_bytes_value(const json_t *v, size_t *len)
{
	if (json_is_string(v)) {
		if (len)
			*len = json_string_length(v);
		return xstrndup(json_string_value(v), json_string_length(v));
	}
	const json_t *hx = json_is_object(v) ? json_object_get(v, "hex") : NULL;
	const char *h = json_string_value(hx);
	size_t hl = h ? strlen(h) : 1;
	if (!h || hl % 2)
		return NULL;
	char *o = xmalloc(hl / 2 + 1);
	for (size_t i = 0; i < hl / 2; i++) {
		int a = hexval(h[2 * i]), b = hexval(h[2 * i + 1]);
		if (a < 0 || b < 0 || (a == 0 && b == 0)) {
			free(o);
			return NULL;
		}
		o[i] = (char)(a * 16 + b);
	}
	o[hl / 2] = '\0';
	if (len)
		*len = hl / 2;
	return o;
}

static json_t *S(struct wctx *w, const char *s)
{
	if (!s)
		return json_null();
	uintptr_t i = (uintptr_t)hmap_get(&w->index, s);
	if (!i) {
		json_array_append_new(w->strings, json_bytes(s));
		i = json_array_size(w->strings);
		hmap_put(&w->index, s, (void *)i);
	}
	return json_integer((json_int_t)(i - 1));
}

static json_t *I(long long v)
{
	return json_integer((json_int_t)v);
}

static json_t *wloc(struct wctx *w, const struct loc *l)
{
	return json_pack("[oIII]", S(w, l->file), (json_int_t)l->line, (json_int_t)l->col, (json_int_t)l->off);
}

/* Trailing default elements (0, null, -1 where that is the default, []) are
 * dropped: most facts are mostly defaults, and the cache reads them back. */
static json_t *trim(json_t *a, const int *defaults_minus1, size_t n)
{
	size_t k = json_array_size(a);
	while (k > 0) {
		json_t *v = json_array_get(a, k - 1);
		bool m1 = k - 1 < n && defaults_minus1[k - 1];
		bool dflt = json_is_null(v) || (json_is_integer(v) && json_integer_value(v) == (m1 ? -1 : 0)) ||
			    (json_is_array(v) && json_array_size(v) == 0);
		if (!dflt)
			break;
		json_array_remove(a, --k);
	}
	return a;
}

static json_t *wref(struct wctx *w, const struct ref *r)
{
	if (r->var < 0 && !r->path && !r->record && !r->field && !r->addr && !r->deref && !r->ptr_deref)
		return json_null();
	static const int m1[] = {1, 0, 0, 0, 0, 0, 0};
	return trim(json_pack("[IoooIII]", (json_int_t)r->var, S(w, r->path), S(w, r->record), S(w, r->field),
			      (json_int_t)r->addr, (json_int_t)r->deref, (json_int_t)r->ptr_deref),
		    m1, 7);
}

static json_t *wexpr(struct wctx *w, const struct expr *e)
{
	json_t *reads = json_array(), *calls = json_array();
	for (uint32_t i = 0; i < e->nreads; i++)
		json_array_append_new(reads, wref(w, &e->reads[i]));
	for (uint32_t i = 0; i < e->ncalls; i++)
		json_array_append_new(calls, I(e->calls[i]));
	/* rarely set fields last, so trimming drops them */
	json_t *a = json_array();
	json_array_append_new(a, I(e->kind));
	json_array_append_new(a, S(w, e->text));
	json_array_append_new(a, wloc(w, &e->loc));
	json_array_append_new(a, wref(w, &e->ref));
	json_array_append_new(a, I(e->call));
	json_array_append_new(a, reads);
	json_array_append_new(a, calls);
	json_array_append_new(a, I(e->exact));
	json_array_append_new(a, I(e->begin));
	json_array_append_new(a, I(e->end));
	json_array_append_new(a, I(e->has_ival));
	json_array_append_new(a, I(e->ival));
	json_array_append_new(a, I(e->cast));
	json_array_append_new(a, I(e->is_value));
	json_array_append_new(a, S(w, e->macro));
	json_array_append_new(a, S(w, e->func_usr));
	json_array_append_new(a, S(w, e->func_name));
	static const int m1[17] = {[4] = 1};
	return trim(a, m1, 17);
}

static json_t *wevent(struct wctx *w, const struct event *e)
{
	json_t *payload = NULL;
	switch (e->kind) {
	case EV_CALL: {
		const struct call *c = e->u.call;
		json_t *args = json_array();
		for (uint32_t i = 0; i < c->nargs; i++)
			json_array_append_new(args, wexpr(w, &c->args[i]));
		payload = json_array();
		json_array_append_new(payload, S(w, c->name));
		json_array_append_new(payload, S(w, c->usr));
		json_array_append_new(payload, S(w, c->decl_file));
		json_array_append_new(payload, I(c->origin));
		json_array_append_new(payload, I(c->indirect));
		json_array_append_new(payload, I(c->variadic));
		json_array_append_new(payload, I(c->returns_value));
		json_array_append_new(payload, wexpr(w, &c->callee));
		json_array_append_new(payload, args);
		json_array_append_new(payload, I(c->parent));
		json_array_append_new(payload, I(c->parent_arg));
		json_array_append_new(payload, wref(w, &c->result));
		json_array_append_new(payload, I(c->rparen));
		json_array_append_new(payload, I(c->result_used));
		break;
	}
	case EV_ASSIGN:
		payload = json_pack("[ooIII]", wref(w, &e->u.assign->lhs), wexpr(w, &e->u.assign->rhs),
				    (json_int_t)e->u.assign->compound, (json_int_t)e->u.assign->is_init,
				    (json_int_t)e->u.assign->whole_init);
		break;
	case EV_ACCESS:
		payload = json_pack("[oII]", wref(w, &e->u.access.ref), (json_int_t)e->u.access.mode,
				    (json_int_t)e->u.access.atomic_op);
		break;
	case EV_RETURN:
		payload = wexpr(w, e->u.ret);
		break;
	default:
		payload = json_null();
		break;
	}
	bool same = e->spell.file == e->loc.file && e->spell.line == e->loc.line && e->spell.col == e->loc.col &&
		    e->spell.off == e->loc.off;
	json_t *a = json_array();
	json_array_append_new(a, I(e->kind));
	json_array_append_new(a, wloc(w, &e->loc));
	json_array_append_new(a, I(e->region));
	json_array_append_new(a, payload);
	json_array_append_new(a, I(e->in_macro_arg));
	json_array_append_new(a, I(e->gvl_guard));
	json_array_append_new(a, S(w, e->macro));
	json_array_append_new(a, same ? json_null() : wloc(w, &e->spell));
	return trim(a, NULL, 0);
}

static json_t *wregion(struct wctx *w, const struct region *r)
{
	return json_pack("[IIIoIIII]", (json_int_t)r->kind, (json_int_t)r->negated, (json_int_t)r->parent,
			 wexpr(w, &r->cond), (json_int_t)r->begin, (json_int_t)r->end, (json_int_t)r->ends_with_return,
			 (json_int_t)r->cond_end);
}

static json_t *wfunc(struct wctx *w, const struct func *f)
{
	json_t *params = json_array(), *events = json_array(), *regions = json_array();
	for (uint32_t i = 0; i < f->nparams; i++)
		json_array_append_new(params, I(f->params[i]));
	for (uint32_t i = 0; i < f->nevents; i++)
		json_array_append_new(events, wevent(w, &f->events[i]));
	for (uint32_t i = 0; i < f->nregions; i++)
		json_array_append_new(regions, wregion(w, &f->regions[i]));
	return json_pack("[ooIoooooo]", S(w, f->name), S(w, f->usr), (json_int_t)f->flags, wloc(w, &f->loc),
			 wloc(w, &f->end), S(w, f->ret_type), params, events, regions);
}

static char *hex64(uint64_t v, char buf[17])
{
	snprintf(buf, 17, "%016" PRIx64, v);
	return buf;
}

json_t *facts_to_json(const struct tu_facts *tu)
{
	struct wctx w = {{0}, json_array()};
	json_t *root = json_object();
	json_t *funcs = json_array(), *vars = json_array(), *bindings = json_array(), *mexps = json_array(),
	       *mdefs = json_array(), *incs = json_array(), *conds = json_array(), *defs = json_array(),
	       *toks = json_array(), *diags = json_array(), *files = json_array(), *dropped = json_array();
	for (size_t i = 0; i < tu->funcs.n; i++)
		json_array_append_new(funcs, wfunc(&w, &tu->funcs.v[i]));
	for (size_t i = 0; i < tu->vars.n; i++) {
		const struct var *v = &tu->vars.v[i];
		json_array_append_new(vars, json_pack("[ooooIIIIoo]", S(&w, v->name), S(&w, v->usr), S(&w, v->type),
						      S(&w, v->record), (json_int_t)v->flags, (json_int_t)v->kind,
						      (json_int_t)v->fn, (json_int_t)v->param_index, wloc(&w, &v->loc),
						      S(&w, v->init_fn_usr)));
	}
	for (size_t i = 0; i < tu->bindings.n; i++) {
		const struct binding *b = &tu->bindings.v[i];
		json_array_append_new(bindings, json_pack("[ooooooI]", S(&w, b->record), S(&w, b->field),
							  S(&w, b->fn_usr), S(&w, b->fn_name), wloc(&w, &b->loc),
							  S(&w, b->param_of_usr), (json_int_t)b->param_index));
	}
	for (size_t i = 0; i < tu->macro_exps.n; i++) {
		const struct macro_exp *m = &tu->macro_exps.v[i];
		json_array_append_new(mexps, json_pack("[ooII]", S(&w, m->name), wloc(&w, &m->loc),
						       (json_int_t)m->begin, (json_int_t)m->end));
	}
	for (size_t i = 0; i < tu->macro_defs.n; i++) {
		const struct macro_def *m = &tu->macro_defs.v[i];
		json_array_append_new(mdefs, json_pack("[ooIo]", S(&w, m->name), wloc(&w, &m->loc),
						       (json_int_t)m->function_like, S(&w, m->body)));
	}
	for (size_t i = 0; i < tu->includes.n; i++) {
		const struct include_dir *in = &tu->includes.v[i];
		json_array_append_new(
			incs, json_pack("[ooI]", S(&w, in->spelled), wloc(&w, &in->loc), (json_int_t)in->end_off));
	}
	for (size_t i = 0; i < tu->pp_conds.n; i++) {
		const struct pp_cond *c = &tu->pp_conds.v[i];
		json_array_append_new(conds, json_pack("[ooIIIII]", S(&w, c->directive), S(&w, c->cond),
						       (json_int_t)c->line_begin, (json_int_t)c->line_end,
						       (json_int_t)c->parent, (json_int_t)c->close_off,
						       (json_int_t)c->closed_by_endif));
	}
	for (size_t i = 0; i < tu->pp_defines.n; i++) {
		const struct pp_define *d = &tu->pp_defines.v[i];
		json_array_append_new(defs, json_pack("[ooII]", S(&w, d->name), S(&w, d->file), (json_int_t)d->line,
						      (json_int_t)d->cond));
	}
	for (size_t i = 0; i < tu->token_sites.n; i++) {
		const struct token_site *t = &tu->token_sites.v[i];
		json_array_append_new(toks, json_pack("[ooooIoI]", S(&w, t->api), S(&w, t->callback),
						      S(&w, t->function), wloc(&w, &t->loc), (json_int_t)t->inactive,
						      S(&w, t->guard), (json_int_t)t->in_ast));
	}
	for (size_t i = 0; i < tu->diags.n; i++) {
		const struct diag *d = &tu->diags.v[i];
		json_array_append_new(diags,
				      json_pack("[Ioo]", (json_int_t)d->severity, wloc(&w, &d->loc), S(&w, d->msg)));
	}
	for (size_t i = 0; i < tu->files.n; i++) {
		const struct tu_file *f = &tu->files.v[i];
		char hb[17];
		json_array_append_new(files,
				      json_pack("[osI]", S(&w, f->path), hex64(f->hash, hb), (json_int_t)f->is_main));
	}
	for (size_t i = 0; i < tu->dropped_flags.n; i++)
		json_array_append_new(dropped, S(&w, tu->dropped_flags.v[i]));

	json_object_set_new(root, "format", I(FACTS_FORMAT_VERSION));
	json_object_set_new(root, "path", S(&w, tu->path));
	json_object_set_new(root, "display", S(&w, tu->display));
	json_object_set_new(root, "status",
			    json_pack("[IIIIoIIIIfII]", (json_int_t)tu->status, (json_int_t)tu->degraded,
				      (json_int_t)tu->buildless, (json_int_t)tu->cxx, S(&w, tu->fail_reason),
				      (json_int_t)tu->nerrors, (json_int_t)tu->nwarnings, (json_int_t)tu->stub_rounds,
				      (json_int_t)tu->nstubs, tu->parse_seconds, (json_int_t)tu->pch_use,
				      (json_int_t)tu->pch_built));
	json_object_set_new(root, "funcs", funcs);
	json_object_set_new(root, "vars", vars);
	json_object_set_new(root, "bindings", bindings);
	json_object_set_new(root, "macro_exps", mexps);
	json_object_set_new(root, "macro_defs", mdefs);
	json_object_set_new(root, "includes", incs);
	json_object_set_new(root, "pp_conds", conds);
	json_object_set_new(root, "pp_defines", defs);
	json_object_set_new(root, "token_sites", toks);
	json_object_set_new(root, "diags", diags);
	json_object_set_new(root, "files", files);
	json_object_set_new(root, "dropped_flags", dropped);
	json_object_set_new(root, "strings", w.strings); /* last: complete only now */
	hmap_free(&w.index);
	return root;
}

char *facts_dump(const struct tu_facts *tu, size_t *len)
{
	json_t *j = facts_to_json(tu);
	char *s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (len)
		*len = s ? strlen(s) : 0;
	return s;
}

/* ---- reading ---- */

struct rctx {
	struct tu_facts *tu;
	const char **strings;
	size_t nstrings;
	bool bad;
	const char *what;
};

static void facts_bad(struct rctx *r, const char *what)
{
	if (!r->bad)
		r->what = what;
	r->bad = true;
}

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
	const json_t *sp = opt(a, 7);
	if (sp && !json_is_null(sp))
		rloc(r, sp, &e->spell);
	else
		e->spell = e->loc;
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
		rref(r, at(r, p, 0), &e->u.access.ref);
		e->u.access.mode = rU8(r, p, 1);
		e->u.access.atomic_op = rU8(r, p, 2);
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

/* Event indices an expression holds must name call events of its function
 * (their payload is read as a call). */
static bool is_call_index(const struct func *f, int32_t i)
{
	return i >= 0 && i < (int32_t)f->nevents && f->events[i].kind == EV_CALL;
}

static void check_expr_calls(struct rctx *r, const struct expr *e, const struct func *f)
{
	if (e->call != -1 && !is_call_index(f, e->call))
		facts_bad(r, "call index out of range");
	for (uint32_t i = 0; i < e->ncalls; i++)
		if (!is_call_index(f, e->calls[i]))
			facts_bad(r, "call index out of range");
}

static void check_func_indices(struct rctx *r, const struct func *f);

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

/* Indices into a function (regions, parent calls, calls of expressions)
 * stay inside it, and name events of the right kind. */
static void check_func_indices(struct rctx *r, const struct func *f)
{
	for (uint32_t i = 0; i < f->nevents && !r->bad; i++) {
		const struct event *e = &f->events[i];
		if (e->region < -1 || e->region >= (int32_t)f->nregions)
			facts_bad(r, "region index out of range");
		if (e->kind == EV_CALL && e->u.call->parent != -1 && !is_call_index(f, e->u.call->parent))
			facts_bad(r, "parent call out of range");
		if (e->kind == EV_CALL) {
			check_expr_calls(r, &e->u.call->callee, f);
			for (uint32_t k = 0; k < e->u.call->nargs; k++)
				check_expr_calls(r, &e->u.call->args[k], f);
		} else if (e->kind == EV_ASSIGN) {
			check_expr_calls(r, &e->u.assign->rhs, f);
		} else if (e->kind == EV_RETURN) {
			check_expr_calls(r, e->u.ret, f);
		}
	}
	for (uint32_t i = 0; i < f->nregions && !r->bad; i++) {
		check_expr_calls(r, &f->regions[i].cond, f);
		if (f->regions[i].parent < -1 || f->regions[i].parent >= (int32_t)f->nregions)
			facts_bad(r, "region parent out of range");
	}
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
	for (size_t i = 0; i < r.nstrings; i++) {
		size_t sl = 0;
		char *sv = json_bytes_value(json_array_get(strings, i), &sl);
		if (!sv) {
			facts_bad(&r, "string table");
			break;
		}
		r.strings[i] = intern_n(&tu->pool, sv, sl);
		free(sv);
	}
	tu->path = rstr_of(&r, json_object_get(root, "path"));
	tu->display = rstr_of(&r, json_object_get(root, "display"));
	const json_t *st = json_object_get(root, "status");
	tu->status = rU8(&r, st, 0);
	tu->degraded = rU8(&r, st, 1);
	tu->buildless = rU8(&r, st, 2);
	tu->cxx = rU8(&r, st, 3);
	tu->fail_reason = rStr(&r, st, 4);
	tu->nerrors = rU(&r, st, 5);
	tu->nwarnings = rU(&r, st, 6);
	tu->stub_rounds = rU(&r, st, 7);
	tu->nstubs = rU(&r, st, 8);
	const json_t *ps = at(&r, st, 9);
	tu->parse_seconds = json_is_real(ps) ? json_real_value(ps) : 0;
	const json_t *pu = json_array_get(st, 10), *pb = json_array_get(st, 11);
	tu->pch_use = json_is_integer(pu) && json_integer_value(pu) <= PCH_USE_INELIGIBLE
			      ? (uint8_t)json_integer_value(pu)
			      : 0;
	tu->pch_built = json_is_integer(pb) && json_integer_value(pb) >= 0 && json_integer_value(pb) < 8
				? (uint8_t)json_integer_value(pb)
				: 0;
	if (!tu->path)
		facts_bad(&r, "path");

	const json_t *a;
	/* vars first: refs are checked against their count */
	if ((a = obj_array(&r, root, "vars")) != NULL) {
		vec_reserve(&tu->vars, json_array_size(a));
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct var x = {0};
			x.name = rStr(&r, v, 0);
			x.usr = rStr(&r, v, 1);
			x.type = rStr(&r, v, 2);
			x.record = rStr(&r, v, 3);
			x.flags = rU(&r, v, 4);
			x.kind = rU8(&r, v, 5);
			x.fn = rS32(&r, v, 6);
			x.param_index = rS32(&r, v, 7);
			rloc(&r, at(&r, v, 8), &x.loc);
			x.init_fn_usr = rStr(&r, v, 9);
			vec_push(&tu->vars, x);
		}
	}
	if ((a = obj_array(&r, root, "funcs")) != NULL) {
		vec_reserve(&tu->funcs, json_array_size(a));
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			struct func f = {0};
			rfunc(&r, json_array_get(a, i), &f);
			vec_push(&tu->funcs, f);
		}
	}
	for (size_t i = 0; i < tu->vars.n; i++)
		if (tu->vars.v[i].fn < -1 || tu->vars.v[i].fn >= (int32_t)tu->funcs.n)
			facts_bad(&r, "variable owner out of range");
	if ((a = obj_array(&r, root, "bindings")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct binding b = {0};
			b.record = rStr(&r, v, 0);
			b.field = rStr(&r, v, 1);
			b.fn_usr = rStr(&r, v, 2);
			b.fn_name = rStr(&r, v, 3);
			rloc(&r, at(&r, v, 4), &b.loc);
			b.param_of_usr = rStr(&r, v, 5);
			b.param_index = rS32(&r, v, 6);
			vec_push(&tu->bindings, b);
		}
	if ((a = obj_array(&r, root, "macro_exps")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct macro_exp m = {0};
			m.name = rStr(&r, v, 0);
			rloc(&r, at(&r, v, 1), &m.loc);
			m.begin = rU(&r, v, 2);
			m.end = rU(&r, v, 3);
			vec_push(&tu->macro_exps, m);
		}
	if ((a = obj_array(&r, root, "macro_defs")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct macro_def m = {0};
			m.name = rStr(&r, v, 0);
			rloc(&r, at(&r, v, 1), &m.loc);
			m.function_like = rU8(&r, v, 2);
			m.body = rStr(&r, v, 3);
			vec_push(&tu->macro_defs, m);
		}
	if ((a = obj_array(&r, root, "includes")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct include_dir in = {0};
			in.spelled = rStr(&r, v, 0);
			rloc(&r, at(&r, v, 1), &in.loc);
			in.end_off = rU(&r, v, 2);
			vec_push(&tu->includes, in);
		}
	if ((a = obj_array(&r, root, "pp_conds")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct pp_cond c = {0};
			c.directive = rStr(&r, v, 0);
			c.cond = rStr(&r, v, 1);
			c.line_begin = rU(&r, v, 2);
			c.line_end = rU(&r, v, 3);
			c.parent = rS32(&r, v, 4);
			c.close_off = oU(&r, v, 5);
			c.closed_by_endif = oU8(&r, v, 6);
			vec_push(&tu->pp_conds, c);
		}
	if ((a = obj_array(&r, root, "pp_defines")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct pp_define d = {0};
			d.name = rStr(&r, v, 0);
			d.file = rStr(&r, v, 1);
			d.line = rU(&r, v, 2);
			d.cond = rS32(&r, v, 3);
			vec_push(&tu->pp_defines, d);
		}
	if ((a = obj_array(&r, root, "token_sites")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct token_site t = {0};
			t.api = rStr(&r, v, 0);
			t.callback = rStr(&r, v, 1);
			t.function = rStr(&r, v, 2);
			rloc(&r, at(&r, v, 3), &t.loc);
			t.inactive = rU8(&r, v, 4);
			t.guard = rStr(&r, v, 5);
			t.in_ast = rU8(&r, v, 6);
			vec_push(&tu->token_sites, t);
		}
	if ((a = obj_array(&r, root, "diags")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct diag d = {0};
			d.severity = rU8(&r, v, 0);
			rloc(&r, at(&r, v, 1), &d.loc);
			d.msg = rStr(&r, v, 2);
			vec_push(&tu->diags, d);
		}
	if ((a = obj_array(&r, root, "files")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++) {
			const json_t *v = json_array_get(a, i);
			struct tu_file f = {0};
			f.path = rStr(&r, v, 0);
			const json_t *h = at(&r, v, 1);
			char *end = NULL;
			f.hash = json_is_string(h) ? strtoull(json_string_value(h), &end, 16) : 0;
			if (!json_is_string(h) || !end || *end)
				facts_bad(&r, "file hash");
			f.is_main = rU8(&r, v, 2);
			vec_push(&tu->files, f);
		}
	if ((a = obj_array(&r, root, "dropped_flags")) != NULL)
		for (size_t i = 0; i < json_array_size(a) && !r.bad; i++)
			vec_push(&tu->dropped_flags, rstr_of(&r, json_array_get(a, i)));
	free(r.strings);
	if (r.bad) {
		*err = xasprintf("malformed facts (%s)", r.what ? r.what : "?");
		tu_facts_free(tu);
		return NULL;
	}
	return tu;
}

/* Loading a file's facts builds and drops a JSON tree of many small nodes;
 * with facts_io_init's allocator they come from one arena per load, freed at
 * once (a warm --cache run spent a third of its time in malloc and free).
 * Outside a load, jansson allocates with malloc as usual. */
static _Thread_local struct arena *json_arena;

static void *json_alloc(size_t n)
{
	return json_arena ? arena_alloc(json_arena, n) : malloc(n);
}

static void json_release(void *p)
{
	if (!json_arena)
		free(p);
}

static bool json_arena_installed;

void facts_io_init(void)
{
	json_set_alloc_funcs(json_alloc, json_release);
	json_arena_installed = true;
}

static struct tu_facts *facts_unpack(const char *buf, size_t len, char **err);

struct tu_facts *facts_load(const char *buf, size_t len, char **err)
{
	if (len >= 4 && memcmp(buf, BIN_MAGIC, 4) == 0)
		return facts_unpack(buf, len, err);
	struct arena a = {0};
	json_arena = &a;
	json_error_t je;
	json_t *j = json_loadb(buf, len, 0, &je);
	struct tu_facts *tu = NULL;
	if (!j) {
		json_arena = NULL;
		*err = xasprintf("not JSON: %s", je.text);
	} else {
		tu = facts_from_json(j, err);
		/* no json_decref: every node is in the arena (when facts_io_init
		 * installed the allocator; otherwise the tree is freed normally) */
		if (!json_arena_installed)
			json_decref(j);
		json_arena = NULL;
	}
	arena_free(&a);
	return tu;
}

/* ---- the binary form (worker to main process, the cache) ----
 *
 * The same fields in the same order as the JSON form, as LEB128 varints
 * (signed ones zigzag-encoded), strings by index into a table written first
 * (0 = NULL), the file hash and parse time as 8 raw little-endian bytes.
 * No JSON tree is built or walked: a warm --cache run spent most of its
 * reading time in jansson. The reader checks what the JSON reader checks. */

struct bw {
	struct strbuf body;
	struct hmap index; /* string -> index + 1 */
	VEC(const char *) strings;
};

static void put_u(struct strbuf *b, uint64_t v)
{
	char tmp[10];
	size_t n = 0;
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		tmp[n++] = (char)(byte | (v ? 0x80 : 0));
	} while (v);
	sb_add(b, tmp, n);
}

static void put_s(struct strbuf *b, int64_t v)
{
	put_u(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_raw64(struct strbuf *b, uint64_t v)
{
	char tmp[8];
	for (int i = 0; i < 8; i++)
		tmp[i] = (char)(v >> (8 * i));
	sb_add(b, tmp, 8);
}

static void put_str(struct bw *w, const char *s)
{
	if (!s) {
		put_u(&w->body, 0);
		return;
	}
	uintptr_t i = (uintptr_t)hmap_get(&w->index, s);
	if (!i) {
		vec_push(&w->strings, s);
		i = w->strings.n;
		hmap_put(&w->index, s, (void *)i);
	}
	put_u(&w->body, i);
}

static void bloc(struct bw *w, const struct loc *l)
{
	put_str(w, l->file);
	put_u(&w->body, l->line);
	put_u(&w->body, l->col);
	put_u(&w->body, l->off);
}

static void bref(struct bw *w, const struct ref *r)
{
	put_s(&w->body, r->var);
	put_str(w, r->path);
	put_str(w, r->record);
	put_str(w, r->field);
	put_u(&w->body, r->addr);
	put_u(&w->body, r->deref);
	put_u(&w->body, r->ptr_deref);
}

static void bexpr(struct bw *w, const struct expr *e)
{
	struct strbuf *b = &w->body;
	put_u(b, e->kind);
	put_str(w, e->text);
	bloc(w, &e->loc);
	bref(w, &e->ref);
	put_s(b, e->call);
	put_u(b, e->nreads);
	for (uint32_t i = 0; i < e->nreads; i++)
		bref(w, &e->reads[i]);
	put_u(b, e->ncalls);
	for (uint32_t i = 0; i < e->ncalls; i++)
		put_s(b, e->calls[i]);
	put_u(b, e->exact);
	put_u(b, e->begin);
	put_u(b, e->end);
	put_u(b, e->has_ival);
	put_s(b, e->ival);
	put_u(b, e->cast);
	put_u(b, e->is_value);
	put_str(w, e->macro);
	put_str(w, e->func_usr);
	put_str(w, e->func_name);
}

static void bevent(struct bw *w, const struct event *e)
{
	struct strbuf *b = &w->body;
	put_u(b, e->kind);
	bloc(w, &e->loc);
	put_s(b, e->region);
	switch (e->kind) {
	case EV_CALL: {
		const struct call *c = e->u.call;
		put_str(w, c->name);
		put_str(w, c->usr);
		put_str(w, c->decl_file);
		put_u(b, c->origin);
		put_u(b, c->indirect);
		put_u(b, c->variadic);
		put_u(b, c->returns_value);
		bexpr(w, &c->callee);
		put_u(b, c->nargs);
		for (uint32_t i = 0; i < c->nargs; i++)
			bexpr(w, &c->args[i]);
		put_s(b, c->parent);
		put_s(b, c->parent_arg);
		bref(w, &c->result);
		put_u(b, c->rparen);
		put_u(b, c->result_used);
		break;
	}
	case EV_ASSIGN:
		bref(w, &e->u.assign->lhs);
		bexpr(w, &e->u.assign->rhs);
		put_u(b, e->u.assign->compound);
		put_u(b, e->u.assign->is_init);
		put_u(b, e->u.assign->whole_init);
		break;
	case EV_ACCESS:
		bref(w, &e->u.access.ref);
		put_u(b, e->u.access.mode);
		put_u(b, e->u.access.atomic_op);
		break;
	case EV_RETURN:
		bexpr(w, e->u.ret);
		break;
	default:
		break; /* rejected when read, as in the JSON form */
	}
	put_u(b, e->in_macro_arg);
	put_u(b, e->gvl_guard);
	put_str(w, e->macro);
	bool same = e->spell.file == e->loc.file && e->spell.line == e->loc.line && e->spell.col == e->loc.col &&
		    e->spell.off == e->loc.off;
	put_u(b, !same);
	if (!same)
		bloc(w, &e->spell);
}

static void bfunc(struct bw *w, const struct func *f)
{
	struct strbuf *b = &w->body;
	put_str(w, f->name);
	put_str(w, f->usr);
	put_u(b, f->flags);
	bloc(w, &f->loc);
	bloc(w, &f->end);
	put_str(w, f->ret_type);
	put_u(b, f->nparams);
	for (uint32_t i = 0; i < f->nparams; i++)
		put_s(b, f->params[i]);
	put_u(b, f->nevents);
	for (uint32_t i = 0; i < f->nevents; i++)
		bevent(w, &f->events[i]);
	put_u(b, f->nregions);
	for (uint32_t i = 0; i < f->nregions; i++) {
		const struct region *r = &f->regions[i];
		put_u(b, r->kind);
		put_u(b, r->negated);
		put_s(b, r->parent);
		bexpr(w, &r->cond);
		put_u(b, r->begin);
		put_u(b, r->end);
		put_u(b, r->ends_with_return);
		put_u(b, r->cond_end);
	}
}

char *facts_pack(const struct tu_facts *tu, size_t *len)
{
	struct bw w = {0};
	struct strbuf *b = &w.body;
	put_str(&w, tu->path);
	put_str(&w, tu->display);
	put_u(b, tu->status);
	put_u(b, tu->degraded);
	put_u(b, tu->buildless);
	put_u(b, tu->cxx);
	put_str(&w, tu->fail_reason);
	put_u(b, tu->nerrors);
	put_u(b, tu->nwarnings);
	put_u(b, tu->stub_rounds);
	put_u(b, tu->nstubs);
	uint64_t ps;
	memcpy(&ps, &tu->parse_seconds, sizeof(ps));
	put_raw64(b, ps);
	put_u(b, tu->pch_use);
	put_u(b, tu->pch_built);
	put_u(b, tu->vars.n);
	for (size_t i = 0; i < tu->vars.n; i++) {
		const struct var *v = &tu->vars.v[i];
		put_str(&w, v->name);
		put_str(&w, v->usr);
		put_str(&w, v->type);
		put_str(&w, v->record);
		put_u(b, v->flags);
		put_u(b, v->kind);
		put_s(b, v->fn);
		put_s(b, v->param_index);
		bloc(&w, &v->loc);
		put_str(&w, v->init_fn_usr);
	}
	put_u(b, tu->funcs.n);
	for (size_t i = 0; i < tu->funcs.n; i++)
		bfunc(&w, &tu->funcs.v[i]);
	put_u(b, tu->bindings.n);
	for (size_t i = 0; i < tu->bindings.n; i++) {
		const struct binding *x = &tu->bindings.v[i];
		put_str(&w, x->record);
		put_str(&w, x->field);
		put_str(&w, x->fn_usr);
		put_str(&w, x->fn_name);
		bloc(&w, &x->loc);
		put_str(&w, x->param_of_usr);
		put_s(b, x->param_index);
	}
	put_u(b, tu->macro_exps.n);
	for (size_t i = 0; i < tu->macro_exps.n; i++) {
		const struct macro_exp *m = &tu->macro_exps.v[i];
		put_str(&w, m->name);
		bloc(&w, &m->loc);
		put_u(b, m->begin);
		put_u(b, m->end);
	}
	put_u(b, tu->macro_defs.n);
	for (size_t i = 0; i < tu->macro_defs.n; i++) {
		const struct macro_def *m = &tu->macro_defs.v[i];
		put_str(&w, m->name);
		bloc(&w, &m->loc);
		put_u(b, m->function_like);
		put_str(&w, m->body);
	}
	put_u(b, tu->includes.n);
	for (size_t i = 0; i < tu->includes.n; i++) {
		const struct include_dir *in = &tu->includes.v[i];
		put_str(&w, in->spelled);
		bloc(&w, &in->loc);
		put_u(b, in->end_off);
	}
	put_u(b, tu->pp_conds.n);
	for (size_t i = 0; i < tu->pp_conds.n; i++) {
		const struct pp_cond *c = &tu->pp_conds.v[i];
		put_str(&w, c->directive);
		put_str(&w, c->cond);
		put_u(b, c->line_begin);
		put_u(b, c->line_end);
		put_s(b, c->parent);
		put_u(b, c->close_off);
		put_u(b, c->closed_by_endif);
	}
	put_u(b, tu->pp_defines.n);
	for (size_t i = 0; i < tu->pp_defines.n; i++) {
		const struct pp_define *d = &tu->pp_defines.v[i];
		put_str(&w, d->name);
		put_str(&w, d->file);
		put_u(b, d->line);
		put_s(b, d->cond);
	}
	put_u(b, tu->token_sites.n);
	for (size_t i = 0; i < tu->token_sites.n; i++) {
		const struct token_site *t = &tu->token_sites.v[i];
		put_str(&w, t->api);
		put_str(&w, t->callback);
		put_str(&w, t->function);
		bloc(&w, &t->loc);
		put_u(b, t->inactive);
		put_str(&w, t->guard);
		put_u(b, t->in_ast);
	}
	put_u(b, tu->diags.n);
	for (size_t i = 0; i < tu->diags.n; i++) {
		const struct diag *d = &tu->diags.v[i];
		put_u(b, d->severity);
		bloc(&w, &d->loc);
		put_str(&w, d->msg);
	}
	put_u(b, tu->files.n);
	for (size_t i = 0; i < tu->files.n; i++) {
		const struct tu_file *f = &tu->files.v[i];
		put_str(&w, f->path);
		put_raw64(b, f->hash);
		put_u(b, f->is_main);
	}
	put_u(b, tu->dropped_flags.n);
	for (size_t i = 0; i < tu->dropped_flags.n; i++)
		put_str(&w, tu->dropped_flags.v[i]);

	/* the magic, the version, the string table, then the body */
	struct strbuf out = {0};
	sb_grow(&out, b->len + 64);
	sb_add(&out, BIN_MAGIC, 4);
	put_u(&out, FACTS_FORMAT_VERSION);
	put_u(&out, w.strings.n);
	for (size_t i = 0; i < w.strings.n; i++) {
		size_t n = strlen(w.strings.v[i]);
		put_u(&out, n);
		sb_add(&out, w.strings.v[i], n);
	}
	sb_add(&out, b->buf ? b->buf : "", b->len);
	sb_free(b);
	hmap_free(&w.index);
	vec_free(&w.strings);
	if (len)
		*len = out.len;
	return sb_detach(&out);
}

struct br {
	struct rctx r;
	const unsigned char *p, *end;
};

static uint64_t get_u(struct br *b)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (b->p >= b->end) {
			facts_bad(&b->r, "truncated");
			return 0;
		}
		unsigned char c = *b->p++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	facts_bad(&b->r, "varint too long");
	return 0;
}

static int64_t get_s(struct br *b)
{
	uint64_t u = get_u(b);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static uint8_t get_u8(struct br *b)
{
	uint64_t v = get_u(b);
	if (v > 255) {
		facts_bad(&b->r, "byte out of range");
		return 0;
	}
	return (uint8_t)v;
}

static uint32_t get_u32(struct br *b)
{
	uint64_t v = get_u(b);
	if (v > UINT32_MAX) {
		facts_bad(&b->r, "unsigned value out of range");
		return 0;
	}
	return (uint32_t)v;
}

static int32_t get_s32(struct br *b)
{
	int64_t v = get_s(b);
	if (v < INT32_MIN || v > INT32_MAX) {
		facts_bad(&b->r, "value out of range");
		return 0;
	}
	return (int32_t)v;
}

static uint64_t get_raw64(struct br *b)
{
	if (b->end - b->p < 8) {
		facts_bad(&b->r, "truncated");
		b->p = b->end;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)b->p[i] << (8 * i);
	b->p += 8;
	return v;
}

static const char *get_str(struct br *b)
{
	uint64_t i = get_u(b);
	if (!i)
		return NULL;
	if (i > b->r.nstrings) {
		facts_bad(&b->r, "bad string reference");
		return NULL;
	}
	return b->r.strings[i - 1];
}

/* A count of elements still to read: each takes a byte at least, so a
 * count beyond what is left is corrupt (and never allocated). */
static size_t get_count(struct br *b)
{
	uint64_t n = get_u(b);
	if (n > (uint64_t)(b->end - b->p)) {
		facts_bad(&b->r, "count beyond the data");
		return 0;
	}
	return (size_t)n;
}

static void gloc(struct br *b, struct loc *l)
{
	l->file = get_str(b);
	l->line = get_u32(b);
	l->col = get_u32(b);
	l->off = get_u32(b);
}

static void gref(struct br *b, struct ref *f)
{
	f->var = get_s32(b);
	f->path = get_str(b);
	f->record = get_str(b);
	f->field = get_str(b);
	f->addr = get_u8(b);
	f->deref = get_u8(b);
	f->ptr_deref = get_u8(b);
	if (f->var < -1 || (f->var >= 0 && (size_t)f->var >= b->r.tu->vars.n))
		facts_bad(&b->r, "variable index out of range");
}

static void gexpr(struct br *b, struct expr *e)
{
	struct arena *a = &b->r.tu->arena;
	e->kind = get_u8(b);
	e->text = get_str(b);
	gloc(b, &e->loc);
	gref(b, &e->ref);
	e->call = get_s32(b);
	e->nreads = (uint32_t)get_count(b);
	e->reads = e->nreads ? arena_alloc(a, e->nreads * sizeof(struct ref)) : NULL;
	for (uint32_t i = 0; i < e->nreads && !b->r.bad; i++)
		gref(b, &e->reads[i]);
	e->ncalls = b->r.bad ? 0 : (uint32_t)get_count(b);
	e->calls = e->ncalls ? arena_alloc(a, e->ncalls * sizeof(int32_t)) : NULL;
	for (uint32_t i = 0; i < e->ncalls; i++)
		e->calls[i] = get_s32(b);
	e->exact = get_u8(b);
	e->begin = get_u32(b);
	e->end = get_u32(b);
	e->has_ival = get_u8(b);
	e->ival = get_s(b);
	e->cast = get_u8(b);
	e->is_value = get_u8(b);
	e->macro = get_str(b);
	e->func_usr = get_str(b);
	e->func_name = get_str(b);
}

static void gevent(struct br *b, struct event *e)
{
	struct arena *a = &b->r.tu->arena;
	e->kind = get_u8(b);
	gloc(b, &e->loc);
	e->region = get_s32(b);
	switch (e->kind) {
	case EV_CALL: {
		struct call *c = e->u.call = arena_alloc(a, sizeof(struct call));
		c->name = get_str(b);
		c->usr = get_str(b);
		c->decl_file = get_str(b);
		c->origin = get_u8(b);
		c->indirect = get_u8(b);
		c->variadic = get_u8(b);
		c->returns_value = get_u8(b);
		gexpr(b, &c->callee);
		c->nargs = b->r.bad ? 0 : (uint32_t)get_count(b);
		c->args = c->nargs ? arena_alloc(a, c->nargs * sizeof(struct expr)) : NULL;
		for (uint32_t i = 0; i < c->nargs && !b->r.bad; i++)
			gexpr(b, &c->args[i]);
		c->parent = get_s32(b);
		c->parent_arg = get_s32(b);
		gref(b, &c->result);
		c->rparen = get_u32(b);
		c->result_used = get_u8(b);
		break;
	}
	case EV_ASSIGN:
		e->u.assign = arena_alloc(a, sizeof(struct assign));
		gref(b, &e->u.assign->lhs);
		gexpr(b, &e->u.assign->rhs);
		e->u.assign->compound = get_u8(b);
		e->u.assign->is_init = get_u8(b);
		e->u.assign->whole_init = get_u8(b);
		break;
	case EV_ACCESS:
		gref(b, &e->u.access.ref);
		e->u.access.mode = get_u8(b);
		e->u.access.atomic_op = get_u8(b);
		break;
	case EV_RETURN:
		e->u.ret = arena_alloc(a, sizeof(struct expr));
		gexpr(b, e->u.ret);
		break;
	default:
		facts_bad(&b->r, "unknown event kind");
		return;
	}
	e->in_macro_arg = get_u8(b);
	e->gvl_guard = get_u8(b);
	e->macro = get_str(b);
	if (get_u8(b))
		gloc(b, &e->spell);
	else
		e->spell = e->loc;
}

static void gfunc(struct br *b, struct func *f)
{
	struct arena *a = &b->r.tu->arena;
	f->name = get_str(b);
	f->usr = get_str(b);
	f->flags = get_u32(b);
	gloc(b, &f->loc);
	gloc(b, &f->end);
	f->ret_type = get_str(b);
	f->nparams = b->r.bad ? 0 : (uint32_t)get_count(b);
	f->params = f->nparams ? arena_alloc(a, f->nparams * sizeof(int32_t)) : NULL;
	for (uint32_t i = 0; i < f->nparams; i++)
		f->params[i] = get_s32(b);
	f->nevents = b->r.bad ? 0 : (uint32_t)get_count(b);
	f->events = f->nevents ? arena_alloc(a, f->nevents * sizeof(struct event)) : NULL;
	for (uint32_t i = 0; i < f->nevents && !b->r.bad; i++)
		gevent(b, &f->events[i]);
	f->nregions = b->r.bad ? 0 : (uint32_t)get_count(b);
	f->regions = f->nregions ? arena_alloc(a, f->nregions * sizeof(struct region)) : NULL;
	for (uint32_t i = 0; i < f->nregions && !b->r.bad; i++) {
		struct region *rg = &f->regions[i];
		rg->kind = get_u8(b);
		rg->negated = get_u8(b);
		rg->parent = get_s32(b);
		gexpr(b, &rg->cond);
		rg->begin = get_u32(b);
		rg->end = get_u32(b);
		rg->ends_with_return = get_u8(b);
		rg->cond_end = get_u32(b);
	}
	if (!b->r.bad)
		check_func_indices(&b->r, f);
}

static struct tu_facts *facts_unpack(const char *buf, size_t len, char **err)
{
	struct tu_facts *tu = xcalloc(1, sizeof(*tu));
	struct br b = {{tu, NULL, 0, false, NULL}, (const unsigned char *)buf + 4, (const unsigned char *)buf + len};
	struct rctx *r = &b.r;
	if (get_u(&b) != FACTS_FORMAT_VERSION) {
		*err = xstrdup("not facts of this format version");
		tu_facts_free(tu);
		return NULL;
	}
	r->nstrings = get_count(&b);
	r->strings = xcalloc(r->nstrings + 1, sizeof(char *));
	for (size_t i = 0; i < r->nstrings && !r->bad; i++) {
		size_t n = get_count(&b);
		if (r->bad)
			break;
		if (memchr(b.p, 0, n)) {
			facts_bad(r, "string table");
			break;
		}
		r->strings[i] = intern_n(&tu->pool, (const char *)b.p, n);
		b.p += n;
	}
	if (!r->bad) {
		tu->path = get_str(&b);
		tu->display = get_str(&b);
		tu->status = get_u8(&b);
		tu->degraded = get_u8(&b);
		tu->buildless = get_u8(&b);
		tu->cxx = get_u8(&b);
		tu->fail_reason = get_str(&b);
		tu->nerrors = get_u32(&b);
		tu->nwarnings = get_u32(&b);
		tu->stub_rounds = get_u32(&b);
		tu->nstubs = get_u32(&b);
		uint64_t ps = get_raw64(&b);
		memcpy(&tu->parse_seconds, &ps, sizeof(ps));
		tu->pch_use = get_u8(&b);
		tu->pch_built = get_u8(&b);
		if (tu->pch_use > PCH_USE_INELIGIBLE || tu->pch_built >= 8)
			facts_bad(r, "status");
		if (!tu->path)
			facts_bad(r, "path");
	}
	size_t n = r->bad ? 0 : get_count(&b);
	vec_reserve(&tu->vars, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct var x = {0};
		x.name = get_str(&b);
		x.usr = get_str(&b);
		x.type = get_str(&b);
		x.record = get_str(&b);
		x.flags = get_u32(&b);
		x.kind = get_u8(&b);
		x.fn = get_s32(&b);
		x.param_index = get_s32(&b);
		gloc(&b, &x.loc);
		x.init_fn_usr = get_str(&b);
		vec_push(&tu->vars, x);
	}
	n = r->bad ? 0 : get_count(&b);
	vec_reserve(&tu->funcs, n);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct func f = {0};
		gfunc(&b, &f);
		vec_push(&tu->funcs, f);
	}
	for (size_t i = 0; i < tu->vars.n; i++)
		if (tu->vars.v[i].fn < -1 || tu->vars.v[i].fn >= (int32_t)tu->funcs.n)
			facts_bad(r, "variable owner out of range");
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct binding x = {0};
		x.record = get_str(&b);
		x.field = get_str(&b);
		x.fn_usr = get_str(&b);
		x.fn_name = get_str(&b);
		gloc(&b, &x.loc);
		x.param_of_usr = get_str(&b);
		x.param_index = get_s32(&b);
		vec_push(&tu->bindings, x);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct macro_exp m = {0};
		m.name = get_str(&b);
		gloc(&b, &m.loc);
		m.begin = get_u32(&b);
		m.end = get_u32(&b);
		vec_push(&tu->macro_exps, m);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct macro_def m = {0};
		m.name = get_str(&b);
		gloc(&b, &m.loc);
		m.function_like = get_u8(&b);
		m.body = get_str(&b);
		vec_push(&tu->macro_defs, m);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct include_dir in = {0};
		in.spelled = get_str(&b);
		gloc(&b, &in.loc);
		in.end_off = get_u32(&b);
		vec_push(&tu->includes, in);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct pp_cond c = {0};
		c.directive = get_str(&b);
		c.cond = get_str(&b);
		c.line_begin = get_u32(&b);
		c.line_end = get_u32(&b);
		c.parent = get_s32(&b);
		c.close_off = get_u32(&b);
		c.closed_by_endif = get_u8(&b);
		vec_push(&tu->pp_conds, c);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct pp_define d = {0};
		d.name = get_str(&b);
		d.file = get_str(&b);
		d.line = get_u32(&b);
		d.cond = get_s32(&b);
		vec_push(&tu->pp_defines, d);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct token_site t = {0};
		t.api = get_str(&b);
		t.callback = get_str(&b);
		t.function = get_str(&b);
		gloc(&b, &t.loc);
		t.inactive = get_u8(&b);
		t.guard = get_str(&b);
		t.in_ast = get_u8(&b);
		vec_push(&tu->token_sites, t);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct diag d = {0};
		d.severity = get_u8(&b);
		gloc(&b, &d.loc);
		d.msg = get_str(&b);
		vec_push(&tu->diags, d);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++) {
		struct tu_file f = {0};
		f.path = get_str(&b);
		f.hash = get_raw64(&b);
		f.is_main = get_u8(&b);
		vec_push(&tu->files, f);
	}
	n = r->bad ? 0 : get_count(&b);
	for (size_t i = 0; i < n && !r->bad; i++)
		vec_push(&tu->dropped_flags, get_str(&b));
	if (!r->bad && b.p != b.end)
		facts_bad(r, "trailing bytes");
	free(r->strings);
	if (r->bad) {
		*err = xasprintf("malformed facts (%s)", r->what ? r->what : "?");
		tu_facts_free(tu);
		return NULL;
	}
	return tu;
}
