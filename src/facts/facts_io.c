/* facts_io.c: see facts_io.h. */
#include "facts_io_impl.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
		payload = json_pack("[oII]", wref(w, &e->u.access->ref), (json_int_t)e->u.access->mode,
				    (json_int_t)e->u.access->atomic_op);
		break;
	case EV_RETURN:
		payload = wexpr(w, e->u.ret);
		break;
	default:
		payload = json_null();
		break;
	}
	json_t *a = json_array();
	json_array_append_new(a, I(e->kind));
	json_array_append_new(a, wloc(w, &e->loc));
	json_array_append_new(a, I(e->region));
	json_array_append_new(a, payload);
	json_array_append_new(a, I(e->in_macro_arg));
	json_array_append_new(a, I(e->gvl_guard));
	json_array_append_new(a, S(w, e->macro));
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

void facts_bad(struct rctx *r, const char *what)
{
	if (!r->bad)
		r->what = what;
	r->bad = true;
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

/* Indices into a function (regions, parent calls, calls of expressions)
 * stay inside it, and name events of the right kind. */
void check_func_indices(struct rctx *r, const struct func *f)
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
		if (tu) /* kept to the end of the run, like the binary form's */
			strpool_seal(&tu->pool);
		/* no json_decref: every node is in the arena (when facts_io_init
		 * installed the allocator; otherwise the tree is freed normally) */
		if (!json_arena_installed)
			json_decref(j);
		json_arena = NULL;
	}
	arena_free(&a);
	return tu;
}
