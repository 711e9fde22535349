/* inputs_handle.c: where the handle of a per-handle library call made in a
 * callback comes from (io_handle_origin). Part of the inputs analysis
 * (inputs_flow_int.h). */
#include "inputs_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "gvlapi.h"
#include "knowledge.h"
#include "libmodel.h"

/* ---- where a library handle comes from (io_handle_origin) ---- */

#define HANDLE_DEPTH 8     /* two levels per helper whose return is followed (rm_check_frozen -> rm_check_destroyed) */
#define HANDLE_STEPS 20000 /* events and callers looked at, all paths together */

#define HANDLE_CTX 8

struct hflow {
	const struct model *m;
	struct io_handle *out;
	unsigned steps;
	/* the calls of the gem's functions whose returns are being followed
	 * (pg_get_pgconn(self)): a parameter of the callee is that argument */
	const struct mfunc *ctx_fn[HANDLE_CTX];
	const struct call *ctx_call[HANDLE_CTX];
	uint32_t ctx_ev[HANDLE_CTX];
	unsigned nctx;
};

static void handle_worse(struct hflow *h, int origin, const struct mfunc *mf, const char *name, const struct loc *loc)
{
	struct io_handle *o = h->out;
	/* OBJECT > UNKNOWN > OWNED; the first of equals names it */
	int rank_new = origin == IOH_OBJECT ? 2 : origin == IOH_UNKNOWN ? 1 : 0;
	int rank_old = !o->name ? -1 : o->origin == IOH_OBJECT ? 2 : o->origin == IOH_UNKNOWN ? 1 : 0;
	if (rank_new <= rank_old)
		return;
	o->origin = origin;
	o->name = name && *name ? name : "?";
	o->fn = mf ? mf->f->name : NULL;
	if (loc)
		o->loc = *loc;
}

static bool handle_budget(struct hflow *h, unsigned n)
{
	h->steps += n;
	return h->steps <= HANDLE_STEPS;
}

/* Is variable var of mf (a pointer) set from a Ruby object's C struct before
 * `at`: TypedData_Get_Struct, DATA_PTR, or a function of the gem that returns
 * one (pg_get_connection_safe(self))? */
static bool var_typed_data(struct hflow *h, const struct mfunc *mf, int32_t var, uint32_t at, int depth)
{
	if (root_is_typed_data(mf, var, at))
		return true;
	if (depth > 2)
		return false;
	for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var || !ref_is_var(&e->u.assign->lhs))
			continue;
		const struct expr *x = &e->u.assign->rhs;
		if (x->kind != EX_CALL || x->call < 0 || (uint32_t)x->call >= mf->f->nevents)
			continue;
		const struct call *c = mf->f->events[x->call].u.call;
		const struct mfunc *g = c->usr ? model_callee(h->m, c->usr, mf) : NULL;
		if (!g || g == mf || !handle_budget(h, g->f->nevents))
			continue;
		bool all = false;
		for (uint32_t k = 0; k < g->f->nevents; k++) {
			const struct event *r = &g->f->events[k];
			if (r->kind != EV_RETURN || !r->u.ret)
				continue;
			const struct expr *rx = r->u.ret;
			if (io_typed_data_expr(g, rx) || (rx->kind == EX_REF && ref_is_var(&rx->ref) &&
							  var_typed_data(h, g, rx->ref.var, k, depth + 1)))
				all = true;
			else
				return false;
		}
		if (all)
			return true;
	}
	return false;
}

/* Is pointer parameter v of mf an object's C struct in every caller: each
 * direct caller passes a variable taken out of a typed/data object there (or
 * its own such parameter, two levels up)? hiredis_read(self) takes
 * `connection` out of self and hands it to hiredis_read_internal, whose
 * connection->context is then the object's state. */
static bool param_typed_data(struct hflow *h, const struct mfunc *mf, const struct var *v, int depth)
{
	if (depth > 2 || v->kind != VK_PARAM || v->param_index < 0 || !(v->flags & VF_POINTER) ||
	    !(mf->f->flags & FN_STATIC) || mf->address_taken)
		return false;
	unsigned callers = 0;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *ed = &h->m->edges.v[h->m->in_edges.v[k]];
		if (ed->kind != EDGE_DIRECT)
			return false;
		if (!handle_budget(h, 1))
			return false;
		const struct mfunc *cf = &h->m->fns.v[ed->from];
		const struct call *c = cf->f->events[ed->ev].u.call;
		if ((uint32_t)v->param_index >= c->nargs || cf == mf)
			return false;
		const struct expr *a = &c->args[v->param_index];
		if (a->kind != EX_REF || !ref_is_var(&a->ref) || a->ref.addr)
			return false;
		const struct var *av = mf_var(cf, a->ref.var);
		if (!av || !(var_typed_data(h, cf, a->ref.var, ed->ev, 0) || param_typed_data(h, cf, av, depth + 1)))
			return false;
		callers++;
	}
	return callers > 0;
}

static bool is_ruby_call_name(const char *n)
{
	return n &&
	       (str_starts(n, "rb_") || str_starts(n, "RB_") || str_starts(n, "ruby_") || str_starts(n, "rbimpl_"));
}

bool io_makes_handle(const struct mfunc *mf, int32_t ev)
{
	if (ev < 0 || (uint32_t)ev >= mf->f->nevents || mf->f->events[ev].kind != EV_CALL)
		return false;
	const struct call *c = mf->f->events[ev].u.call;
	if (c->indirect)
		return false;
	if (str_eq(c->name, "malloc") || str_eq(c->name, "calloc"))
		return true;
	const struct lib_model *lm = model_find(c->name);
	return lm && lm->thread_safe == LM_TS_ALWAYS;
}

/* Does the handle in local or parameter `var` of mf (or the local struct
 * holding it, whole = true) leave the frame: stored anywhere but a plain local
 * or a member of a local struct, handed to Ruby (other than the release call
 * itself, which is the point), to a call that also takes a function
 * (pthread_create ...), or to a gem function that lets it escape in turn? */
static bool handle_escapes(struct hflow *h, const struct mfunc *mf, int32_t var, bool whole, int depth)
{
	const struct func *f = mf->f;
	if (depth > 8 || !handle_budget(h, f->nevents))
		return true;
	struct ref self = {.var = var, .path = ""};
	for (uint32_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind == EV_ASSIGN) {
			const struct assign *as = e->u.assign;
			if (as->lhs.var == var)
				continue; /* a store into the handle or struct itself */
			/* the value itself (not a call's result computed from it) */
			bool mentions = false;
			if (as->rhs.kind != EX_CALL) {
				refvec rd = {0};
				top_reads(mf, &as->rhs, -1, &rd);
				for (size_t k = 0; k < rd.n && !mentions; k++)
					mentions = rd.v[k].var == var && (whole || !rd.v[k].path || !*rd.v[k].path);
				vec_free(&rd);
			}
			if (!mentions)
				continue;
			const struct var *lv = mf_var(mf, as->lhs.var);
			if (!lv || lv->kind != VK_LOCAL || as->lhs.deref)
				return true;
			/* into another local, or a member of a local struct: follow it */
			if (handle_escapes(h, mf, as->lhs.var, as->lhs.path && *as->lhs.path, depth + 1))
				return true;
			continue;
		}
		if (e->kind != EV_CALL)
			continue;
		const struct call *c = e->u.call;
		int32_t at = -1;
		bool passed = false, byaddr = false, bare = false;
		for (uint32_t k = 0; k < c->nargs; k++) {
			const struct expr *a = &c->args[k];
			bool m = expr_mentions(a, &self);
			for (uint32_t r = 0; !m && whole && r < a->nreads; r++)
				m = a->reads[r].var == var;
			if (!m)
				continue;
			passed = true;
			at = (int32_t)k;
			if (a->kind == EX_REF && a->ref.addr)
				byaddr = true;
			/* the struct itself (or its address), not a member's value */
			if (!(a->kind == EX_REF && a->ref.var == var && a->ref.path && *a->ref.path && !a->ref.addr))
				bare = true;
		}
		if (!passed)
			continue;
		if (gvl_api_find(c->name))
			continue; /* the release: the callback gets it, under this frame */
		if (byaddr && !whole)
			return true; /* &handle: whoever gets it can replace or keep it */
		if (c->indirect || is_ruby_call_name(c->name))
			return true;
		for (uint32_t k = 0; k < c->nargs; k++)
			if (c->args[k].kind == EX_FUNC)
				return true;
		const struct mfunc *g = c->usr ? model_callee(h->m, c->usr, mf) : NULL;
		if (!g) {
			if (whole && bare)
				return true; /* a library function given the struct: not followed */
			continue;            /* a library call given the handle: it uses it under this frame */
		}
		if (g == mf || at < 0 || (uint32_t)at >= g->f->nparams)
			return true;
		if (handle_escapes(h, g, g->f->params[at], whole && bare, depth + 1))
			return true;
	}
	return false;
}

static void handle_value(struct hflow *h, const struct mfunc *mf, const struct expr *x, uint32_t at, int depth);

/* A member r of variable v: a field of a Ruby object's C struct, or of a
 * local struct (handle_var). */
static void handle_member(struct hflow *h, const struct mfunc *mf, const struct ref *r, const struct var *v,
			  const char *name, struct loc loc, uint32_t at, int depth)
{
	/* a field of a Ruby object's C struct (this->pgconn, ptr->ctx) */
	if (r->deref && (var_typed_data(h, mf, r->var, at, 0) || param_typed_data(h, mf, v, 0))) {
		bool first = h->out->origin != IOH_OBJECT || !h->out->name;
		handle_worse(h, IOH_OBJECT, mf, name, &loc);
		if (first && h->out->origin == IOH_OBJECT) {
			h->out->rec = v->record;
			h->out->field = first_member(mf, r->path);
		}
		return;
	}
	/* a member of a local struct: the stores to that member */
	if (!r->deref && v->kind == VK_LOCAL) {
		bool any = false;
		for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
			const struct event *e = &mf->f->events[i];
			if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != r->var ||
			    !str_eq(e->u.assign->lhs.path, r->path) || e->u.assign->whole_init)
				continue;
			any = true;
			handle_value(h, mf, &e->u.assign->rhs, i, depth + 1);
		}
		if (any)
			return;
	}
	handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
}

/* Parameter v: what every caller passes (handle_var). */
static void handle_param(struct hflow *h, const struct mfunc *mf, const struct var *v, const char *name, struct loc loc,
			 int depth)
{
	if ((v->flags & VF_VALUE) || v->param_index < 0) {
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
		return;
	}
	/* every caller's argument: direct calls, and calls through a
	 * pointer the linker resolved to this function */
	unsigned callers = 0;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *ed = &h->m->edges.v[h->m->in_edges.v[k]];
		if (ed->kind != EDGE_DIRECT && ed->kind != EDGE_POINTER)
			continue;
		if (!handle_budget(h, 1))
			break;
		const struct mfunc *cf = &h->m->fns.v[ed->from];
		const struct call *c = cf->f->events[ed->ev].u.call;
		if ((uint32_t)v->param_index >= c->nargs) {
			handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
			continue;
		}
		callers++;
		handle_value(h, cf, &c->args[v->param_index], ed->ev, depth + 1);
	}
	for (size_t k = 0; k < h->m->param_via.n; k++) {
		const struct param_via *pv = &h->m->param_via.v[k];
		if (pv->to != (int32_t)mf->id || !handle_budget(h, 1))
			continue;
		const struct mfunc *cf = &h->m->fns.v[pv->from];
		const struct call *c = cf->f->events[pv->ev].u.call;
		if ((uint32_t)v->param_index >= c->nargs)
			continue;
		callers++;
		handle_value(h, cf, &c->args[v->param_index], pv->ev, depth + 1);
	}
	/* an entry point, or callers the call graph does not show */
	if (!callers || (mf->address_taken && !taken_only_for_param_calls(h->m, mf)) || !(mf->f->flags & FN_STATIC))
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
}

/* Local variable r: its stores, or the call that fills it (handle_var). */
static void handle_local(struct hflow *h, const struct mfunc *mf, const struct ref *r, const char *name, struct loc loc,
			 uint32_t at, int depth)
{
	/* a local: its stores, or the call that fills it through its address */
	bool any = false, made = false;
	for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == r->var && ref_is_var(&e->u.assign->lhs)) {
			const struct expr *rx = &e->u.assign->rhs;
			if (rx->kind == EX_NULL || (e->u.assign->is_init && e->u.assign->whole_init))
				continue;
			any = true;
			if (rx->kind == EX_CALL && rx->call >= 0 && io_makes_handle(mf, rx->call)) {
				made = true;
				continue;
			}
			handle_value(h, mf, rx, i, depth + 1);
		} else if (e->kind == EV_CALL) {
			for (uint32_t k = 0; k < e->u.call->nargs; k++) {
				const struct expr *a = &e->u.call->args[k];
				if (a->kind == EX_REF && a->ref.var == r->var && a->ref.addr && ref_is_var(&a->ref) &&
				    io_makes_handle(mf, (int32_t)i)) {
					any = true;
					made = true;
				}
			}
		}
	}
	if (!any) {
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
		return;
	}
	if (made) {
		if (handle_escapes(h, mf, r->var, false, 0)) {
			int before = h->out->name ? h->out->origin : -1;
			handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
			if (before != h->out->origin)
				h->out->escapes = true;
		} else
			handle_worse(h, IOH_OWNED, mf, name, &loc);
	}
}

/* Does the Ruby object `r` of mf (at event `at`) come from outside the
 * method: a parameter (the receiver or an argument, an element of argv), in
 * every direct caller too, or a local set only from one? An object the gem
 * makes there (rb_obj_alloc, TypedData_Wrap_Struct, a helper) is not: no
 * other fiber can reach it yet. ctx: how many calls of h->ctx_* are above
 * mf (a parameter of a function followed through its return is the call's
 * argument). Names the object (the outermost parameter reached). */
static bool object_from_outside(struct hflow *h, const struct mfunc *mf, const struct ref *r, uint32_t at, unsigned ctx,
				int depth)
{
	const struct var *v = mf_var(mf, r->var);
	if (!v || r->addr || depth > 4 || !handle_budget(h, 1))
		return false;
	bool member = r->path && *r->path;
	if (v->kind == VK_PARAM && v->param_index >= 0) {
		if (ctx > 0) {
			const struct call *c = h->ctx_call[ctx - 1];
			if (member || (uint32_t)v->param_index >= c->nargs)
				return false;
			const struct expr *a = &c->args[v->param_index];
			if (a->kind != EX_REF || a->ref.var < 0)
				return false;
			return object_from_outside(h, h->ctx_fn[ctx - 1], &a->ref, h->ctx_ev[ctx - 1], ctx - 1,
						   depth + 1);
		}
		/* a helper: what every direct caller passes (an entry point, or a
		 * function registered as a method, gets its objects from Ruby) */
		for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
			const struct edge *ed = &h->m->edges.v[h->m->in_edges.v[k]];
			if (ed->kind != EDGE_DIRECT)
				continue;
			const struct mfunc *cf = &h->m->fns.v[ed->from];
			const struct call *c = cf->f->events[ed->ev].u.call;
			if (member || cf == mf || (uint32_t)v->param_index >= c->nargs)
				return false;
			const struct expr *a = &c->args[v->param_index];
			if (a->kind != EX_REF || a->ref.var < 0 ||
			    !object_from_outside(h, cf, &a->ref, ed->ev, 0, depth + 1))
				return false;
		}
		h->out->obj = ref_name(mf, r);
		h->out->obj_fn = mf->f->name;
		return true;
	}
	if (v->kind != VK_LOCAL || member)
		return false;
	bool any = false;
	for (uint32_t i = 0; i < at && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != r->var || !ref_is_var(&e->u.assign->lhs))
			continue;
		const struct expr *rx = &e->u.assign->rhs;
		if (rx->kind != EX_REF || rx->ref.var < 0 || !object_from_outside(h, mf, &rx->ref, i, ctx, depth + 1))
			return false;
		any = true;
	}
	return any;
}

/* The handle is the whole typed data of a Ruby object from outside the
 * method (TypedData_Get_Struct(self, ...), DATA_PTR(obj),
 * RTYPEDDATA_DATA(obj), rb_check_typeddata, rb_data_object_get): the
 * object's own state (IOH_OBJECT, whole). rec names the data type (the
 * rb_data_type_t variable, or "DATA_PTR"), so that the object-state gate
 * can find the other functions that take the same data. */
static bool handle_whole_data(struct hflow *h, const struct mfunc *mf, const struct expr *x, uint32_t at,
			      const char *text)
{
	if (!io_typed_data_expr(mf, x))
		return false;
	struct ref obj = {.var = -1, .path = ""};
	const char *ident = NULL;
	if (x->kind == EX_CALL) {
		const struct call *c = mf->f->events[x->call].u.call;
		if (!c->nargs || c->args[0].kind != EX_REF)
			return false;
		obj = c->args[0].ref;
		ident = io_typed_data_type(mf, c);
	} else {
		obj.var = x->ref.var;
		ident = "DATA_PTR";
	}
	const char *oname = h->out->obj, *ofn = h->out->obj_fn;
	if (obj.var < 0 || !object_from_outside(h, mf, &obj, at, h->nctx, 0)) {
		h->out->obj = oname, h->out->obj_fn = ofn;
		return false;
	}
	const char *on = h->out->obj, *of = h->out->obj_fn;
	h->out->obj = oname, h->out->obj_fn = ofn;
	bool first = h->out->origin != IOH_OBJECT || !h->out->name;
	handle_worse(h, IOH_OBJECT, mf, text ? text : "?", &x->loc);
	if (first && h->out->origin == IOH_OBJECT) {
		h->out->rec = ident;
		h->out->field = NULL;
		h->out->whole = true;
		h->out->obj = on;
		h->out->obj_fn = of;
	}
	return true;
}

/* Every value variable var of mf holds at `at`. */
static void handle_var(struct hflow *h, const struct mfunc *mf, const struct ref *r, uint32_t at, int depth)
{
	const struct var *v = mf_var(mf, r->var);
	const char *name = ref_name(mf, r);
	struct loc loc = mf->f->loc;
	if (!v) {
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc);
		return;
	}
	loc = v->loc;
	if (r->path && *r->path)
		handle_member(h, mf, r, v, name, loc, at, depth);
	else if (v->kind == VK_PARAM)
		handle_param(h, mf, v, name, loc, depth);
	else if (v->kind != VK_LOCAL)
		handle_worse(h, IOH_UNKNOWN, mf, name, &loc); /* a global or static handle: shared */
	else
		handle_local(h, mf, r, name, loc, at, depth);
}

static void handle_value(struct hflow *h, const struct mfunc *mf, const struct expr *x, uint32_t at, int depth)
{
	if (!x || x->kind == EX_NULL)
		return;
	const char *text = x->text && *x->text ? x->text : NULL;
	if (depth > HANDLE_DEPTH || !handle_budget(h, 1)) {
		handle_worse(h, IOH_UNKNOWN, mf, text ? text : "?", &mf->f->loc);
		return;
	}
	if (handle_whole_data(h, mf, x, at, text))
		return;
	if (x->kind == EX_REF && x->ref.var >= 0 && !x->ref.addr) {
		handle_var(h, mf, &x->ref, at, depth);
		return;
	}
	if (x->kind == EX_CALL && x->call >= 0 && (uint32_t)x->call < mf->f->nevents &&
	    mf->f->events[x->call].kind == EV_CALL) {
		const struct call *c = mf->f->events[x->call].u.call;
		const struct mfunc *g = c->usr ? model_callee(h->m, c->usr, mf) : NULL;
		if (g && g != mf) {
			/* what the gem's function returns (pg_get_pgconn(self)) */
			bool any = false;
			bool pushed = h->nctx < HANDLE_CTX;
			if (pushed) {
				h->ctx_fn[h->nctx] = mf, h->ctx_call[h->nctx] = c,
				h->ctx_ev[h->nctx] = (uint32_t)x->call;
				h->nctx++;
			}
			for (uint32_t k = 0; k < g->f->nevents; k++) {
				const struct event *r = &g->f->events[k];
				if (r->kind != EV_RETURN || !r->u.ret)
					continue;
				any = true;
				handle_value(h, g, r->u.ret, k, depth + 1);
			}
			if (pushed)
				h->nctx--;
			if (any)
				return;
		}
		handle_worse(h, IOH_UNKNOWN, mf, text ? text : c->name, &mf->f->events[x->call].loc);
		return;
	}
	handle_worse(h, IOH_UNKNOWN, mf, text ? text : "?", &mf->f->loc);
}

/* *hr is a local set once, before event ev, from a member of something
 * (PGconn *conn = p->params.conn;): *hr becomes that member. */
static bool member_of_local(const struct mfunc *cb, struct ref *hr, uint32_t ev)
{
	const struct var *lv = mf_var(cb, hr->var);
	int n = 0;
	struct ref from = {0};
	for (uint32_t i = 0; lv && lv->kind == VK_LOCAL && i < ev; i++) {
		const struct event *e = &cb->f->events[i];
		if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == hr->var && ref_is_var(&e->u.assign->lhs)) {
			n++;
			if (e->u.assign->rhs.kind == EX_REF)
				from = e->u.assign->rhs.ref;
			else
				n = 99;
		}
	}
	if (n != 1 || !from.path || !*from.path)
		return false;
	*hr = from;
	return true;
}

void io_handle_origin(const struct model *m, const struct msite *s, const struct mfunc *cb, const struct event *call,
		      int arg, struct io_handle *out)
{
	memset(out, 0, sizeof(*out));
	struct hflow h = {.m = m, .out = out, .steps = 0};
	const struct call *c = call->u.call;
	const struct expr *a = arg >= 0 && (uint32_t)arg < c->nargs ? &c->args[arg] : NULL;
	const char *text = a && a->text && *a->text                    ? a->text
			   : a && a->kind == EX_REF && a->ref.var >= 0 ? ref_name(cb, &a->ref)
								       : NULL;
	char buf[64];
	if (!text) {
		snprintf(buf, sizeof(buf), "argument %d of %s", arg + 1, c->name ? c->name : "the call");
		text = arena_printf(&cb->tu->arena, "%s", buf);
	}
	out->origin = IOH_UNKNOWN;
	out->name = text;
	out->fn = cb->f->name;
	out->loc = call->loc;
	if (!a || a->kind != EX_REF || a->ref.var < 0 || a->ref.addr)
		return;
	/* the callback's own frame: a member of the struct its data points to
	 * (args->ctx), or a local set once from such a member */
	bool is_cb = false;
	for (uint32_t i = 0; i < s->cb.ntargets; i++)
		is_cb |= s->cb.targets[i] == cb->id;
	uint32_t rel_fn, rel;
	if (!is_cb || !io_release_event(m, s, &rel_fn, &rel) || !s->data1)
		return;
	const struct mfunc *df = &m->fns.v[rel_fn];
	struct ref dr;
	if (s->data1->kind == EX_REF) {
		dr = s->data1->ref;
	} else if (s->data1->kind == EX_OTHER && s->data1->nreads == 1 && s->data1->ncalls == 0) {
		/* `&params` written inside a macro expansion is summarised as a read
		 * of params: a struct-typed local handed as the data pointer can
		 * only be its address */
		dr = s->data1->reads[0];
		const struct var *rv = mf_var(df, dr.var);
		if (!rv || rv->kind != VK_LOCAL || !(rv->flags & VF_RECORD) || (rv->flags & VF_POINTER))
			return;
		dr.addr = 1;
	} else {
		return;
	}
	if (dr.var < 0 || (dr.path && *dr.path))
		return;
	struct ref hr = a->ref;
	uint32_t ev = (uint32_t)(call - cb->f->events);
	if (ref_is_var(&hr) && !member_of_local(cb, &hr, ev))
		return;
	if (!hr.deref || !hr.path || !*hr.path || strstr(hr.path, "[]"))
		return;
	const struct var *root = mf_var(cb, hr.var);
	if (!root || !(root->kind == VK_PARAM ? root->param_index == 0 : root_from_param(cb, hr.var, ev)))
		return;
	/* the same member of the data struct, in the function that fills it */
	const struct var *dv = mf_var(df, dr.var);
	if (!dv)
		return;
	if (!dr.addr && !(dv->flags & VF_POINTER))
		return;
	bool by_addr = dr.addr;
	dr.addr = 0;
	dr.path = hr.path;
	dr.deref = !by_addr;
	out->name = NULL; /* from here the flow names where it ended */
	if (dr.deref) {
		/* a pointer to the struct: stores through it in this function */
		bool any = false;
		for (uint32_t i = 0; i < rel && i < df->f->nevents; i++) {
			const struct event *e = &df->f->events[i];
			if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == dr.var &&
			    str_eq(e->u.assign->lhs.path, dr.path)) {
				any = true;
				handle_value(&h, df, &e->u.assign->rhs, i, 1);
			}
		}
		if (!any)
			handle_worse(&h, IOH_UNKNOWN, df, ref_name(df, &dr), &dv->loc);
	} else {
		handle_var(&h, df, &dr, rel, 1);
	}
	if (!out->name) {
		out->origin = IOH_UNKNOWN;
		out->name = text;
	}
}
