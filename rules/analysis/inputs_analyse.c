/* inputs_analyse.c: io_analyse, one site's inputs: the flow in the data
 * function, the hops to its callers, rb_ensure bodies and va_list helpers,
 * and whether each owner is kept alive. Part of the inputs analysis
 * (inputs_flow_int.h). */
#include "inputs_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "gvlapi.h"
#include "knowledge.h"
#include "libmodel.h"

/* Store their last argument into a container (the first): the container then
 * keeps it alive. Source: Ruby 3.1 ruby/internal/intern/array.h, hash.h,
 * variable.h, struct.h. */
static const char *const container_stores[] = {
	"rb_ary_push", "rb_ary_store", "rb_ary_unshift", "rb_hash_aset", "rb_iv_set", "rb_ivar_set", "rb_struct_aset",
};

/* ---- keeping the owner alive ---- */

static bool is_guard_event(const struct event *e)
{
	return e->macro && (strcmp(e->macro, "RB_GC_GUARD") == 0 || strcmp(e->macro, "RUBY_GC_GUARD") == 0);
}

static int alive_after(const struct mfunc *mf, const struct ref *o, uint32_t rel, struct loc *guard_before,
		       uint32_t from)
{
	const struct func *f = mf->f;
	int best = IOA_NO;
	for (uint32_t i = rel + 1; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_ACCESS || !(e->u.access->mode & (ACC_READ | ACC_ADDR)) ||
		    !ref_same(&e->u.access->ref, o))
			continue;
		if (is_guard_event(e))
			return IOA_GUARD;
		best = IOA_USE;
	}
	if (best != IOA_NO)
		return best;
	/* read again on a retry path: the release call is in a loop whose body
	 * (or condition) reads the owner before the call */
	for (int32_t lr = rel < f->nevents ? f->events[rel].region : -1, n = 0;
	     lr >= 0 && (uint32_t)lr < f->nregions && n < 64; lr = f->regions[lr].parent, n++) {
		if (f->regions[lr].kind != RG_LOOP)
			continue;
		for (uint32_t i = 0; i < rel; i++) {
			const struct event *e = &f->events[i];
			if (e->kind != EV_ACCESS || !(e->u.access->mode & ACC_READ) || !ref_same(&e->u.access->ref, o))
				continue;
			for (int32_t r = e->region, k = 0; r >= 0 && (uint32_t)r < f->nregions && k < 64;
			     r = f->regions[r].parent, k++)
				if (r == lr)
					return IOA_USE;
		}
	}
	/* read again after a retry label the call can jump back to
	 * (`retry: ... call ...; if (again) goto retry;`) */
	uint32_t roff = rel < f->nevents ? f->events[rel].loc.off : 0;
	for (uint32_t r = 0; rel < f->nevents && r < f->nregions; r++) {
		const struct region *rg = &f->regions[r];
		if (rg->kind != RG_RETRY || rg->begin > roff || roff >= rg->end)
			continue;
		for (uint32_t i = 0; i < rel; i++) {
			const struct event *e = &f->events[i];
			if (e->kind == EV_ACCESS && (e->u.access->mode & ACC_READ) && ref_same(&e->u.access->ref, o) &&
			    e->loc.off >= rg->begin && e->loc.off < roff)
				return IOA_USE;
		}
	}
	/* stored into an array or hash before the call (fiddle's converted_args) */
	for (uint32_t i = 0; i < rel && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_CALL || !IN(e->u.call->name, container_stores))
			continue;
		for (uint32_t k = 1; k < e->u.call->nargs; k++)
			if (expr_mentions(&e->u.call->args[k], o))
				return IOA_HELD;
	}
	for (uint32_t i = from; i < rel && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind == EV_ACCESS && ref_same(&e->u.access->ref, o) && is_guard_event(e)) {
			*guard_before = e->loc;
			break;
		}
	}
	return IOA_NO;
}

/* ---- the analysis ---- */

bool io_release_event(const struct model *m, const struct msite *s, uint32_t *fn, uint32_t *ev)
{
	*fn = s->data_fn;
	if (s->fn == s->data_fn) {
		*ev = s->ev;
		return true;
	}
	const struct msite *in = s;
	unsigned guard = 0;
	while (in->inner >= 0 && guard++ < 64) {
		in = &m->sites.v[in->inner];
		if (in->fn == s->data_fn) {
			*ev = in->ev;
			return true;
		}
	}
	return false;
}

bool io_first_for_data(const struct model *m, const struct msite *s)
{
	uint32_t fn, ev;
	if (!io_release_event(m, s, &fn, &ev))
		return false;
	/* sites through a wrapper that builds its own struct differ by caller */
	bool per_caller = m->fns.v[fn].wrapper >= 0 && s->inner >= 0 && s->fn != fn;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *o = &m->sites.v[i];
		if (o == s)
			return true;
		uint32_t ofn, oev;
		if (io_release_event(m, o, &ofn, &oev) && ofn == fn && oev == ev && (!per_caller || o->fn == s->fn))
			return false;
	}
	return true;
}

static bool expr_empty(const struct expr *x)
{
	return !x || x->kind == EX_NULL || x->kind == EX_INT || x->kind == EX_STRING || x->kind == EX_FUNC;
}

/* Follows the expressions xs of the call at (cf, ev) that hands mf its data:
 * the pointers found there are judged in cf, against that call. Returns
 * whether the data found there is itself rooted at a parameter of cf (filled
 * by code further up, not followed); roots (may be NULL) gets which. */
bool hop_call(const struct model *m, const struct mfunc *mf, struct io_analysis *out, const struct mfunc *cf,
	      const struct hop_at *edp, const struct expr *const *xs, unsigned nx, struct hop_roots *roots)
{
	const struct hop_at *ed = edp;
	struct flow h = {0};
	h.m = m;
	h.mf = cf;
	h.fn = cf->id;
	h.limit = ed->ev;
	h.rel_region = cf->f->events[ed->ev].region;
	h.out = out;
	h.depth = 2;
	h.cur = ed->ev;
	size_t first = out->in.n;
	for (unsigned p = 0; p < nx; p++)
		flow_expr(&h, xs[p], (int32_t)ed->ev, NULL);
	flow_run(&h);
	for (size_t i = first; i < out->in.n; i++) {
		struct io_input *in = &out->in.v[i];
		in->via = mf->f->name;
		in->rel_fn = (int32_t)cf->id;
		in->rel_ev = ed->ev;
		struct cls c = {0};
		const struct mfunc *sf = &m->fns.v[in->fn];
		if (sf != cf) {
			/* found in a helper of cf (a returned pointer) and not mapped
			 * to cf: a local of that helper, judged there */
			if (in->owner_ref.var >= 0)
				c = classify_var(m, sf, &in->owner_ref, in->ev, sf->f->nevents, 0);
			const struct var *hv = in->owner_ref.var >= 0 ? mf_var(sf, in->owner_ref.var) : NULL;
			in->helper_local = hv ? hv->name : NULL;
			in->state = c.state ? c.state : IOS_UNKNOWN;
			in->why = c.why;
			in->why_fn = c.why_fn;
			in->why_arg = c.arg;
			in->why_loc = c.loc;
			if (in->kind == IOK_TYPED)
				in->state = IOS_RECEIVER;
			in->alive = c.held && !in->temporary ? IOA_HELD : IOA_NO;
			continue;
		}
		if (in->owner_ref.var >= 0) {
			c = classify_var(m, cf, &in->owner_ref, in->ev, ed->ev, 0);
		} else if (in->owner_call >= 0) {
			struct expr one = {0};
			one.kind = EX_CALL;
			one.call = in->owner_call;
			c = classify_expr(m, cf, &one, -1, in->ev, 0);
		}
		in->state = c.state ? c.state : IOS_UNKNOWN;
		in->why = c.why;
		in->why_fn = c.why_fn;
		in->why_arg = c.arg;
		in->why_loc = c.loc;
		in->owner_param = c.param;
		const struct var *ov = in->owner_ref.var >= 0 ? mf_var(cf, in->owner_ref.var) : NULL;
		if (in->kind == IOK_TYPED) {
			in->state = IOS_RECEIVER;
			/* a parameter, or a member (md->svc): held by what holds it,
			 * as for the other kinds below */
			in->alive = ov && (ov->kind == VK_PARAM || (in->owner_ref.path && *in->owner_ref.path))
					    ? IOA_HELD
				    : ov ? alive_after(cf, &in->owner_ref, ed->ev, &in->guard_before, in->ev)
					 : IOA_HELD;
		} else if (in->temporary) {
			in->alive = IOA_NO;
		} else if (!ov || (in->owner_ref.path && *in->owner_ref.path)) {
			in->alive = IOA_HELD;
		} else {
			in->alive = alive_after(cf, &in->owner_ref, ed->ev, &in->guard_before, in->ev);
			if (in->alive == IOA_NO && frame_holds(m, cf, &in->owner_ref, &c, in->ev, ed->ev))
				in->alive = IOA_HELD;
		}
		if (in->alive == IOA_NO && c.held && !in->temporary)
			in->alive = IOA_HELD;
	}
	bool rooted = false;
	for (size_t i = 0; i < h.carriers.n && (!rooted || roots); i++) {
		const struct var *v = mf_var(cf, h.carriers.v[i].var);
		bool r = v && (v->kind == VK_PARAM || root_from_param(cf, h.carriers.v[i].var, ed->ev));
		if (r && roots)
			hop_root(roots, cf, h.carriers.v[i].var, ed->ev);
		rooted = rooted || r;
	}
	vec_free(&h.carriers);
	vec_free(&h.values);
	free(h.done);
	free(h.hopped);
	return rooted;
}

/* One hop up: pointer parameters of the data function stored in the data
 * (static void *run(const char *p) { a.p = p; rb_nogvl(...); }, ruby-pg's
 * gvl_PQexec stubs) are followed into each direct caller's argument. The
 * pointers found there are judged in the caller, against the call. Release
 * wrappers are not followed (their callers are sites of their own). */
static void caller_hop(const struct model *m, const struct msite *s, const struct mfunc *mf, struct flow *fl,
		       struct io_analysis *out)
{
	if (!out->from_caller_ptr || s->is_template)
		return;
	/* a release wrapper that builds its own struct from its parameters: each
	 * of its call sites is a site of its own; follow only that call */
	bool only_this = mf->wrapper >= 0;
	if (only_this && (s->inner < 0 || s->fn == mf->id))
		return;
	int params[16];
	unsigned np = 0;
	for (size_t i = 0; i < fl->carriers.n && np < ARRAY_SIZE(params); i++) {
		const struct var *v = mf_var(mf, fl->carriers.v[i].var);
		if (v && v->kind == VK_PARAM && !(v->flags & VF_VALUE) && v->param_index >= 0)
			params[np++] = v->param_index;
	}
	if (!np)
		return;
	/* called only through function-pointer parameters of the gem's own
	 * functions: those calls are its callers */
	bool by_param = !only_this && address_taken(m, mf) && taken_only_for_param_calls(m, mf);
	bool all = only_this || (mf->in_begin < mf->in_end && (!address_taken(m, mf) || by_param));
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *ed = &m->edges.v[m->in_edges.v[k]];
		if (ed->kind != EDGE_DIRECT && !(by_param && ed->kind == EDGE_PARAM)) {
			all = false;
			continue;
		}
		if (only_this && (ed->from != s->fn || ed->ev != s->ev))
			continue;
		const struct mfunc *cf = &m->fns.v[ed->from];
		if (cf == mf)
			continue;
		const struct call *call = cf->f->events[ed->ev].u.call;
		const struct expr *xs[16];
		unsigned nx = 0;
		for (unsigned p = 0; p < np; p++)
			if ((uint32_t)params[p] < call->nargs)
				xs[nx++] = &call->args[params[p]];
		struct hop_at at = {ed->from, ed->ev};
		hop_call(m, mf, out, cf, &at, xs, nx, NULL);
	}
	if (all && out->from_caller_ptr && out->from_caller && !out->from_caller_cast) {
		/* every caller was followed */
		out->from_caller = 0;
	}
}

/* The data function is the body of rb_ensure/rb_protect/rb_rescue (its
 * VALUE parameter cast to the data struct): follow the data argument of every
 * such call into the function that makes it. When every reference to the body
 * is one of these calls and none of them passes data that is itself a
 * parameter of its caller, the data is no longer "from the caller". */
static void ensure_hop(const struct model *m, const struct msite *s, const struct mfunc *mf, struct io_analysis *out)
{
	if (!out->from_caller_cast || s->is_template || !mf->f->usr)
		return;
	unsigned found = 0, refs = 0, hops = 0;
	bool rooted = false;
	size_t np = 0;
	const struct call_at *passed = model_func_passed(m, mf->f->usr, &np);
	for (size_t i = 0; i < np; i++) {
		uint32_t k = passed[i].fn, ei = passed[i].ev;
		const struct mfunc *cf = &m->fns.v[k];
		const struct call *c = cf->f->events[ei].u.call;
		unsigned bdata;
		if (!runs_as_body(c, mf->f->usr, &refs, &bdata))
			continue;
		found++;
		if (cf == mf || ++hops > 8)
			continue;
		const struct expr *xs[1] = {&c->args[bdata]};
		struct hop_at at = {k, ei};
		rooted = relay_call(m, mf, out, cf, &at, xs[0]) || rooted;
	}
	bool direct = false;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++)
		direct = direct || m->edges.v[m->in_edges.v[k]].kind == EDGE_DIRECT;
	if (found && found == refs && hops == found && !rooted && !direct) {
		out->from_caller = 0;
		out->from_caller_cast = 0;
	}
}

/* The data function is the body that a gem function, given it as a
 * parameter, hands to rb_ensure/rb_protect/... with its own data parameter
 * (ruby-magic: magic_lock(object, magic_descriptor_internal, &mga) runs
 * rb_ensure(function, (VALUE)data, unlock, object); body_param_data): the
 * data argument of every such call is followed into its caller. When every
 * reference to the (static, one-parameter) body is such a call, nothing calls
 * it otherwise and no caller passes data that is itself its parameter, the
 * data is no longer "from the caller". */
static void body_param_hop(const struct model *m, const struct msite *s, const struct mfunc *mf,
			   struct io_analysis *out)
{
	if (!out->from_caller || !(out->from_caller_ptr || out->from_caller_cast) || s->is_template || !mf->f->usr ||
	    !(mf->f->flags & FN_STATIC) || mf->f->nparams != 1 || mf->in_begin != mf->in_end)
		return;
	/* "from the caller" because of that one parameter, not another root */
	const struct var *pv = mf_var(mf, mf->f->params[0]);
	if (!pv || !str_eq(out->from_caller_name, pv->name))
		return;
	for (size_t t = 0; t < m->ntus; t++)
		for (size_t i = 0; i < m->tus[t]->bindings.n; i++)
			if (str_eq(m->tus[t]->bindings.v[i].fn_usr, mf->f->usr))
				return;
	unsigned refs = 0, hops = 0;
	bool ok = true, rooted = false;
	/* the events naming the body (fn_refs), in the order of a walk of the gem */
	size_t nnamed = 0;
	const struct call_at *named = model_fn_refs(m, mf->f->usr, &nnamed);
	for (size_t i = 0; i < nnamed && ok; i++) {
		uint32_t k = named[i].fn, ei = named[i].ev;
		const struct mfunc *cf = &m->fns.v[k];
		const struct event *e = &cf->f->events[ei];
		if (e->kind == EV_ASSIGN && e->u.assign->rhs.kind == EX_FUNC &&
		    str_eq(e->u.assign->rhs.func_usr, mf->f->usr))
			ok = false;
		if (e->kind != EV_CALL)
			continue;
		const struct call *c = e->u.call;
		for (uint32_t a = 0; a < c->nargs && ok; a++) {
			if (c->args[a].kind != EX_FUNC || !str_eq(c->args[a].func_usr, mf->f->usr))
				continue;
			refs++;
			const struct mfunc *g = c->indirect || !c->usr ? NULL : model_callee(m, c->usr, cf);
			int pd = g && g != mf && cf != mf ? body_param_data(g, a) : -1;
			if (pd < 0 || (uint32_t)pd >= c->nargs || ++hops > 8) {
				ok = false;
				break;
			}
			const struct expr *xs[1] = {&c->args[pd]};
			struct hop_at at = {k, ei};
			rooted = relay_call(m, mf, out, cf, &at, xs[0]) || rooted;
		}
	}
	if (ok && refs && !rooted) {
		out->from_caller = 0;
		out->from_caller_ptr = 0;
		out->from_caller_cast = 0;
	}
}

/* The local va_list data expression x hands the callback, or NULL. */
static const struct var *va_list_data(const struct mfunc *mf, const struct expr *x)
{
	if (!x)
		return NULL;
	const struct ref *r = x->kind == EX_REF ? &x->ref : x->nreads == 1 ? &x->reads[0] : NULL;
	if (!r || r->var < 0 || (r->path && *r->path))
		return NULL;
	const struct var *v = mf_var(mf, r->var);
	if (!v || v->kind != VK_LOCAL || !v->type)
		return NULL;
	return strstr(v->type, "va_list") ? v : NULL;
}

/* A variadic release wrapper that hands the callback its own va_list
 * (`va_start(va, fn); rb_thread_call_without_gvl(fn, &va, ...)`: ruby-extzstd's
 * aux_thread_call_without_gvl): the callback's data is the variadic arguments
 * of each call of the wrapper, which the callback takes with va_arg. At a call
 * site of the wrapper they are followed in the caller, as any pointer stored in
 * the data; in the wrapper itself they are the callers' (not followed). */
static void va_hop(const struct model *m, const struct msite *s, const struct mfunc *mf, struct io_analysis *out)
{
	const struct var *va = va_list_data(mf, s->data1);
	if (!va)
		va = va_list_data(mf, s->data2);
	if (!va)
		return;
	if (s->fn == mf->id || s->is_template) {
		if (!out->from_caller) {
			out->from_caller = 1;
			out->from_caller_loc = va->loc;
			out->from_caller_name = va->name;
		}
		return;
	}
	const struct mfunc *cf = &m->fns.v[s->fn];
	const struct event *ce = &cf->f->events[s->ev];
	if (ce->kind != EV_CALL)
		return;
	const struct call *c = ce->u.call;
	const struct expr *xs[16];
	unsigned nx = 0;
	for (uint32_t k = mf->f->nparams; k < c->nargs && nx < ARRAY_SIZE(xs); k++)
		xs[nx++] = &c->args[k];
	if (c->nargs > mf->f->nparams + ARRAY_SIZE(xs) && !out->from_caller) {
		/* more than followed: say so rather than pass on a part */
		out->from_caller = 1;
		out->from_caller_loc = ce->loc;
		out->from_caller_name = va->name;
	}
	/* arguments that are the caller's own parameters (extlz4's
	 * aux_LZ4_decompress_safe_continue(context, src, ...) passing them on) are
	 * followed up through its callers, as a relayed body's data is */
	struct hop_at at = {s->fn, s->ev};
	struct hop_roots roots = {0};
	if (nx && relay_exprs(m, mf, out, cf, &at, xs, nx, &roots) && !out->from_caller) {
		const struct var *pv = roots.np && !roots.other ? mf_var(cf, cf->f->params[roots.params[0]]) : NULL;
		out->from_caller = 1;
		out->from_caller_loc = pv ? pv->loc : ce->loc;
		out->from_caller_name = pv ? pv->name : va->name;
	}
}

/* An input found in a helper of the data function whose owner is a
 * parameter of that helper: the owner becomes the argument the data function
 * passes (io_analyse). */
static void map_helper_param(const struct model *m, const struct mfunc *mf, uint32_t rel, const struct flow *fl,
			     struct io_input *in, const struct mfunc *sf, struct ref *owner, const struct mfunc **of,
			     uint32_t *at, struct cls *c)
{
	const struct var *ov = mf_var(sf, owner->var);
	/* a parameter the helper replaced first (`s = rb_obj_as_string(s)`) is
	 * the helper's own local from there on */
	if (ov && ov->kind == VK_PARAM && ref_is_var(owner) && ov->param_index >= 0 &&
	    !param_replaced(sf, owner->var, in->ev)) {
		/* map the helper's parameter to the caller's argument */
		uint32_t hop = 0;
		bool found = false;
		for (uint32_t e = 0; e < rel; e++)
			if (fl->hopped && fl->hopped[e] && mf->f->events[e].kind == EV_CALL &&
			    str_eq(mf->f->events[e].u.call->usr, sf->f->usr)) {
				hop = e;
				found = true;
			}
		/* a helper of a helper: its parameter is judged from its
			 * own callers (classify_param) */
		const struct call *hc = found ? mf->f->events[hop].u.call : NULL;
		if (hc && (uint32_t)ov->param_index < hc->nargs) {
			const struct expr *ax = &hc->args[ov->param_index];
			struct ref a;
			if (ax->kind == EX_CALL) {
				owner->var = -1;
				in->owner_call = ax->call;
				in->temporary = 1;
				in->owner = mf->f->events[ax->call].u.call->name;
				*c = classify_expr(m, mf, ax, (int32_t)hop, hop, 0);
			} else if (arg_ref(ax, &a)) {
				*owner = a;
				*of = mf;
				*at = hop;
				in->owner = ref_name(mf, &a);
			}
		}
	} else if (ov && ref_is_var(owner)) {
		in->helper_local = ov->name;
	}
}

/* Whether the owner of input in is kept alive past the release (io_analyse). */
static void input_alive(const struct model *m, const struct mfunc *mf, uint32_t fn, uint32_t rel, const struct flow *fl,
			struct io_input *in, const struct ref *owner, const struct mfunc *of, uint32_t at,
			const struct cls *c, bool typed_of_param)
{
	/* alive? */
	const struct var *ovar = owner->var >= 0 ? mf_var(of, owner->var) : NULL;
	if (in->kind == IOK_TYPED && typed_of_param && ovar && ovar->kind == VK_PARAM)
		in->alive = IOA_HELD; /* the receiver or another argument: the caller holds it */
	else if (in->temporary)
		in->alive = IOA_NO;
	else if (in->stored)
		in->alive = fl->stack_root ? IOA_STRUCT : IOA_NO;
	else if (in->unmapped_param) {
		/* not traced to the data function: alive only when the local it
		 * stops at was read out of a container the caller holds */
		in->alive = IOA_NO;
		if (in->stop_fn >= 0) {
			const struct mfunc *stf = &m->fns.v[in->stop_fn];
			struct cls sc = classify_var(m, stf, &in->stop_ref, in->stop_at, in->stop_at, 0);
			if (sc.held)
				in->alive = IOA_HELD;
		}
	} else if (in->helper_local)
		in->alive = IOA_NO;
	else if (!ovar)
		in->alive = IOA_HELD;
	else if (owner->path && *owner->path) {
		in->alive = IOA_HELD;
	} else if (of != mf) {
		in->alive = IOA_HELD;
	} else {
		bool in_struct = false;
		for (size_t j = 0; j < fl->values.n; j++)
			if (ref_same(&fl->values.v[j], owner))
				in_struct = true;
		/* the owner is a field of the data struct itself */
		if (in_struct && fl->stack_root)
			in->alive = IOA_STRUCT;
		else
			in->alive = alive_after(mf, owner, rel, &in->guard_before, at);
		if (in->alive == IOA_NO && frame_holds(m, mf, owner, c, in->fn == fn ? in->ev : at, rel))
			in->alive = IOA_HELD;
	}
	/* read out of a hash, array or ivar: the container keeps it */
	if (in->alive == IOA_NO && c->held && !in->temporary)
		in->alive = IOA_HELD;
	if (in->alive == IOA_NO && ovar && owner->path && *owner->path)
		in->alive = IOA_HELD;
}

/* Classifies input in of the data function mf and checks that its owner is
 * kept alive (io_analyse). */
static void judge_input(const struct model *m, const struct mfunc *mf, uint32_t fn, uint32_t rel, const struct flow *fl,
			struct io_input *in)
{
	in->alive = IOA_NO;
	const struct mfunc *sf = &m->fns.v[in->fn];
	struct cls c = {0};
	bool in_helper = in->fn != fn;
	struct ref owner = in->owner_ref;
	const struct mfunc *of = sf; /* function the owner ref belongs to */
	uint32_t at = in->ev;
	if (in_helper && in->mapped) {
		owner = in->top_owner;
		of = mf;
		at = in->top_at;
		in->owner = ref_name(mf, &owner);
	} else if (in_helper && owner.var >= 0) {
		map_helper_param(m, mf, rel, fl, in, sf, &owner, &of, &at, &c);
	}
	if (owner.var >= 0 && !c.state)
		c = classify_var(m, of, &owner, at, of == mf ? rel : of->f->nevents, 0);
	else if (owner.var < 0 && in->owner_call >= 0 && !c.state) {
		struct expr one = {0};
		one.kind = EX_CALL;
		one.call = in->owner_call;
		c = classify_expr(m, sf, &one, -1, in->ev, 0);
	} else if (owner.var < 0 && !c.state)
		c.state = IOS_UNKNOWN;
	in->state = c.state ? c.state : IOS_UNKNOWN;
	in->why = c.why;
	in->why_fn = c.why_fn;
	in->why_arg = c.arg;
	in->why_loc = c.loc;
	in->owner_param = c.param;
	/* typed data is the object's own C struct: never "unfrozen" (other
	 * fibers using the same object is the offload gate's "cannot verify") */
	bool typed_of_param = false;
	if (in->kind == IOK_TYPED) {
		typed_of_param = c.param || in->state == IOS_SHARED || in->state == IOS_UNKNOWN;
		in->state = IOS_RECEIVER;
	}

	input_alive(m, mf, fn, rel, fl, in, &owner, of, at, &c, typed_of_param);
}

void io_analyse(const struct model *m, const struct msite *s, struct io_analysis *out)
{
	memset(out, 0, sizeof(*out));
	out->s = s;
	uint32_t fn, rel;
	if (!io_release_event(m, s, &fn, &rel)) {
		out->from_caller = 1;
		out->from_caller_loc = s->loc;
		return;
	}
	out->fn = fn;
	out->rel = rel;
	if (expr_empty(s->data1) && expr_empty(s->data2)) {
		out->no_data = 1;
		return;
	}
	const struct mfunc *mf = &m->fns.v[fn];

	struct flow fl = {0};
	fl.m = m;
	fl.mf = mf;
	fl.fn = fn;
	fl.limit = rel;
	fl.rel_region = mf->f->events[rel].region;
	fl.out = out;
	fl.cur = rel;
	flow_expr(&fl, s->data1, (int32_t)rel, NULL);
	flow_expr(&fl, s->data2, (int32_t)rel, NULL);
	flow_run(&fl);

	/* classify and check liveness */
	for (size_t i = 0; i < out->in.n; i++)
		judge_input(m, mf, fn, rel, &fl, &out->in.v[i]);
	caller_hop(m, s, mf, &fl, out);
	ensure_hop(m, s, mf, out);
	field_hop(m, s, mf, &fl, out);
	body_param_hop(m, s, mf, out);
	va_hop(m, s, mf, out);
	/* members of the data struct as owners (RSTRING_PTR(a.keep)) */
	for (size_t i = 0; i < out->in.n; i++) {
		struct io_input *in = &out->in.v[i];
		if (in->fn != fn || in->owner_ref.var < 0 || !in->owner_ref.path || !*in->owner_ref.path)
			continue;
		if (carried(&fl, &in->owner_ref) && fl.stack_root)
			in->alive = IOA_STRUCT;
	}
	vec_free(&fl.carriers);
	vec_free(&fl.values);
	free(fl.done);
	free(fl.hopped);
}

void io_free(struct io_analysis *a)
{
	vec_free(&a->in);
	vec_free(&a->statics);
	vec_free(&a->objstate);
}
