/* inputs_callers.c: parameters and the callers that fill them: functions
 * whose address is taken, parameters only called, the caller's temporaries
 * and the frame that holds a method argument. Part of the inputs analysis
 * (inputs_flow_int.h). */
#include "inputs_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "gvlapi.h"
#include "knowledge.h"
#include "libmodel.h"

/* Is the function's address taken anywhere (rb_define_method(c, "m", fn, 1),
 * an ops table, a function pointer)? Then it has callers the call graph does
 * not show: Ruby's calls into a method are not edges. */
/* The first member of a path ("stream.avail_in" -> "stream"), in mf's TU
 * arena; NULL for none. */
const char *first_member(const struct mfunc *mf, const char *path)
{
	if (!path || !*path)
		return NULL;
	size_t k = strcspn(path, ".[");
	return k ? arena_printf(&mf->tu->arena, "%.*s", (int)k, path) : NULL;
}

bool address_taken(const struct model *m, const struct mfunc *mf)
{
	(void)m;
	return mf->address_taken;
}

/* x is exactly a call through parameter variable pv (r = fn(a, b)): its
 * read of pv is the call's callee, whose arguments the call event shows. */
static bool calls_param(const struct mfunc *g, const struct expr *x, int32_t pv)
{
	if (x->kind != EX_CALL || x->call < 0 || (uint32_t)x->call >= g->f->nevents)
		return false;
	const struct event *e = &g->f->events[x->call];
	if (e->kind != EV_CALL || !e->u.call->indirect)
		return false;
	const struct expr *ce = &e->u.call->callee;
	if (ce->kind != EX_REF || ce->ref.var != pv || (ce->ref.path && *ce->ref.path))
		return false;
	for (uint32_t k = 0; k < e->u.call->nargs; k++)
		if (expr_reads_var(&e->u.call->args[k], pv))
			return false;
	return true;
}

/* Is parameter index p of g only ever called (`func(conn, name)`): never
 * stored, passed on, returned or its address taken? */
static bool param_only_called(const struct mfunc *g, uint32_t p)
{
	if (p >= g->f->nparams)
		return false;
	int32_t pv = g->f->params[p];
	for (uint32_t i = 0; i < g->f->nevents; i++) {
		const struct event *e = &g->f->events[i];
		if (e->kind == EV_CALL) {
			for (uint32_t k = 0; k < e->u.call->nargs; k++)
				if (expr_reads_var(&e->u.call->args[k], pv))
					return false;
		} else if (e->kind == EV_ASSIGN) {
			if (e->u.assign->lhs.var == pv ||
			    (expr_reads_var(&e->u.assign->rhs, pv) && !calls_param(g, &e->u.assign->rhs, pv)))
				return false;
		} else if (e->kind == EV_RETURN) {
			if (e->u.ret && expr_reads_var(e->u.ret, pv) && !calls_param(g, e->u.ret, pv))
				return false;
		} else if (e->kind == EV_ACCESS) {
			if (e->u.access->ref.var == pv && (e->u.access->mode & (ACC_ADDR | ACC_WRITE)))
				return false;
		}
	}
	return true;
}

#define PARAM_CALLERS_MAX 64

/* A function whose address is taken only to be handed to the gem's own
 * functions, each of which does nothing with that parameter but call it
 * (ruby-pg: pgconn_sync_describe_close_prepared_portal(self, name,
 * gvl_PQdescribePortal) runs func(this->pgconn, stmt)): its callers are those
 * parameter calls, made on a path through a caller that passes it (the
 * linker's param_via entries). Anything else (stored, bound to a field, given
 * to a library function or an indirect call, more than PARAM_CALLERS_MAX
 * uses): false, the callers are not all known. */
bool taken_only_for_param_calls(const struct model *m, const struct mfunc *mf)
{
	if (!mf->f->usr || !*mf->f->usr)
		return false;
	for (size_t t = 0; t < m->ntus; t++)
		for (size_t i = 0; i < m->tus[t]->bindings.n; i++)
			if (str_eq(m->tus[t]->bindings.v[i].fn_usr, mf->f->usr))
				return false;
	unsigned uses = 0;
	/* the events naming it (fn_refs), in the order of a walk of the gem */
	size_t nnamed = 0;
	const struct call_at *named = model_fn_refs(m, mf->f->usr, &nnamed);
	for (size_t i = 0; i < nnamed; i++) {
		uint32_t fi = named[i].fn;
		const struct event *e = &m->fns.v[fi].f->events[named[i].ev];
		if (e->kind == EV_ASSIGN) {
			if (e->u.assign->rhs.kind == EX_FUNC && str_eq(e->u.assign->rhs.func_usr, mf->f->usr))
				return false;
			continue;
		}
		if (e->kind != EV_CALL)
			continue;
		const struct call *c = e->u.call;
		for (uint32_t k = 0; k < c->nargs; k++) {
			if (c->args[k].kind != EX_FUNC || !str_eq(c->args[k].func_usr, mf->f->usr))
				continue;
			if (++uses > PARAM_CALLERS_MAX || c->indirect || !c->usr)
				return false;
			const struct mfunc *g = model_callee(m, c->usr, &m->fns.v[fi]);
			if (!g || g == mf || !(g->f->flags & FN_STATIC) || !param_only_called(g, k)) {
				return false;
			}
			bool via = false;
			for (size_t v = 0; v < m->param_via.n && !via; v++)
				via = m->param_via.v[v].from == g->id && m->param_via.v[v].to == (int32_t)mf->id &&
				      m->param_via.v[v].caller == fi;
			if (!via) {
				return false;
			}
		}
	}
	return uses > 0;
}

/* A method argument is held by the method's frame for the whole call (as
 * self is, design.md), when Ruby is the only caller: the function has no
 * direct C callers. Unless StringValue* converted it without a type check
 * first: to_str's result then replaces the argument, and only the C local
 * holds it (mysql2 PR #1504). */
/* A VALUE parameter that mf neither assigns nor lends before event `before`:
 * it still holds what the caller passed. */
static bool param_untouched(const struct mfunc *mf, int32_t var, uint32_t before)
{
	for (uint32_t i = 0; i < before && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind == EV_ACCESS && e->u.access->ref.var == var && (e->u.access->mode & (ACC_WRITE | ACC_ADDR)))
			return false;
		if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == var)
			return false;
		if (e->kind == EV_CALL)
			for (uint32_t j = 0; j < e->u.call->nargs; j++) {
				const struct expr *a = &e->u.call->args[j];
				if (a->kind == EX_REF && a->ref.var == var && a->ref.addr)
					return false;
				for (uint32_t r = 0; r < a->nreads; r++)
					if (a->reads[r].var == var && a->reads[r].addr)
						return false;
			}
	}
	return true;
}

/* A local VALUE of the method cf passed at event `before` that only
 * rb_scan_args filled, from a format of positional arguments alone ("1",
 * "12"): it holds an element of the method's argv, which the method's frame
 * holds as it holds any argument (extlz4's fenc_write(argc, argv, enc):
 * rb_scan_args(argc, argv, "1", &src), then fenc_update(p, src, NULL)).
 * A rest array, keywords or a block ("*", ":", "&") are new objects. */
static bool scanned_argument(const struct mfunc *cf, int32_t var, uint32_t before)
{
	const struct var *v = mf_var(cf, var);
	if (!v || v->kind != VK_LOCAL || !(v->flags & VF_VALUE))
		return false;
	unsigned scans = 0;
	for (uint32_t i = 0; i < before && i < cf->f->nevents; i++) {
		const struct event *e = &cf->f->events[i];
		if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == var)
			return false;
		if (e->kind == EV_ACCESS && e->u.access->ref.var == var && (e->u.access->mode & ACC_WRITE))
			return false;
		if (e->kind != EV_CALL)
			continue;
		const struct call *c = e->u.call;
		for (uint32_t j = 0; j < c->nargs; j++) {
			const struct expr *a = &c->args[j];
			if (a->kind != EX_REF || a->ref.var != var || !a->ref.addr)
				continue;
			const char *fmt = c->nargs > 3 ? c->args[2].text : NULL;
			size_t n = fmt ? strlen(fmt) : 0;
			if (!str_eq(c->name, "rb_scan_args") || j < 3 || n < 3 || fmt[0] != '"' || fmt[n - 1] != '"' ||
			    strspn(fmt + 1, "0123456789") != n - 2)
				return false;
			const struct var *argv = c->args[1].kind == EX_REF ? mf_var(cf, c->args[1].ref.var) : NULL;
			if (!argv || argv->kind != VK_PARAM || !param_untouched(cf, c->args[1].ref.var, before))
				return false;
			scans++;
		}
	}
	return scans == 1;
}

#define CALLER_DEPTH 5

/* path: the functions on the way up from the releasing one (a caller already
 * on it closes a cycle that every entry into it is checked at, so only the
 * argument it passes matters) */
static int caller_temp(const struct model *m, const struct mfunc *mf, int32_t param_index, uint32_t *path,
		       unsigned depth)
{
	if (param_index < 0)
		return 0;
	path[depth] = mf->id;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		uint32_t ei = m->in_edges.v[k];
		const struct edge *ed = &m->edges.v[ei];
		if (ed->kind != EDGE_DIRECT)
			continue;
		const struct mfunc *cf = &m->fns.v[ed->from];
		bool on_path = false;
		for (unsigned d = 0; d <= depth; d++)
			on_path = on_path || path[d] == cf->id;
		if (!on_path && depth + 1 >= CALLER_DEPTH)
			return (int)ei + 1; /* too deep: not proved */
		const struct event *ce = &cf->f->events[ed->ev];
		if (ce->kind != EV_CALL || (uint32_t)param_index >= ce->u.call->nargs)
			return (int)ei + 1;
		const struct expr *a = &ce->u.call->args[param_index];
		const struct var *av =
			a->kind == EX_REF && !a->ref.addr && !a->ref.deref && (!a->ref.path || !*a->ref.path)
				? mf_var(cf, a->ref.var)
				: NULL;
		if (av && av->kind == VK_LOCAL && scanned_argument(cf, a->ref.var, ed->ev))
			continue;
		if (!av || av->kind != VK_PARAM || !(av->flags & (VF_VALUE | VF_POINTER)) ||
		    !param_untouched(cf, a->ref.var, ed->ev))
			return (int)ei + 1;
		if (!on_path && caller_temp(m, cf, av->param_index, path, depth + 1))
			return (int)ei + 1;
	}
	return 0;
}

int io_param_caller_temp(const struct model *m, const struct mfunc *mf, int32_t param_index)
{
	uint32_t path[CALLER_DEPTH];
	return caller_temp(m, mf, param_index, path, 0) - 1;
}

const struct event *io_helper_converts(const struct model *m, const struct mfunc *mf, uint32_t ev,
				       const struct mfunc **helper)
{
	const struct event *e = ev < mf->f->nevents ? &mf->f->events[ev] : NULL;
	if (!e || e->kind != EV_CALL || e->u.call->indirect)
		return NULL;
	const struct mfunc *h = model_callee(m, e->u.call->usr, mf);
	if (!h || h == mf)
		return NULL;
	for (uint32_t i = 0; i < h->f->nevents; i++) {
		const struct event *he = &h->f->events[i];
		if (he->kind != EV_CALL || !he->u.call->nargs ||
		    (!str_eq(he->u.call->name, "rb_string_value_ptr") &&
		     !str_eq(he->u.call->name, "rb_string_value_cstr") && !str_eq(he->u.call->name, "rb_string_value")))
			continue;
		struct ref a;
		const struct var *pv = arg_ref(&he->u.call->args[0], &a) ? mf_var(h, a.var) : NULL;
		if (pv && pv->kind == VK_PARAM && (pv->flags & VF_VALUE) && (!a.path || !*a.path)) {
			if (helper)
				*helper = h;
			return he;
		}
	}
	return NULL;
}

/* mf replaces parameter var with a call's result before event `before`
 * (`s = rb_obj_as_string(s)`, posix_mq's setup_send_buffer): the value there
 * may be a new object that only this local holds. */
bool param_replaced(const struct mfunc *mf, int32_t var, uint32_t before)
{
	for (uint32_t i = 0; i < before && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind == EV_ASSIGN && !e->u.assign->compound && e->u.assign->lhs.var == var &&
		    (!e->u.assign->lhs.path || !*e->u.assign->lhs.path) && e->u.assign->rhs.kind == EX_CALL)
			return true;
	}
	return false;
}

/* The parameter a local copied from an argument stands for (query = argv[0]:
 * argv), by the name classify recorded; -1. */
static int32_t param_named(const struct mfunc *mf, const char *name)
{
	for (uint32_t i = 0; name && i < mf->f->nparams; i++) {
		const struct var *pv = mf_var(mf, mf->f->params[i]);
		if (pv && str_eq(pv->name, name))
			return pv->param_index;
	}
	return -1;
}

bool frame_holds(const struct model *m, const struct mfunc *mf, const struct ref *o, const struct cls *c, uint32_t src,
		 uint32_t rel)
{
	const struct var *v = mf_var(mf, o->var);
	if (!v || !c->param)
		return false;
	/* C callers may pass temporaries; one that passes its own untouched
	 * argument (a method calling another method's function, argv handed
	 * on) passes what a frame up the chain holds */
	int32_t pidx = v->kind == VK_PARAM ? v->param_index : param_named(mf, c->arg);
	if (pidx < 0) {
		for (uint32_t k = mf->in_begin; k < mf->in_end; k++)
			if (m->edges.v[m->in_edges.v[k]].kind == EDGE_DIRECT)
				return false;
	} else if (io_param_caller_temp(m, mf, pidx) >= 0)
		return false;
	bool converts = false, checked = false;
	const struct event *se = &mf->f->events[src];
	if (se->kind == EV_CALL &&
	    (str_eq(se->u.call->name, "rb_string_value_ptr") || str_eq(se->u.call->name, "rb_string_value_cstr") ||
	     str_eq(se->u.call->name, "rsock_sockaddr_string_value_ptr")))
		converts = true;
	/* a helper of the gem that converts its own parameter (ruby-pg
	 * pg_cstr_enc: StringValueCStr(str)): the #to_str result is that
	 * helper's local */
	if (io_helper_converts(m, mf, src, NULL))
		converts = true;
	for (uint32_t i = 0; i < rel && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_CALL || !e->u.call->nargs)
			continue;
		struct ref a;
		if (!arg_ref(&e->u.call->args[0], &a) || !ref_same(&a, o))
			continue;
		/* FilePathValue is rb_get_path (#to_path), SockAddrStringValue is
		 * rsock_sockaddr_string_value (an Addrinfo's sockaddr): conversions too */
		if (str_eq(e->u.call->name, "rb_string_value") || str_eq(e->u.call->name, "rb_str_to_str") ||
		    str_eq(e->u.call->name, "rb_get_path") || str_eq(e->u.call->name, "rsock_sockaddr_string_value") ||
		    str_eq(e->u.call->name, "rsock_sockaddr_string_value_with_addrinfo"))
			converts = true;
		/* a String from here on: later conversions keep it (but StringValue
		 * itself is a conversion) */
		if (i < src && (str_eq(e->u.call->name, "Check_Type") || str_eq(e->u.call->name, "rb_check_type") ||
				str_eq(e->u.call->name, "rb_check_typeddata")))
			checked = true;
	}
	return !converts || checked;
}

/* Ruby's calls that run a function on a data argument: the function and data
 * argument indexes. Source: Ruby 3.1 ruby/internal/iterator.h (rb_ensure,
 * rb_rescue, rb_rescue2), intern/proc.h (rb_protect), intern/thread.h
 * (rb_mutex_synchronize). */
static const struct {
	const char *name;
	unsigned fn, data;
} bodies[] = {
	{"rb_ensure", 0, 1}, {"rb_mutex_synchronize", 1, 2}, {"rb_protect", 0, 1},
	{"rb_rescue", 0, 1}, {"rb_rescue2", 0, 1},
};

bool body_call(const struct call *c, unsigned *fn, unsigned *data)
{
	for (size_t k = 0; k < ARRAY_SIZE(bodies); k++)
		if (str_eq(c->name, bodies[k].name) && c->nargs > bodies[k].data) {
			*fn = bodies[k].fn;
			*data = bodies[k].data;
			return true;
		}
	return false;
}

bool runs_as_body(const struct call *c, const char *usr, unsigned *refs, unsigned *data)
{
	for (uint32_t a = 0; a < c->nargs; a++)
		if (c->args[a].kind == EX_FUNC && str_eq(c->args[a].func_usr, usr))
			(*refs)++;
	unsigned fn;
	return body_call(c, &fn, data) && c->args[fn].kind == EX_FUNC && str_eq(c->args[fn].func_usr, usr);
}

/* x is exactly parameter variable v (a cast allowed: (VALUE)data). */
static bool is_param_ref(const struct expr *x, int32_t v)
{
	return x->kind == EX_REF && x->ref.var == v && !x->ref.addr && !x->ref.deref && (!x->ref.path || !*x->ref.path);
}

/* x reads var other than as exactly the value of call event ev
 * (return rb_ensure(function, ...)). */
static bool reads_besides(const struct expr *x, int32_t var, int32_t ev)
{
	return x && !(x->kind == EX_CALL && x->call == ev) && expr_reads_var(x, var);
}

/* Parameter variable pv of g is used only as an argument of call event ev
 * (argument k of it) and as that call's value: never assigned, its address
 * never taken, never read through. */
static bool param_only_in(const struct mfunc *g, int32_t pv, int32_t ev, uint32_t k)
{
	for (uint32_t i = 0; i < g->f->nevents; i++) {
		const struct event *e = &g->f->events[i];
		if (e->kind == EV_CALL) {
			const struct call *c = e->u.call;
			if (c->indirect && expr_reads_var(&c->callee, pv))
				return false; /* called here too: another caller */
			for (uint32_t a = 0; a < c->nargs; a++)
				if (expr_reads_var(&c->args[a], pv) && !((int32_t)i == ev && a == k))
					return false;
		} else if (e->kind == EV_ASSIGN) {
			if (e->u.assign->lhs.var == pv || reads_besides(&e->u.assign->rhs, pv, ev))
				return false;
		} else if (e->kind == EV_RETURN) {
			if (reads_besides(e->u.ret, pv, ev))
				return false;
		} else if (e->kind == EV_ACCESS) {
			if (e->u.access->ref.var == pv &&
			    ((e->u.access->mode & (ACC_ADDR | ACC_WRITE)) || e->u.access->ref.deref))
				return false;
		}
	}
	return true;
}

int body_param_data(const struct mfunc *g, uint32_t pfn)
{
	if (pfn >= g->f->nparams)
		return -1;
	int32_t pv = g->f->params[pfn];
	int32_t body_ev = -1;
	unsigned fa = 0, da = 0;
	for (uint32_t i = 0; i < g->f->nevents; i++) {
		const struct event *e = &g->f->events[i];
		if (e->kind != EV_CALL || e->u.call->indirect)
			continue;
		unsigned f, d;
		if (!body_call(e->u.call, &f, &d) || !is_param_ref(&e->u.call->args[f], pv))
			continue;
		if (body_ev >= 0)
			return -1; /* two such calls */
		body_ev = (int32_t)i;
		fa = f;
		da = d;
	}
	if (body_ev < 0 || !param_only_in(g, pv, body_ev, fa))
		return -1;
	const struct expr *dx = &g->f->events[body_ev].u.call->args[da];
	const struct var *v = dx->kind == EX_REF ? mf_var(g, dx->ref.var) : NULL;
	if (!v || v->kind != VK_PARAM || v->param_index < 0 || dx->ref.var == pv || !is_param_ref(dx, dx->ref.var) ||
	    !param_only_in(g, dx->ref.var, body_ev, da))
		return -1;
	return v->param_index;
}

unsigned io_body_runs(const struct model *m, const struct mfunc *mf, io_body_visit visit, void *ctx)
{
	if (!mf->f->usr || !(mf->f->flags & FN_STATIC) || mf->f->nparams != 1)
		return 0;
	unsigned n = 0;
	size_t np = 0;
	const struct call_at *passed = model_func_passed(m, mf->f->usr, &np);
	for (size_t i = 0; i < np && n < 16; i++) {
		const struct mfunc *cf = &m->fns.v[passed[i].fn];
		if (cf == mf)
			continue;
		uint32_t ei = passed[i].ev;
		const struct call *c = cf->f->events[ei].u.call;
		unsigned bfn, bdata;
		if (body_call(c, &bfn, &bdata)) {
			if (c->args[bfn].kind == EX_FUNC && str_eq(c->args[bfn].func_usr, mf->f->usr)) {
				n++;
				if (visit(ctx, cf, ei, &c->args[bdata]))
					return n;
			}
			continue;
		}
		for (uint32_t a = 0; a < c->nargs; a++) {
			if (c->args[a].kind != EX_FUNC || !str_eq(c->args[a].func_usr, mf->f->usr) || !c->usr)
				continue;
			const struct mfunc *g = model_callee(m, c->usr, cf);
			int pd = g && g != mf ? body_param_data(g, a) : -1;
			if (pd < 0 || (uint32_t)pd >= c->nargs)
				continue;
			n++;
			if (visit(ctx, cf, ei, &c->args[pd]))
				return n;
		}
	}
	return n;
}
