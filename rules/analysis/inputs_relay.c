/* inputs_relay.c: the data of an rb_protect/rb_ensure body that its caller
 * fills from its own parameters, followed up through that caller's callers.
 *
 * A gem's "run without the GVL" helper can take the callback and its data as
 * parameters, put them in a struct and run the release inside a protected
 * body (ruby-oci8's oci8_call_without_gvl: parg.func = func; parg.data =
 * data; rb_protect(protected_call, (VALUE)&parg, &state), and protected_call
 * calls rb_thread_call_without_gvl(parg->func, parg->data, ...)). When the
 * body is run more than once, or with a callback of its own, the helper is
 * not a release wrapper (link_sites.c): the release is one site whose data
 * comes from every caller of the helper. ensure_hop follows the body's data
 * into the helper; here, when what the helper stores there is its own
 * pointer parameters, each direct caller's arguments for them are followed
 * too, and so on up, a few levels.
 *
 * Conservative: the data stays "from the caller" (cannot verify) unless every
 * path up ends in data that is not a parameter. A helper whose address is
 * taken, one called through a pointer, a release wrapper, a parameter used
 * through a local, a caller beyond RELAY_LEVELS or beyond RELAY_CALLS calls:
 * each leaves the data rooted. Inputs found on the way are judged against the
 * call in their own function, as the other hops do; they can only add
 * evidence (a failing input), never remove any. */
#include "inputs_flow_int.h"

#include <string.h>

/* Callers followed above the function that runs the body. */
#define RELAY_LEVELS 6
/* Calls followed for one body call, in all (a helper with hundreds of
 * callers is left "from the caller" rather than walked). */
#define RELAY_CALLS 512

static void root_param(struct hop_roots *roots, const struct var *v)
{
	if (!v || v->kind != VK_PARAM || v->param_index < 0 || (v->flags & VF_VALUE)) {
		roots->other = true;
		return;
	}
	for (unsigned i = 0; i < roots->np; i++)
		if (roots->params[i] == v->param_index)
			return;
	if (roots->np >= ARRAY_SIZE(roots->params)) {
		roots->other = true;
		return;
	}
	roots->params[roots->np++] = v->param_index;
}

void hop_root(struct hop_roots *roots, const struct mfunc *cf, int32_t var, uint32_t limit)
{
	const struct var *v = mf_var(cf, var);
	if (!v || v->kind == VK_PARAM) {
		root_param(roots, v);
		return;
	}
	/* a local set from a parameter (lob = conn->pending): what it points to
	 * is reached through that parameter, which the callers show */
	unsigned n = 0;
	for (uint32_t i = 0; i < limit && i < cf->f->nevents; i++) {
		const struct event *e = &cf->f->events[i];
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var || !ref_is_var(&e->u.assign->lhs))
			continue;
		const struct expr *x = &e->u.assign->rhs;
		const struct var *w = x->kind == EX_REF && x->ref.var != var ? mf_var(cf, x->ref.var) : NULL;
		if (w && w->kind == VK_PARAM && !x->ref.addr) {
			root_param(roots, w);
			n++;
		}
	}
	if (!n || v->kind != VK_LOCAL)
		roots->other = true;
}

struct relay {
	const struct model *m;
	const struct mfunc *mf; /* the body: the data function of the site */
	struct io_analysis *out;
	unsigned calls;
};

/* The data is rooted at parameters `roots` of cf: follow every caller of cf.
 * Returns whether some path stays rooted (not followed). */
static bool relay_up(struct relay *r, const struct mfunc *cf, const struct hop_roots *roots, int level)
{
	if (roots->other || !roots->np || level > RELAY_LEVELS)
		return true;
	/* a release wrapper's calls are sites of their own; a function used
	 * through a pointer has callers nobody can list */
	if (cf->wrapper >= 0 || address_taken(r->m, cf) || cf->in_begin == cf->in_end)
		return true;
	bool rooted = false;
	for (uint32_t k = cf->in_begin; k < cf->in_end; k++) {
		const struct edge *ed = &r->m->edges.v[r->m->in_edges.v[k]];
		const struct mfunc *up = &r->m->fns.v[ed->from];
		if (ed->kind != EDGE_DIRECT || up == cf || up == r->mf || ++r->calls > RELAY_CALLS) {
			rooted = true;
			continue;
		}
		const struct event *ce = &up->f->events[ed->ev];
		if (ce->kind != EV_CALL) {
			rooted = true;
			continue;
		}
		const struct call *c = ce->u.call;
		const struct expr *xs[ARRAY_SIZE(roots->params)];
		unsigned nx = 0;
		for (unsigned p = 0; p < roots->np; p++) {
			if ((uint32_t)roots->params[p] >= c->nargs) {
				rooted = true;
				continue;
			}
			xs[nx++] = &c->args[roots->params[p]];
		}
		struct hop_at at = {ed->from, ed->ev};
		struct hop_roots above = {0};
		if (nx && hop_call(r->m, r->mf, r->out, up, &at, xs, nx, &above))
			rooted = relay_up(r, up, &above, level + 1) || rooted;
	}
	return rooted;
}

bool relay_exprs(const struct model *m, const struct mfunc *mf, struct io_analysis *out, const struct mfunc *cf,
		 const struct hop_at *at, const struct expr *const *xs, unsigned nx, struct hop_roots *roots)
{
	if (!hop_call(m, mf, out, cf, at, xs, nx, roots))
		return false;
	struct relay r = {m, mf, out, 0};
	return relay_up(&r, cf, roots, 1);
}

bool relay_call(const struct model *m, const struct mfunc *mf, struct io_analysis *out, const struct mfunc *cf,
		const struct hop_at *at, const struct expr *x)
{
	const struct expr *xs[1] = {x};
	struct hop_roots roots = {0};
	return relay_exprs(m, mf, out, cf, at, xs, 1, &roots);
}

/* ---- the body's data is a field of its cast parameter ---- */

/* Local var of the body mf is only ever its cast VALUE parameter (struct
 * rel *r = (struct rel *)arg) before `limit`, and its address is not taken. */
static bool local_is_param_cast(const struct mfunc *mf, int32_t var, uint32_t limit)
{
	const struct var *v = mf_var(mf, var);
	const struct var *pv = mf->f->nparams == 1 ? mf_var(mf, mf->f->params[0]) : NULL;
	if (!v || v->kind != VK_LOCAL || !pv || !(pv->flags & VF_VALUE))
		return false;
	unsigned sets = 0;
	for (uint32_t i = 0; i < limit && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind == EV_ACCESS && e->u.access->ref.var == var && (e->u.access->mode & ACC_ADDR) &&
		    ref_is_var(&e->u.access->ref))
			return false; /* &r: may be set through a pointer */
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var)
			continue;
		if (!ref_is_var(&e->u.assign->lhs))
			continue; /* a store through it (r->x = ...) */
		const struct expr *x = &e->u.assign->rhs;
		if (x->kind != EX_REF || x->ref.var != mf->f->params[0] || x->ref.deref || x->ref.addr ||
		    (x->ref.path && *x->ref.path))
			return false;
		sets++;
	}
	return sets > 0;
}

/* A plain member name: "data", not "a.b" or "v[]". */
static bool simple_field(const char *p)
{
	return p && *p && !strpbrk(p, ".[]-> ");
}

/* The fields (their names) of the body's cast parameter that carry the data
 * (r->data, r->conn): false when a carrier rooted at the parameter is
 * anything else. */
static bool body_fields(const struct mfunc *mf, const struct flow *fl, const char **paths, unsigned *np, unsigned max,
			const char **local)
{
	*np = 0;
	*local = NULL;
	for (size_t i = 0; i < fl->carriers.n; i++) {
		const struct ref *c = &fl->carriers.v[i];
		if (!root_from_param(mf, c->var, fl->limit))
			continue;
		if (!c->deref || !simple_field(c->path) || !local_is_param_cast(mf, c->var, fl->limit))
			return false;
		const struct var *lv = mf_var(mf, c->var);
		if (*local && !str_eq(*local, lv->name))
			return false;
		*local = lv->name;
		bool dup = false;
		for (unsigned k = 0; k < *np; k++)
			dup = dup || str_eq(paths[k], c->path);
		if (dup)
			continue;
		if (*np >= max)
			return false;
		paths[(*np)++] = c->path;
	}
	return *np > 0;
}

/* The body call's data argument is the address of a local struct of its
 * caller ((VALUE)&parg): that local, else -1. */
static int32_t local_struct_arg(const struct mfunc *cf, const struct expr *dx)
{
	const struct ref *dr = dx->kind == EX_REF ? &dx->ref : dx->nreads == 1 ? &dx->reads[0] : NULL;
	if (!dr || dr->var < 0 || !dr->addr || dr->deref || (dr->path && *dr->path))
		return -1;
	const struct var *dv = mf_var(cf, dr->var);
	if (!dv || dv->kind != VK_LOCAL || !(dv->flags & VF_RECORD) || (dv->flags & VF_POINTER))
		return -1;
	return dr->var;
}

/* The static body is referenced only as an argument of calls: never stored
 * (ops.body = body) or bound to a field, so the calls that pass it are all
 * that run it. */
static bool body_only_called(const struct model *m, const struct mfunc *mf)
{
	if (!(mf->f->flags & FN_STATIC))
		return false;
	for (size_t i = 0; i < mf->tu->bindings.n; i++)
		if (str_eq(mf->tu->bindings.v[i].fn_usr, mf->f->usr))
			return false;
	for (uint32_t k = 0; k < m->fns.n; k++) {
		const struct mfunc *cf = &m->fns.v[k];
		if (cf->tu != mf->tu)
			continue;
		for (uint32_t ei = 0; ei < cf->f->nevents; ei++) {
			const struct event *e = &cf->f->events[ei];
			if (e->kind == EV_ASSIGN && e->u.assign->rhs.kind == EX_FUNC &&
			    str_eq(e->u.assign->rhs.func_usr, mf->f->usr))
				return false;
		}
	}
	return true;
}

void field_hop(const struct model *m, const struct msite *s, const struct mfunc *mf, const struct flow *fl,
	       struct io_analysis *out)
{
	if (!out->from_caller || out->from_caller_ptr || out->from_caller_cast || out->from_caller_member ||
	    out->global_ptr_name || s->is_template || !mf->f->usr || mf->f->nparams != 1)
		return;
	const char *paths[8];
	unsigned np = 0;
	const char *local_name;
	/* "from the caller" because of that local, not another root */
	if (!body_fields(mf, fl, paths, &np, ARRAY_SIZE(paths), &local_name) ||
	    !str_eq(out->from_caller_name, local_name) || !body_only_called(m, mf))
		return;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++)
		if (m->edges.v[m->in_edges.v[k]].kind == EDGE_DIRECT)
			return; /* called directly too, on data nobody lists */
	size_t npassed = 0;
	const struct call_at *passed = model_func_passed(m, mf->f->usr, &npassed);
	unsigned refs = 0, found = 0;
	bool rooted = false;
	struct relay r = {m, mf, out, 0};
	for (size_t i = 0; i < npassed; i++) {
		const struct mfunc *cf = &m->fns.v[passed[i].fn];
		const struct call *c = cf->f->events[passed[i].ev].u.call;
		unsigned bdata;
		if (!runs_as_body(c, mf->f->usr, &refs, &bdata))
			continue;
		found++;
		int32_t local = cf == mf ? -1 : local_struct_arg(cf, &c->args[bdata]);
		if (local < 0 || ++r.calls > RELAY_CALLS) {
			rooted = true;
			continue;
		}
		/* the caller's local.field for each field the body hands on */
		struct expr xe[ARRAY_SIZE(paths)];
		const struct expr *xs[ARRAY_SIZE(paths)];
		for (unsigned p = 0; p < np; p++) {
			xe[p] = (struct expr){0};
			xe[p].kind = EX_REF;
			xe[p].call = -1;
			xe[p].loc = c->args[bdata].loc;
			xe[p].ref = (struct ref){.var = local, .path = paths[p]};
			xs[p] = &xe[p];
		}
		struct hop_at at = {passed[i].fn, passed[i].ev};
		struct hop_roots roots = {0};
		if (hop_call(m, mf, out, cf, &at, xs, np, &roots))
			rooted = relay_up(&r, cf, &roots, 1) || rooted;
	}
	if (found && found == refs && !rooted) {
		out->from_caller = 0;
		out->from_caller_loc = (struct loc){0};
		out->from_caller_name = NULL;
	}
}
