/* link_callbacks.c: bindings (functions stored in fields and parameters) and
 * the resolution of a callback expression to the functions it can name
 * (link_steps.h). */
#include "link_steps.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "log.h"

/* ---- bindings ---- */

static const char *binding_key(struct model *m, const char *record, const char *field)
{
	char *k = xasprintf("%s\x01%s", record ? record : "", field ? field : "");
	const char *r = intern(&m->pool, k);
	free(k);
	return r;
}

void add_binding(struct model *m, const struct binding *b)
{
	const char *key = binding_key(m, b->record, b->field);
	binding_vec *v = hmap_get(&m->bindings, key);
	if (!v) {
		v = arena_alloc(&m->arena, sizeof(*v));
		hmap_put(&m->bindings, key, v);
	}
	vec_push(v, b);
}

static const binding_vec *find_bindings(struct model *m, const char *record, const char *field)
{
	return hmap_get(&m->bindings, binding_key(m, record, field));
}

/* ---- callback resolution ---- */

typedef VEC(const char *) strvec;

/* A function pointer is analysed as each function assigned to it, up to this
 * many; past it (a table of thousands of handlers, generated code) the
 * pointer is "partial": the gates say cannot verify and name it. Bounds the
 * work of every later walk over the targets. */
#define MAX_FN_TARGETS 64
static bool targets_capped; /* or a value not followed; linking is single-threaded; see resolve_fn_expr */

/* from: the file whose code names the function (NULL: not known) */
static void add_target(struct model *m, u32vec *t, strvec *ext, const char *usr, const char *name,
		       const struct tu_facts *from)
{
	if (t->n + ext->n >= MAX_FN_TARGETS) {
		targets_capped = true;
		return;
	}
	int32_t id = fn_id_from(m, usr, from);
	if (id >= 0) {
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i] == (uint32_t)id)
				return;
		vec_push(t, (uint32_t)id);
	} else if (name) {
		const char *in = intern(&m->pool, name);
		for (size_t i = 0; i < ext->n; i++)
			if (ext->v[i] == in)
				return;
		vec_push(ext, in);
	}
}

static void finish_cbres(struct model *m, struct cbres *r, u32vec *t, strvec *ext)
{
	r->ntargets = (uint32_t)t->n;
	r->targets = t->n ? arena_memdup(&m->arena, t->v, t->n * sizeof(uint32_t)) : NULL;
	r->nexternal = (uint32_t)ext->n;
	r->external = ext->n ? arena_memdup(&m->arena, ext->v, ext->n * sizeof(char *)) : NULL;
	vec_free(t);
	vec_free(ext);
}

/* A parameter stored in a field: the functions the callers of its function
 * pass in that position (one level; callers passing their own parameter on
 * are wrappers, handled as release sites). */
static int bind_depth; /* linking is single-threaded: guards mutual recursion */

/* The functions call c (event ei of function fi) passes as arguments,
 * each indexed once in m->func_passed. */
static void index_passed(struct model *m, uint32_t fi, uint32_t ei, const struct call *c)
{
	for (uint32_t a = 0; a < c->nargs; a++) {
		const struct expr *x = &c->args[a];
		if (x->kind != EX_FUNC || !x->func_usr)
			continue;
		bool seen = false;
		for (uint32_t b = 0; b < a && !seen; b++)
			seen = c->args[b].kind == EX_FUNC && c->args[b].func_usr &&
			       strcmp(c->args[b].func_usr, x->func_usr) == 0;
		if (seen)
			continue;
		call_at_vec *v = hmap_get(&m->func_passed, x->func_usr);
		if (!v) {
			v = arena_alloc(&m->arena, sizeof(*v));
			hmap_put(&m->func_passed, x->func_usr, v);
		}
		struct call_at at = {fi, ei};
		vec_push(v, at);
	}
}

/* Every direct call, indexed by callee USR, so resolving what callers pass
 * costs the callers, not the whole program. */
void index_calls(struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || e->u.call->indirect)
				continue;
			index_passed(m, fi, ei, e->u.call);
			if (!e->u.call->usr)
				continue;
			call_at_vec *v = hmap_get(&m->calls_to, e->u.call->usr);
			if (!v) {
				v = arena_alloc(&m->arena, sizeof(*v));
				hmap_put(&m->calls_to, e->u.call->usr, v);
			}
			struct call_at c = {fi, ei};
			vec_push(v, c);
		}
	}
}

static void bind_param_targets(struct model *m, const struct binding *b, u32vec *t, strvec *ext, int depth)
{
	if (depth > 0 || b->param_index < 0 || bind_depth > 2)
		return;
	bind_depth++;
	const call_at_vec *callers = hmap_get(&m->calls_to, b->param_of_usr);
	for (size_t ci = 0; callers && ci < callers->n; ci++) {
		const struct mfunc *mf = &m->fns.v[callers->v[ci].fn];
		uint32_t ei = callers->v[ci].ev;
		{
			const struct event *e = &mf->f->events[ei];
			if ((uint32_t)b->param_index >= e->u.call->nargs)
				continue;
			const struct expr *a = &e->u.call->args[b->param_index];
			if (a->kind == EX_REF && (!a->ref.path || !*a->ref.path)) {
				const struct var *v = mf_var(mf, a->ref.var);
				if (v && v->kind == VK_PARAM)
					continue; /* forwarded again: a wrapper's business */
			}
			struct cbres r = resolve_fn_expr(m, mf, ei, a);
			if (r.partial && r.ntargets + r.nexternal >= MAX_FN_TARGETS)
				targets_capped = true; /* the caller's own list was cut */
			for (uint32_t i = 0; i < r.ntargets; i++)
				add_target(m, t, ext, m->fns.v[r.targets[i]].f->usr, NULL, m->fns.v[r.targets[i]].tu);
			for (uint32_t i = 0; i < r.nexternal; i++)
				add_target(m, t, ext, NULL, r.external[i], NULL);
		}
	}
	bind_depth--;
}

static void bind_targets(struct model *m, const binding_vec *bv, u32vec *t, strvec *ext)
{
	if (!bv)
		return;
	for (size_t i = 0; i < bv->n; i++) {
		if (bv->v[i]->param_of_usr)
			bind_param_targets(m, bv->v[i], t, ext, 0);
		else if (!bv->v[i]->fn_usr && !bv->v[i]->fn_name)
			targets_capped = true; /* a value that names no function (extract.c emit_assign) */
		else
			add_target(m, t, ext, bv->v[i]->fn_usr, bv->v[i]->fn_name, NULL);
	}
}

/* Resolves a function-valued expression evaluated in mf before event `before`. */
struct cbres resolve_fn_expr(struct model *m, const struct mfunc *mf, uint32_t before, const struct expr *e)
{
	struct cbres r = {0};
	u32vec t = {0};
	strvec ext = {0};
	bool capped_outer = targets_capped;
	targets_capped = false;
	r.text = e->text;
	r.macro = e->macro;
	switch (e->kind) {
	case EX_FUNC:
		r.how = e->cast ? CB_CAST : CB_DIRECT;
		add_target(m, &t, &ext, e->func_usr, e->func_name, mf->tu);
		break;
	case EX_NULL:
		r.how = CB_NULL;
		break;
	case EX_INT:
		if (e->has_ival && e->ival == 0)
			r.how = CB_NULL;
		else if (e->has_ival && e->ival == -1)
			r.how = CB_SENTINEL;
		break;
	case EX_REF: {
		const struct var *v = mf_var(mf, e->ref.var);
		if (!v)
			break;
		bool plain = !e->ref.path || !*e->ref.path;
		if (!plain && e->ref.field) {
			r.how = CB_FIELD;
			bind_targets(m, find_bindings(m, e->ref.record, e->ref.field), &t, &ext);
			if (!t.n && !ext.n)
				r.how = CB_UNRESOLVED;
			break;
		}
		if (!plain)
			break;
		if (v->kind == VK_PARAM) {
			r.how = CB_WRAPPER;
			break;
		}
		if (v->kind == VK_LOCAL) {
			r.how = CB_LOCAL_VAR;
			if (v->init_fn_usr)
				add_target(m, &t, &ext, v->init_fn_usr, NULL, mf->tu);
			for (uint32_t i = 0; i < mf->f->nevents && i < before; i++) {
				const struct event *ev = &mf->f->events[i];
				if (ev->kind != EV_ASSIGN || ev->u.assign->lhs.var != e->ref.var)
					continue;
				if (ev->u.assign->lhs.path && *ev->u.assign->lhs.path)
					continue;
				const struct expr *rhs = &ev->u.assign->rhs;
				if (rhs->kind == EX_FUNC)
					add_target(m, &t, &ext, rhs->func_usr, rhs->func_name, mf->tu);
				else if (rhs->kind != EX_NULL)
					r.partial = 1;
			}
			if (!t.n && !ext.n)
				r.how = CB_UNRESOLVED;
			break;
		}
		/* global or static function pointer: initialiser and every assignment */
		r.how = CB_GLOBAL_VAR;
		if (v->init_fn_usr)
			add_target(m, &t, &ext, v->init_fn_usr, NULL, mf->tu);
		const struct var *g = v->usr ? hmap_get(&m->globals, v->usr) : NULL;
		if (g && g->init_fn_usr)
			add_target(m, &t, &ext, g->init_fn_usr, NULL, NULL);
		bind_targets(m, find_bindings(m, NULL, v->usr), &t, &ext);
		if (!t.n && !ext.n)
			r.how = CB_UNRESOLVED;
		break;
	}
	default:
		break;
	}
	if (targets_capped)
		r.partial = 1; /* more functions than MAX_FN_TARGETS: the rest are not analysed */
	targets_capped = capped_outer;
	finish_cbres(m, &r, &t, &ext);
	return r;
}
