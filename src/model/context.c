/* context.c: GVL context per function.
 *
 * A function runs without the GVL when a release site's callback reaches it
 * through calls that are not under `if (ruby_thread_has_gvl_p())`; functions
 * given to rb_thread_call_with_gvl run with the GVL again (no edge is made
 * for that call, so the search does not enter them). The same helper may also
 * be called with the GVL elsewhere: only the no-GVL paths count, and each
 * reached function keeps one chain back to a release site (the first found in
 * breadth-first order from the sites in source order, i.e. a shortest one).
 */
#include "invariant.h"
#include "model.h"

#include <stdlib.h>
#include <string.h>

static bool edge_followable(const struct model *m, const struct edge *e, enum ctx_kind ctx)
{
	if (e->to < 0)
		return false;
	if (ctx == CTX_WITHGVL)
		return true;
	const struct mfunc *from = &m->fns.v[e->from];
	const struct event *ev = &from->f->events[e->ev];
	return !ev->gvl_guard;
}

struct queue {
	uint32_t *v;
	size_t head, n;
};

/* An EDGE_PARAM edge is followed only when a caller that passes its target
 * in that parameter position has been reached itself (context: fiobj_each2(o,
 * task) called with json_task from a callback does not reach the rb_task
 * another caller passes). The first caller found is returned (-1 none). */
static int32_t param_enabled(const struct model *m, const struct reach *r, const struct edge *e)
{
	size_t lo = 0, hi = m->param_via.n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct param_via *p = &m->param_via.v[mid];
		if (p->from < e->from || (p->from == e->from && (p->ev < e->ev || (p->ev == e->ev && p->to < e->to))))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->param_via.n; i++) {
		const struct param_via *p = &m->param_via.v[i];
		if (p->from != e->from || p->ev != e->ev || p->to != e->to)
			break;
		if (r[p->caller].reached)
			return (int32_t)p->caller;
	}
	return -1;
}

static void bfs_pass(const struct model *m, struct reach *r, struct queue *q, enum ctx_kind ctx, uint32_t *nopaque);

/* Breadth-first from the queued roots; parameter calls whose enabling caller
 * is reached later are picked up by further passes until nothing changes. */
static void bfs(const struct model *m, struct reach *r, struct queue *q, enum ctx_kind ctx, uint32_t *nopaque)
{
	for (;;) {
		bfs_pass(m, r, q, ctx, nopaque);
		size_t before = q->n;
		for (size_t i = 0; i < before; i++) {
			uint32_t f = q->v[i];
			const struct mfunc *mf = &m->fns.v[f];
			for (uint32_t k = mf->edge_begin; k < mf->edge_end; k++) {
				const struct edge *e = &m->edges.v[k];
				if (e->kind != EDGE_PARAM || e->to < 0 || r[e->to].reached ||
				    !edge_followable(m, e, ctx))
					continue;
				if (param_enabled(m, r, e) < 0)
					continue;
				r[e->to].reached = 1;
				r[e->to].pred_fn = (int32_t)f;
				r[e->to].pred_ev = (int32_t)e->ev;
				r[e->to].site = r[f].site;
				r[e->to].edge_kind = e->kind;
				q->v[q->n++] = (uint32_t)e->to;
			}
		}
		if (q->n == before)
			return;
	}
}

static void bfs_pass(const struct model *m, struct reach *r, struct queue *q, enum ctx_kind ctx, uint32_t *nopaque)
{
	while (q->head < q->n) {
		uint32_t f = q->v[q->head++];
		const struct mfunc *mf = &m->fns.v[f];
		for (uint32_t k = mf->edge_begin; k < mf->edge_end; k++) {
			const struct edge *e = &m->edges.v[k];
			if (e->to < 0) {
				if (nopaque && !mf->f->events[e->ev].gvl_guard)
					(*nopaque)++;
				continue;
			}
			if (!edge_followable(m, e, ctx) || r[e->to].reached)
				continue;
			if (e->kind == EDGE_PARAM && param_enabled(m, r, e) < 0)
				continue; /* maybe in a later pass */
			r[e->to].reached = 1;
			r[e->to].pred_fn = (int32_t)f;
			r[e->to].pred_ev = (int32_t)e->ev;
			r[e->to].site = r[f].site;
			r[e->to].edge_kind = e->kind;
			q->v[q->n++] = (uint32_t)e->to;
		}
	}
}

static void seed(struct reach *r, struct queue *q, const struct cbres *cb, int32_t site, int32_t pred_fn,
		 int32_t pred_ev)
{
	for (uint32_t i = 0; i < cb->ntargets; i++) {
		uint32_t t = cb->targets[i];
		if (r[t].reached)
			continue;
		r[t].reached = 1;
		r[t].pred_fn = pred_fn;
		r[t].pred_ev = pred_ev;
		r[t].site = site;
		q->v[q->n++] = t;
	}
}

void context_compute(struct model *m)
{
	size_t n = m->fns.n;
	struct queue q = {xmalloc((n + 1) * sizeof(uint32_t)), 0, 0};
	for (int c = 0; c < CTX_COUNT; c++) {
		m->reach[c] = xcalloc(n + 1, sizeof(struct reach));
		for (size_t i = 0; i < n; i++) {
			m->reach[c][i].pred_fn = -1;
			m->reach[c][i].pred_ev = -1;
			m->reach[c][i].site = -1;
		}
	}
	/* without the GVL: callbacks of every non-template site */
	q.head = q.n = 0;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template)
			continue;
		seed(m->reach[CTX_NOGVL], &q, &s->cb, (int32_t)i, (int32_t)s->fn, (int32_t)s->ev);
	}
	bfs(m, m->reach[CTX_NOGVL], &q, CTX_NOGVL, NULL);

	/* unblocking functions */
	q.head = q.n = 0;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template || s->ubf_kind != UBF_FUNC)
			continue;
		seed(m->reach[CTX_UBF], &q, &s->ubf, (int32_t)i, (int32_t)s->fn, (int32_t)s->ev);
	}
	bfs(m, m->reach[CTX_UBF], &q, CTX_UBF, NULL);

	/* functions given to rb_thread_call_with_gvl */
	q.head = q.n = 0;
	for (size_t i = 0; i < m->withgvl.n; i++) {
		const struct withgvl_call *w = &m->withgvl.v[i];
		int32_t site = m->reach[CTX_NOGVL][w->fn].site;
		seed(m->reach[CTX_WITHGVL], &q, &w->target, site, (int32_t)w->fn, (int32_t)w->ev);
	}
	bfs(m, m->reach[CTX_WITHGVL], &q, CTX_WITHGVL, NULL);
	free(q.v);
}

bool model_reached(const struct model *m, enum ctx_kind ctx, uint32_t fn)
{
	INVARIANT(m->reach[ctx]); /* context_compute ran (model_link) */
	return fn < m->fns.n && m->reach[ctx][fn].reached;
}

const struct reach *model_reach(const struct model *m, enum ctx_kind ctx, uint32_t fn)
{
	return model_reached(m, ctx, fn) ? &m->reach[ctx][fn] : NULL;
}

void model_reach_from(const struct model *m, const struct cbres *roots, int32_t site, struct reach_set *out)
{
	model_reach_from_ctx(m, roots, site, CTX_NOGVL, out);
}

void model_reach_from_ctx(const struct model *m, const struct cbres *roots, int32_t site, enum ctx_kind ctx,
			  struct reach_set *out)
{
	size_t n = m->fns.n;
	memset(out, 0, sizeof(*out));
	out->by_fn = xcalloc(n + 1, sizeof(struct reach));
	for (size_t i = 0; i < n; i++) {
		out->by_fn[i].pred_fn = -1;
		out->by_fn[i].pred_ev = -1;
		out->by_fn[i].site = -1;
	}
	struct queue q = {xmalloc((n + 1) * sizeof(uint32_t)), 0, 0};
	const struct msite *s = site >= 0 ? &m->sites.v[site] : NULL;
	seed(out->by_fn, &q, roots, site, s ? (int32_t)s->fn : -1, s ? (int32_t)s->ev : -1);
	bfs(m, out->by_fn, &q, ctx, &out->nopaque);
	out->fns = q.v;
	out->n = (uint32_t)q.n;
}

void reach_set_free(struct reach_set *rs)
{
	free(rs->fns);
	free(rs->by_fn);
	memset(rs, 0, sizeof(*rs));
}
