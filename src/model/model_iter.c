/* model_iter.c: the walks rules share instead of writing the loops out
 * (model.h): what runs without the GVL (struct nogvl_walk), the calls of
 * the gem (struct call_walk), the callers of a function (struct
 * caller_walk), the functions of a release site (struct site_fns_walk), and
 * the functions of the gem a call hands to another call (struct
 * handed_walk). */
#include "invariant.h"
#include "link_steps.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

void nogvl_walk_init(struct nogvl_walk *w, const struct model *m, const struct reach_set *rs, unsigned flags)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->rs = rs;
	w->flags = flags;
}

/* The next function to walk, or false at the end. */
bool nogvl_walk_next_fn(struct nogvl_walk *w)
{
	const struct model *m = w->m;
	if (w->rs) {
		if (w->pos >= w->rs->n)
			return false;
		w->fi = w->rs->fns[w->pos++];
	} else {
		while (w->pos < m->fns.n && !model_reached(m, CTX_NOGVL, w->pos))
			w->pos++;
		if (w->pos >= m->fns.n)
			return false;
		w->fi = w->pos++;
	}
	w->mf = &m->fns.v[w->fi];
	w->next_ev = 0;
	w->next_edge = w->mf->edge_begin;
	w->e = NULL;
	w->edge = NULL;
	return true;
}

/* The next event of the current function, or false at its end. */
bool nogvl_walk_next_event(struct nogvl_walk *w)
{
	if (!w->mf)
		return false;
	while (w->next_ev < w->mf->f->nevents) {
		w->ei = w->next_ev++;
		w->e = &w->mf->f->events[w->ei];
		if (w->e->gvl_guard && !(w->flags & NOGVL_GUARDED_TOO))
			continue;
		if ((w->flags & NOGVL_SKIP_GEM_CALLS) && w->e->kind == EV_CALL &&
		    (w->e->u.call->indirect || model_func_by_usr(w->m, w->e->u.call->usr)))
			continue;
		return true;
	}
	return false;
}

bool nogvl_walk_next(struct nogvl_walk *w)
{
	for (;;) {
		if (w->mf && nogvl_walk_next_event(w))
			return true;
		if (!nogvl_walk_next_fn(w))
			return false;
	}
}

/* The next call of the current function through a pointer the call graph
 * could not resolve, or false. */
bool nogvl_walk_next_unresolved(struct nogvl_walk *w)
{
	if (!w->mf)
		return false;
	while (w->next_edge < w->mf->edge_end) {
		const struct edge *ed = &w->m->edges.v[w->next_edge++];
		const struct event *e = &w->mf->f->events[ed->ev];
		if (ed->to >= 0 || (e->gvl_guard && !(w->flags & NOGVL_GUARDED_TOO)))
			continue;
		w->edge = ed;
		w->ei = ed->ev;
		w->e = e;
		return true;
	}
	return false;
}

/* ---- calls ---- */

void call_walk_init(struct call_walk *w, const struct model *m, int32_t fn, unsigned flags)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->flags = flags;
	w->all_fns = fn < 0;
	if (fn >= 0 && (uint32_t)fn < m->fns.n) {
		w->fi = (uint32_t)fn;
		w->mf = &m->fns.v[fn];
	}
}

bool call_walk_next(struct call_walk *w)
{
	for (;;) {
		while (w->mf && w->next_ev < w->mf->f->nevents) {
			uint32_t ei = w->next_ev++;
			const struct event *e = &w->mf->f->events[ei];
			if (e->kind == EV_ASSIGN && (w->flags & CALLS_AND_ASSIGNS)) {
				w->ei = ei;
				w->e = e;
				w->c = NULL;
				return true;
			}
			if (e->kind != EV_CALL || ((w->flags & CALLS_UNGUARDED) && e->gvl_guard) ||
			    ((w->flags & CALLS_DIRECT) && e->u.call->indirect))
				continue;
			w->ei = ei;
			w->e = e;
			w->c = e->u.call;
			return true;
		}
		if (!w->all_fns || w->next_fn >= w->m->fns.n) {
			w->e = NULL;
			w->c = NULL;
			return false;
		}
		w->fi = w->next_fn++;
		w->mf = &w->m->fns.v[w->fi];
		w->next_ev = 0;
	}
}

void caller_walk_init(struct caller_walk *w, const struct model *m, const struct mfunc *callee)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->callee = callee;
	w->next = callee->in_begin;
}

bool caller_walk_next(struct caller_walk *w)
{
	if (w->next >= w->callee->in_end)
		return false;
	const struct model *m = w->m;
	w->edge = &m->edges.v[m->in_edges.v[w->next++]];
	w->caller = &m->fns.v[w->edge->from];
	w->e = &w->caller->f->events[w->edge->ev];
	w->c = w->e->kind == EV_CALL ? w->e->u.call : NULL;
	return true;
}

/* ---- the functions of a release site ---- */

void site_fns_walk_init(struct site_fns_walk *w, const struct model *m, const struct reach_set *rs,
			const struct msite *s)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->rs = rs;
	w->s = s;
}

bool site_fns_walk_next(struct site_fns_walk *w)
{
	if (w->pos > w->rs->n)
		return false;
	uint32_t i = w->pos++;
	w->mf = i < w->rs->n ? &w->m->fns.v[w->rs->fns[i]] : &w->m->fns.v[w->s->data_fn];
	return true;
}

/* ---- functions handed to calls ---- */

/* The argument a Ruby protector runs as its body, or -1: rb_protect(func,
 * arg, &state), rb_ensure(b_proc, data1, e_proc, data2), rb_rescue(b_proc,
 * ...), rb_rescue2(b_proc, ...), rb_str_locktmp_ensure(str, func, arg)
 * (Ruby 3.1 ruby/internal/intern/proc.h, string.h). */
static int protector_body_arg(const char *name)
{
	static const struct {
		const char *name;
		int body;
	} protectors[] = {
		{"rb_protect", 0}, {"rb_ensure", 0}, {"rb_rescue", 0}, {"rb_rescue2", 0}, {"rb_str_locktmp_ensure", 1},
	};
	for (size_t i = 0; name && i < ARRAY_SIZE(protectors); i++)
		if (strcmp(name, protectors[i].name) == 0)
			return protectors[i].body;
	return -1;
}

void handed_walk_init(struct handed_walk *h, const struct model *m, const struct mfunc *caller, const struct call *c)
{
	memset(h, 0, sizeof(*h));
	h->m = m;
	h->caller = caller;
	h->only = c;
	h->all_fns = caller == NULL && c == NULL;
	h->c = c;
}

/* The next call to look at, or false: sets h->caller, h->ei, h->c. */
static bool handed_next_call(struct handed_walk *h)
{
	if (h->only)
		return false; /* its arguments are done */
	for (;;) {
		if (h->caller) {
			while (h->next_ev < h->caller->f->nevents) {
				uint32_t ei = h->next_ev++;
				const struct event *e = &h->caller->f->events[ei];
				if (e->kind != EV_CALL)
					continue;
				h->ei = ei;
				h->c = e->u.call;
				h->next_arg = 0;
				return true;
			}
		}
		if (!h->all_fns || h->fi >= h->m->fns.n)
			return false;
		h->caller = &h->m->fns.v[h->fi++];
		h->next_ev = 0;
	}
}

bool handed_walk_next(struct handed_walk *h)
{
	for (;;) {
		while (h->c && h->next_arg < h->c->nargs) {
			uint32_t k = h->next_arg++;
			const struct expr *a = &h->c->args[k];
			if (a->kind != EX_FUNC || !a->func_usr)
				continue;
			const struct mfunc *t = model_callee(h->m, a->func_usr, h->caller);
			if (!t)
				continue;
			h->arg = k;
			h->fn = t;
			h->body = protector_body_arg(h->c->name) == (int)k;
			return true;
		}
		if (!handed_next_call(h)) {
			h->c = NULL;
			return false;
		}
	}
}

const struct mfunc *model_protected_body(const struct model *m, const struct mfunc *caller, const struct call *c)
{
	struct handed_walk h;
	for (handed_walk_init(&h, m, caller, c); handed_walk_next(&h);)
		if (h.body)
			return h.fn;
	return NULL;
}

/* ---- the events naming a function as a value ---- */

void index_fn_ref(struct model *m, const char *usr, uint32_t fi, uint32_t ei)
{
	if (!usr)
		return;
	call_at_vec *v = hmap_get(&m->fn_refs, usr);
	if (!v) {
		v = arena_alloc(&m->arena, sizeof(*v));
		hmap_put(&m->fn_refs, usr, v);
	}
	if (v->n && v->v[v->n - 1].fn == fi && v->v[v->n - 1].ev == ei)
		return; /* once per event */
	struct call_at at = {fi, ei};
	vec_push(v, at);
}

void fn_refs_free(struct model *m)
{
	hmap_foreach(&m->fn_refs, e)
	{
		call_at_vec *v = e->val;
		vec_free(v);
	}
	hmap_free(&m->fn_refs);
}

const struct call_at *model_fn_refs(const struct model *m, const char *usr, size_t *n)
{
	const call_at_vec *v = usr ? hmap_get(&m->fn_refs, usr) : NULL;
	*n = v ? v->n : 0;
	return v && v->n ? v->v : NULL;
}

/* ---- the rules' memo of model-wide answers ---- */

bool model_memo_get(const struct model *m, const char *key, uintptr_t *val)
{
	uintptr_t v = m->memo && key ? (uintptr_t)hmap_get(&m->memo->by_key, key) : 0;
	if (!v)
		return false;
	*val = v - 1;
	return true;
}

void model_memo_put(const struct model *m, const char *key, uintptr_t val)
{
	if (!m->memo || !key || strlen(key) > MODEL_MEMO_KEY_MAX)
		return;
	/* the memo is a cache beside the facts: filled through a const model */
	struct model_memo *mm = m->memo;
	hmap_put(&mm->by_key, intern(&mm->keys, key), (void *)(val + 1));
}

static void member_ref(struct model_memo *mm, const char *key, uint32_t fi, uint32_t ei)
{
	if (!key || !*key)
		return;
	call_at_vec *v = hmap_get(&mm->members, key);
	if (!v) {
		v = xcalloc(1, sizeof(*v));
		hmap_put(&mm->members, key, v);
	}
	if (v->n && v->v[v->n - 1].fn == fi && v->v[v->n - 1].ev == ei)
		return; /* once per event */
	struct call_at at = {fi, ei};
	vec_push(v, at);
}

/* A reference names its member, and the variable it starts from (a global's
 * USR; locals have none). */
static void member_ref_of(struct model_memo *mm, const struct mfunc *mf, const struct ref *r, uint32_t fi, uint32_t ei)
{
	member_ref(mm, r->field, fi, ei);
	const struct var *v = mf_var(mf, r->var);
	if (v)
		member_ref(mm, v->usr, fi, ei);
}

static void build_members(const struct model *m, struct model_memo *mm)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind == EV_ACCESS) {
				member_ref_of(mm, mf, &e->u.access->ref, fi, ei);
			} else if (e->kind == EV_ASSIGN) {
				member_ref_of(mm, mf, &e->u.assign->lhs, fi, ei);
				if (e->u.assign->rhs.kind == EX_REF)
					member_ref_of(mm, mf, &e->u.assign->rhs.ref, fi, ei);
			} else if (e->kind == EV_CALL) {
				/* `f(s->field)`, `f(&s->field)`, `f(g)`, `f(&g)` */
				for (uint32_t k = 0; k < e->u.call->nargs; k++)
					if (e->u.call->args[k].kind == EX_REF)
						member_ref_of(mm, mf, &e->u.call->args[k].ref, fi, ei);
			}
		}
	}
}

const struct call_at *model_member_refs(const struct model *m, const char *key, size_t *n)
{
	INVARIANT(m->memo); /* model_link made it */
	struct model_memo *mm = m->memo;
	if (!mm->members_built) {
		build_members(m, mm);
		mm->members_built = true;
	}
	const call_at_vec *v = key ? hmap_get(&mm->members, key) : NULL;
	*n = v ? v->n : 0;
	return v && v->n ? v->v : NULL;
}

void model_memo_free(struct model *m)
{
	if (!m->memo)
		return;
	hmap_foreach(&m->memo->members, e)
	{
		call_at_vec *v = e->val;
		vec_free(v);
		free(v);
	}
	hmap_free(&m->memo->members);
	hmap_free(&m->memo->by_key);
	strpool_free(&m->memo->keys);
	free(m->memo);
	m->memo = NULL;
}
