/* link_graph.c: the call graph: direct and library-callback edges, edges
 * through parameters, and their indexes (link_steps.h). */
#include "link_steps.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "log.h"

/* ---- call graph ---- */

static bool is_ruby_named(const char *n)
{
	return str_starts(n, "rb_") || str_starts(n, "ruby_") || str_starts(n, "RB_") || str_starts(n, "RUBY_");
}

static void add_edge(struct model *m, uint32_t from, int32_t to, uint32_t ev, int kind)
{
	struct edge e = {from, to, ev, (uint8_t)kind};
	vec_push(&m->edges, e);
}

void build_edges(struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL)
				continue;
			const struct call *c = e->u.call;
			if (!c->indirect) {
				int32_t to = fn_id_from(m, c->usr, mf->tu);
				if (to >= 0) {
					add_edge(m, fi, to, ei, EDGE_DIRECT);
					continue;
				}
				/* a library function given our functions may call them back
				 * (qsort comparators, library callbacks); Ruby's APIs do that
				 * with the GVL held and release APIs are sites of their own */
				if (c->origin == ORIGIN_RUBY || is_ruby_named(c->name) || gvl_api_find(c->name))
					continue;
				for (uint32_t ai = 0; ai < c->nargs; ai++) {
					if (c->args[ai].kind != EX_FUNC)
						continue;
					int32_t t = fn_id_from(m, c->args[ai].func_usr, mf->tu);
					if (t >= 0)
						add_edge(m, fi, t, ei, EDGE_FNARG);
				}
				continue;
			}
			/* through a pointer */
			const struct expr *ce = &c->callee;
			int p;
			if (is_param_of(mf, ce, &p))
				continue; /* resolved from callers below */
			struct cbres r = resolve_fn_expr(m, mf, ei, ce);
			/* some values not followed (or past MAX_FN_TARGETS): an unknown
			 * callee besides the known ones, so no gate passes on them alone */
			if ((!r.ntargets && !r.nexternal) || r.partial)
				add_edge(m, fi, -1, ei, EDGE_POINTER);
			for (uint32_t i = 0; i < r.ntargets; i++)
				add_edge(m, fi, (int32_t)r.targets[i], ei, EDGE_POINTER);
		}
	}
}

/* Library calls that run handlers registered with another call of the same
 * library, from the library models (rules/models/NAME.yml): a function whose
 * model has calls_back: {registered_by: [R, ...]} may run the handler given to
 * R, whose model names that argument (registers_handler: N). The SQLite
 * models, for example: sqlite3_backup_step runs the sqlite3_busy_handler
 * handler, sqlite3_step also the progress handler and the commit, rollback and
 * update hooks. */

/* The model of a direct call of a library function (no body in the gem). */
static const struct lib_model *library_call_model(const struct model *m, const struct mfunc *mf, const struct event *e)
{
	if (e->kind != EV_CALL || e->u.call->indirect || !e->u.call->name || fn_id_from(m, e->u.call->usr, mf->tu) >= 0)
		return NULL;
	return model_find(e->u.call->name);
}

typedef VEC(uint32_t) handler_list;

/* The names of the models that register handlers (registrars) and of those
 * that run them (runners): a call of any other name is neither, so the two
 * walks below look up the models of those calls only (model_find's prefix
 * scan for every call of the gem was most of their time). False when a
 * prefix model is one of them: then every call is looked up. */
static bool callback_model_names(struct hmap *registrars, struct hmap *runners)
{
	size_t n = 0;
	const struct lib_model *const *all = models_all(&n);
	for (size_t i = 0; i < n; i++) {
		const struct lib_model *lm = all[i];
		bool reg = lm->registers_handler >= 0, run = lm->registered_by != NULL;
		if (!reg && !run)
			continue;
		size_t len = strlen(lm->name);
		if (len && lm->name[len - 1] == '*')
			return false;
		if (reg)
			hmap_put(registrars, lm->name, (void *)1);
		if (run)
			hmap_put(runners, lm->name, (void *)1);
	}
	return true;
}

/* The call's model, when the call's name may have one in `names` (NULL:
 * any). */
static const struct lib_model *named_call_model(const struct model *m, const struct mfunc *mf, const struct event *e,
						const struct hmap *names)
{
	if (names && (e->kind != EV_CALL || !e->u.call->name || !hmap_has(names, e->u.call->name)))
		return NULL;
	return library_call_model(m, mf, e);
}

/* Edges from each call of a runner to the handlers the project registers
 * anywhere with one of its registrars. */
void add_library_callback_edges(struct model *m)
{
	struct hmap handlers = {0}; /* registrar name -> handler_list* */
	struct hmap registrars = {0}, runners = {0};
	bool exact = callback_model_names(&registrars, &runners);
	const struct hmap *rg = exact ? &registrars : NULL, *rn = exact ? &runners : NULL;
	for (uint32_t fi = 0; fi < m->fns.n && (!exact || registrars.n); fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			const struct lib_model *lm = named_call_model(m, mf, e, rg);
			if (!lm || lm->registers_handler < 0 || (uint32_t)lm->registers_handler >= e->u.call->nargs)
				continue;
			struct cbres r = resolve_fn_expr(m, mf, ei, &e->u.call->args[lm->registers_handler]);
			if (!r.ntargets)
				continue;
			handler_list *l = hmap_get(&handlers, lm->name);
			if (!l) {
				l = xcalloc(1, sizeof(*l));
				hmap_put(&handlers, lm->name, l);
			}
			for (uint32_t i = 0; i < r.ntargets; i++)
				vec_push(l, r.targets[i]);
		}
	}
	for (uint32_t fi = 0; fi < m->fns.n && handlers.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			const struct lib_model *lm = named_call_model(m, mf, e, rn);
			if (!lm || !lm->registered_by)
				continue;
			for (const char *const *r = lm->registered_by; *r; r++) {
				const handler_list *l = hmap_get(&handlers, *r);
				for (size_t h = 0; l && h < l->n; h++)
					add_edge(m, fi, (int32_t)l->v[h], ei, EDGE_LIBCB);
			}
		}
	}
	hmap_foreach(&handlers, he)
	{
		handler_list *l = he->val;
		vec_free(l);
		free(l);
	}
	hmap_free(&handlers);
	hmap_free(&registrars);
	hmap_free(&runners);
}

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

int param_via_cmp(const void *a, const void *b)
{
	const struct param_via *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

static const struct model *sort_model;
static int in_edge_cmp(const void *a, const void *b)
{
	const struct edge *x = &sort_model->edges.v[*(const uint32_t *)a];
	const struct edge *y = &sort_model->edges.v[*(const uint32_t *)b];
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

void index_edges(struct model *m)
{
	xqsort(m->edges.v, m->edges.n, sizeof(struct edge), edge_cmp);
	/* drop exact duplicates */
	size_t w = 0;
	for (size_t i = 0; i < m->edges.n; i++) {
		if (w && memcmp(&m->edges.v[w - 1], &m->edges.v[i], sizeof(struct edge)) == 0)
			continue;
		m->edges.v[w++] = m->edges.v[i];
	}
	m->edges.n = w;
	size_t k = 0;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		m->fns.v[fi].edge_begin = (uint32_t)k;
		while (k < m->edges.n && m->edges.v[k].from == fi)
			k++;
		m->fns.v[fi].edge_end = (uint32_t)k;
	}
	for (size_t i = 0; i < m->edges.n; i++)
		if (m->edges.v[i].to >= 0)
			vec_push(&m->in_edges, (uint32_t)i);
	sort_model = m;
	xqsort(m->in_edges.v, m->in_edges.n, sizeof(uint32_t), in_edge_cmp);
	sort_model = NULL;
	k = 0;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		m->fns.v[fi].in_begin = (uint32_t)k;
		while (k < m->in_edges.n && m->edges.v[m->in_edges.v[k]].to == (int32_t)fi)
			k++;
		m->fns.v[fi].in_end = (uint32_t)k;
	}
}

/* Calls through a parameter: the functions the callers pass in that position.
 * Runs after the first indexing so callers are found through in-edges. */
bool add_param_edges(struct model *m)
{
	size_t before = m->edges.n;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			int p;
			if (e->kind != EV_CALL || !e->u.call->indirect || !is_param_of(mf, &e->u.call->callee, &p))
				continue;
			bool any = false, partial = false;
			for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
				const struct edge *ed = &m->edges.v[m->in_edges.v[k]];
				if (ed->kind != EDGE_DIRECT)
					continue;
				/* add_edge may move m->edges: keep what is needed of ed */
				const uint32_t from = ed->from;
				const struct mfunc *caller = &m->fns.v[from];
				const struct expr *a = arg_at(caller->f->events[ed->ev].u.call, p);
				if (!a)
					continue;
				struct cbres r = resolve_fn_expr(m, caller, ed->ev, a);
				if (r.partial)
					partial = true;
				for (uint32_t i = 0; i < r.ntargets; i++) {
					add_edge(m, fi, (int32_t)r.targets[i], ei, EDGE_PARAM);
					struct param_via pv = {fi, ei, (int32_t)r.targets[i], from};
					vec_push(&m->param_via, pv);
					any = true;
				}
			}
			if (!any || partial)
				add_edge(m, fi, -1, ei, EDGE_POINTER);
		}
	}
	return m->edges.n != before;
}
