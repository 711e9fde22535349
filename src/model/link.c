/* link.c: joins per-TU facts into the whole-program model (model.h). */
#include "model.h"
#include "link_steps.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "log.h"

const char *cb_how_text(int how)
{
	switch (how) {
	case CB_DIRECT:
		return "direct";
	case CB_CAST:
		return "cast";
	case CB_LOCAL_VAR:
		return "local function pointer";
	case CB_GLOBAL_VAR:
		return "global function pointer";
	case CB_FIELD:
		return "struct field";
	case CB_WRAPPER:
		return "wrapper argument";
	case CB_NULL:
		return "NULL";
	case CB_SENTINEL:
		return "sentinel";
	default:
		return "unresolved";
	}
}

const char *ubf_kind_text(int kind)
{
	switch (kind) {
	case UBF_NONE:
		return "none";
	case UBF_NULL:
		return "NULL";
	case UBF_IO:
		return "RUBY_UBF_IO";
	case UBF_PROCESS:
		return "RUBY_UBF_PROCESS";
	case UBF_FUNC:
		return "function";
	default:
		return "unknown";
	}
}

const struct mfunc *model_func_by_usr(const struct model *m, const char *usr)
{
	if (!usr)
		return NULL;
	uintptr_t v = (uintptr_t)hmap_get(&m->fn_by_usr, usr);
	return v ? &m->fns.v[v - 1] : NULL;
}

const struct var *mf_var(const struct mfunc *mf, int32_t var)
{
	return tu_var(mf->tu, var);
}

static int32_t fn_id(const struct model *m, const char *usr)
{
	uintptr_t v = usr ? (uintptr_t)hmap_get(&m->fn_by_usr, usr) : 0;
	return v ? (int32_t)(v - 1) : -1;
}

static bool same_dir(const char *a, const char *b)
{
	const char *sa = a ? strrchr(a, '/') : NULL, *sb = b ? strrchr(b, '/') : NULL;
	return sa && sb && sa - a == sb - b && strncmp(a, b, (size_t)(sa - a)) == 0;
}

/* The definition a call from `from` reaches: where one name is defined in
 * several places, the one in the caller's file, else one in its directory
 * (its extension), else the first. */
int32_t fn_id_from(const struct model *m, const char *usr, const struct tu_facts *from)
{
	int32_t id = fn_id(m, usr);
	const u32vec *d = id >= 0 && from ? hmap_get(&m->fn_defs, usr) : NULL;
	if (!d)
		return id;
	for (size_t i = 0; i < d->n; i++)
		if (m->fns.v[d->v[i]].tu == from)
			return (int32_t)d->v[i];
	for (size_t i = 0; i < d->n; i++)
		if (same_dir(m->fns.v[d->v[i]].tu->path, from->path))
			return (int32_t)d->v[i];
	return id;
}

const struct mfunc *model_callee(const struct model *m, const char *usr, const struct mfunc *caller)
{
	int32_t id = fn_id_from(m, usr, caller ? caller->tu : NULL);
	return id >= 0 ? &m->fns.v[id] : NULL;
}

/* TU-local index of a function */
int32_t local_fn_index(const struct mfunc *mf)
{
	return (int32_t)(mf->f - mf->tu->funcs.v);
}

static void find_withgvl(struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || !str_eq(e->u.call->name, WITH_GVL_API) || !e->u.call->nargs)
				continue;
			struct withgvl_call w = {fi, ei, resolve_fn_expr(m, mf, ei, &e->u.call->args[0])};
			vec_push(&m->withgvl, w);
		}
	}
}

/* Functions a Ruby protector runs as its body (rb_protect, rb_ensure ...:
 * model_iter.c knows which argument that is). */
static void mark_protected(struct model *m)
{
	struct handed_walk h;
	for (handed_walk_init(&h, m, NULL, NULL); handed_walk_next(&h);)
		if (h.body)
			m->fns.v[h.fn->id].protected_body = 1;
}

/* Token-level mentions that the AST also has (same file, line and name).
 * Only calls of a name some token site has can match: the others are not
 * keyed (keying every call of the gem was most of this step's time). */
static void mark_token_sites(struct model *m)
{
	struct hmap names = {0}; /* the token sites' API names */
	for (size_t t = 0; t < m->ntus; t++)
		for (size_t i = 0; i < m->tus[t]->token_sites.n; i++)
			hmap_put(&names, m->tus[t]->token_sites.v[i].api, (void *)1);
	if (!names.n)
		return;
	struct hmap seen = {0};
	struct strpool keys = {0};
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || !e->u.call->name || !hmap_has(&names, e->u.call->name))
				continue;
			char *k = xasprintf("%s:%u:%s", e->loc.file ? e->loc.file : "", e->loc.line, e->u.call->name);
			hmap_put(&seen, intern(&keys, k), (void *)1);
			free(k);
		}
	}
	for (size_t t = 0; t < m->ntus; t++) {
		struct tu_facts *tu = m->tus[t];
		for (size_t i = 0; i < tu->token_sites.n; i++) {
			struct token_site *ts = &tu->token_sites.v[i];
			char *k = xasprintf("%s:%u:%s", ts->loc.file ? ts->loc.file : "", ts->loc.line, ts->api);
			ts->in_ast = hmap_has(&seen, k);
			free(k);
		}
	}
	hmap_free(&seen);
	strpool_free(&keys);
	hmap_free(&names);
}

static void mark_taken(struct model *m, const char *usr)
{
	int32_t id = fn_id(m, usr);
	if (id < 0)
		return;
	m->fns.v[id].address_taken = 1;
	const u32vec *d = hmap_get(&m->fn_defs, usr);
	for (size_t i = 0; d && i < d->n; i++)
		m->fns.v[d->v[i]].address_taken = 1;
}

/* Functions whose address is taken: an argument of any call, the value of
 * an assignment, a function bound to a field. */
static void find_address_taken(struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct func *f = m->fns.v[fi].f;
		for (uint32_t ei = 0; ei < f->nevents; ei++) {
			const struct event *e = &f->events[ei];
			if (e->kind == EV_CALL) {
				for (uint32_t k = 0; k < e->u.call->nargs; k++)
					if (e->u.call->args[k].kind == EX_FUNC) {
						mark_taken(m, e->u.call->args[k].func_usr);
						index_fn_ref(m, e->u.call->args[k].func_usr, fi, ei);
					}
			} else if (e->kind == EV_ASSIGN && e->u.assign->rhs.kind == EX_FUNC) {
				mark_taken(m, e->u.assign->rhs.func_usr);
				index_fn_ref(m, e->u.assign->rhs.func_usr, fi, ei);
			}
		}
	}
	for (size_t t = 0; t < m->ntus; t++)
		for (size_t i = 0; i < m->tus[t]->bindings.n; i++)
			mark_taken(m, m->tus[t]->bindings.v[i].fn_usr);
}

/* The functions a file defines: one model function each, but once for a
 * definition seen again (a function in a header). */
static void add_functions(struct model *m, struct tu_facts *tu)
{
	for (size_t i = 0; i < tu->funcs.n; i++) {
		struct func *f = &tu->funcs.v[i];
		if (!f->usr || !*f->usr)
			continue;
		int32_t first = fn_id(m, f->usr);
		if (first >= 0) {
			/* the same definition seen again (a function in a header) */
			const struct func *g = m->fns.v[first].f;
			if (g->loc.line == f->loc.line && g->loc.file && f->loc.file &&
			    strcmp(g->loc.file, f->loc.file) == 0)
				continue;
			const u32vec *known = hmap_get(&m->fn_defs, f->usr);
			bool dup = false;
			for (size_t k = 0; known && k < known->n && !dup; k++) {
				const struct func *h = m->fns.v[known->v[k]].f;
				dup = h->loc.line == f->loc.line && h->loc.file && f->loc.file &&
				      strcmp(h->loc.file, f->loc.file) == 0;
			}
			if (dup)
				continue;
		}
		struct mfunc mf = {0};
		mf.f = f;
		mf.tu = tu;
		mf.id = (uint32_t)m->fns.n;
		mf.wrapper = -1;
		vec_push(&m->fns, mf);
		if (first < 0) {
			hmap_put(&m->fn_by_usr, f->usr, (void *)(uintptr_t)m->fns.n);
		} else {
			/* another definition of the same name elsewhere: its own
			 * function, reached from its own file and directory */
			u32vec *d = hmap_get(&m->fn_defs, f->usr);
			if (!d) {
				d = xcalloc(1, sizeof(*d));
				vec_push(d, (uint32_t)first);
				hmap_put(&m->fn_defs, f->usr, d);
			}
			vec_push(d, mf.id);
		}
	}
}

/* Sites are referenced by index from wrappers: sort a copy of the order and
 * remap. */
static void sort_sites(struct model *m)
{
	size_t n = m->sites.n;
	struct msite *sorted = xmalloc((n ? n : 1) * sizeof(*sorted));
	if (n) /* no sites: m->sites.v is NULL, and memcpy from NULL is undefined */
		memcpy(sorted, m->sites.v, n * sizeof(*sorted));
	xqsort(sorted, n, sizeof(*sorted), site_cmp);
	uint32_t *remap = xmalloc((n ? n : 1) * sizeof(uint32_t));
	for (size_t i = 0; i < n; i++)
		remap[sorted[i].id] = (uint32_t)i;
	for (size_t i = 0; i < n; i++) {
		sorted[i].id = (uint32_t)i;
		if (sorted[i].inner >= 0)
			sorted[i].inner = (int32_t)remap[sorted[i].inner];
	}
	for (size_t i = 0; i < m->wrappers.n; i++)
		m->wrappers.v[i].site = remap[m->wrappers.v[i].site];
	if (n)
		memcpy(m->sites.v, sorted, n * sizeof(*sorted));
	free(sorted);
	free(remap);
}

struct model *model_link(struct tu_facts **tus, size_t ntus)
{
	struct model *m = xcalloc(1, sizeof(*m));
	m->memo = xcalloc(1, sizeof(*m->memo));
	m->tus = tus;
	m->ntus = ntus;
	for (size_t t = 0; t < ntus; t++) {
		struct tu_facts *tu = tus[t];
		add_functions(m, tu);
		for (size_t i = 0; i < tu->bindings.n; i++)
			add_binding(m, &tu->bindings.v[i]);
		for (size_t i = 0; i < tu->vars.n; i++) {
			struct var *v = &tu->vars.v[i];
			if ((v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC) && v->usr) {
				struct var *prev = hmap_get(&m->globals, v->usr);
				if (!prev || (!prev->init_fn_usr && v->init_fn_usr))
					hmap_put(&m->globals, v->usr, v);
			}
		}
	}
	index_calls(m);
	find_address_taken(m);
	find_sites(m);
	mark_token_sites(m);
	add_token_sites(m);
	sort_sites(m);
	build_edges(m);
	add_library_callback_edges(m);
	index_edges(m);
	if (add_param_edges(m)) {
		m->in_edges.n = 0;
		index_edges(m);
	}
	xqsort(m->param_via.v, m->param_via.n, sizeof(struct param_via), param_via_cmp);
	find_withgvl(m);
	mark_protected(m);
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template)
			continue;
		m->ncallbacks += s->cb.ntargets;
		if (!s->cb.ntargets && !s->cb.nexternal)
			m->nsites_unresolved++;
	}
	model_mark_unreachable(m);
	context_compute(m);
	return m;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	site_verdicts_free(m->verdicts, m->nverdicts);
	vec_free(&m->fns);
	hmap_free(&m->fn_by_usr);
	hmap_foreach(&m->fn_defs, e)
	{
		u32vec *d = e->val;
		vec_free(d);
		free(d);
	}
	hmap_free(&m->fn_defs);
	vec_free(&m->edges);
	vec_free(&m->in_edges);
	vec_free(&m->param_via);
	vec_free(&m->sites);
	vec_free(&m->wrappers);
	hmap_foreach(&m->bindings, e)
	{
		binding_vec *v = e->val;
		vec_free(v);
	}
	hmap_free(&m->bindings);
	hmap_free(&m->globals);
	hmap_foreach(&m->calls_to, e)
	{
		call_at_vec *v = e->val;
		vec_free(v);
	}
	hmap_free(&m->calls_to);
	hmap_foreach(&m->func_passed, e)
	{
		call_at_vec *v = e->val;
		vec_free(v);
	}
	hmap_free(&m->func_passed);
	fn_refs_free(m);
	model_memo_free(m);
	vec_free(&m->withgvl);
	for (int i = 0; i < CTX_COUNT; i++)
		free(m->reach[i]);
	arena_free(&m->arena);
	strpool_free(&m->pool);
	free(m);
}

const struct call_at *model_func_passed(const struct model *m, const char *usr, size_t *n)
{
	const call_at_vec *v = usr ? hmap_get(&m->func_passed, usr) : NULL;
	*n = v ? v->n : 0;
	return v && v->n ? v->v : NULL;
}
