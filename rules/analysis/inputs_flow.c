/* inputs_flow.c: follows a release site's data back to the Ruby objects it points
 * into (inputs_flow.h): the small helpers and the flow itself. The files of
 * the analysis share inputs_flow_int.h: inputs_classify.c (how an owner was
 * made), inputs_callers.c (parameters and their callers), inputs_analyse.c
 * (io_analyse), inputs_gates.c (the inputs/outputs offload gates) and
 * inputs_handle.c (io_handle_origin).
 *
 * The analysis is intra-procedural over the event list of the function that
 * fills the data, up to the release call, plus one hop into a helper that is
 * given the struct's address. It is flow-insensitive except for one rule: an
 * assignment is ignored when the same place is assigned again later on every
 * path to the release call (the later assignment's region encloses the call).
 */
#include "inputs_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "gvlapi.h"
#include "knowledge.h"
#include "libmodel.h"

/* ---- small helpers ---- */

bool ref_is_var(const struct ref *r)
{
	return r->var >= 0 && (!r->path || !*r->path);
}

bool region_encloses(const struct func *f, int32_t outer, int32_t inner)
{
	for (int32_t r = inner; r >= 0; r = f->regions[r].parent)
		if (r == outer)
			return true;
	return false;
}

/* The ref an argument names: the variable itself, or the one variable it
 * reads (StringValuePtr's `&(v)`, a cast). */
bool arg_ref(const struct expr *a, struct ref *out)
{
	if (a->kind == EX_REF && a->ref.var >= 0) {
		*out = a->ref;
		out->addr = 0;
		return true;
	}
	if (a->kind != EX_CALL && a->nreads == 1 && a->reads[0].var >= 0) {
		*out = a->reads[0];
		out->addr = 0;
		return true;
	}
	return false;
}

bool expr_mentions(const struct expr *a, const struct ref *r)
{
	if (a->kind == EX_REF && ref_same(&a->ref, r))
		return true;
	for (uint32_t i = 0; i < a->nreads; i++)
		if (ref_same(&a->reads[i], r))
			return true;
	return false;
}

/* The reads of x that are not inside the arguments of its direct calls. */
void top_reads(const struct mfunc *mf, const struct expr *x, int32_t parent, refvec *out)
{
	uint8_t *used = x->nreads ? xcalloc(x->nreads, 1) : NULL;
	for (uint32_t k = 0; k < x->ncalls; k++) {
		int32_t ci = x->calls[k];
		if (ci < 0 || (uint32_t)ci >= mf->f->nevents)
			continue;
		const struct call *c = mf->f->events[ci].u.call;
		if (c->parent != parent)
			continue;
		for (uint32_t a = 0; a < c->nargs; a++)
			for (uint32_t r = 0; r < c->args[a].nreads; r++)
				for (uint32_t j = 0; j < x->nreads; j++)
					if (!used[j] && ref_same(&x->reads[j], &c->args[a].reads[r]) &&
					    str_eq(x->reads[j].path, c->args[a].reads[r].path)) {
						used[j] = 1;
						break;
					}
	}
	for (uint32_t j = 0; j < x->nreads; j++)
		if (!used[j])
			vec_push(out, x->reads[j]);
	free(used);
}

const char *ref_name(const struct mfunc *mf, const struct ref *r)
{
	return ref_text(mf->tu, r);
}

/* ---- the flow ---- */

bool carried(const struct flow *fl, const struct ref *r)
{
	for (size_t i = 0; i < fl->carriers.n; i++)
		if (ref_related(&fl->carriers.v[i], r))
			return true;
	return false;
}

/* Does an assignment to lhs change what carrier c holds? Yes when lhs is c or
 * inside it, or when lhs is a by-value struct holding c (a = b copies a.f).
 * Not when c is reached through a pointer below lhs: `p = q` says nothing
 * about the value p->f holds. */
static bool assigns_carrier(const struct flow *fl, const struct ref *lhs)
{
	for (size_t i = 0; i < fl->carriers.n; i++) {
		const struct ref *c = &fl->carriers.v[i];
		if (c->var < 0 || c->var != lhs->var)
			continue;
		if (ref_path_prefix(c->path, lhs->path))
			return true;
		if (ref_path_prefix(lhs->path, c->path) && !c->deref)
			return true;
	}
	return false;
}

static void add_carrier(struct flow *fl, const struct ref *r)
{
	for (size_t i = 0; i < fl->carriers.n; i++)
		if (ref_same(&fl->carriers.v[i], r))
			return;
	struct ref c = *r;
	c.addr = 0;
	vec_push(&fl->carriers, c);
	const struct var *v = mf_var(fl->mf, r->var);
	if (!v)
		return;
	if (v->kind == VK_LOCAL && (v->flags & VF_RECORD))
		fl->stack_root = true;
	if (fl->depth == 0 && !fl->out->from_caller && r->deref && r->path && *r->path && v->kind != VK_PARAM &&
	    root_from_param(fl->mf, r->var, fl->limit)) {
		fl->out->from_caller = 1;
		fl->out->from_caller_loc = v->loc;
		fl->out->from_caller_name = v->name;
	}
	if (v->kind == VK_PARAM && !(v->flags & VF_VALUE) && fl->depth == 0 && !fl->out->from_caller) {
		fl->out->from_caller = 1;
		fl->out->from_caller_ptr = 1;
		fl->out->from_caller_loc = v->loc;
		fl->out->from_caller_name = v->name;
		if (v->param_index < 0 && r->path && *r->path) { /* C++ this->m */
			fl->out->from_caller_member = r->path;
			/* `this` has no declaration: at the member as written, not at
			 * the method's first use of any member (this_var's place) */
			for (int32_t j = (int32_t)(fl->cur < fl->limit ? fl->cur : fl->limit - 1); j >= 0; j--) {
				const struct event *e = &fl->mf->f->events[j];
				if (e->kind == EV_ACCESS && ref_same(&e->u.access->ref, r)) {
					fl->out->from_caller_loc = e->loc;
					break;
				}
			}
		}
	}
}

static bool killed(const struct flow *fl, uint32_t at, const struct ref *lhs)
{
	const struct func *f = fl->mf->f;
	if (lhs->path && strstr(lhs->path, "[]"))
		return false; /* a[i] = x; a[n] = NULL: other elements */
	for (uint32_t j = at + 1; j < fl->limit; j++) {
		const struct event *e = &f->events[j];
		if (e->kind != EV_ASSIGN || e->u.assign->compound || !ref_same(&e->u.assign->lhs, lhs))
			continue;
		if (fl->rel_region >= 0 && region_encloses(f, e->region, fl->rel_region))
			return true;
	}
	return false;
}

static void add_input(struct flow *fl, uint32_t ev, int kind, const struct ref *owner, int32_t tmp_call,
		      const struct ref *dest)
{
	for (size_t i = 0; i < fl->out->in.n; i++)
		if (fl->out->in.v[i].fn == fl->fn && fl->out->in.v[i].ev == ev &&
		    (!owner || ref_same(&fl->out->in.v[i].owner_ref, owner)))
			return;
	const struct event *e = &fl->mf->f->events[ev];
	struct io_input in = {0};
	in.fn = fl->fn;
	in.ev = ev;
	in.kind = kind;
	in.what = e->macro && !e->in_macro_arg ? e->macro : e->kind == EV_CALL ? e->u.call->name : "?";
	in.owner_ref.var = -1;
	in.owner_ref.path = "";
	in.owner_call = tmp_call;
	if (owner) {
		in.owner_ref = *owner;
		in.owner_ref.addr = 0;
		in.owner = ref_name(fl->mf, owner);
	} else if (tmp_call >= 0) {
		in.temporary = 1;
		in.owner = fl->mf->f->events[tmp_call].u.call->name;
	}
	in.dest = dest && dest->var >= 0 ? ref_name(fl->mf, dest) : NULL;
	in.dest_loc = fl->mf->f->events[fl->cur < fl->limit ? fl->cur : ev].loc;
	in.helper = fl->depth == 1 ? fl->mf->f->name : NULL;
	in.rel_fn = -1;
	in.stop_fn = -1;
	/* a helper of a helper: the owner as the data function passes it down
	 * (prep(&s, src) -> set_in(s, src) -> RSTRING_PTR(src)) */
	if (fl->depth == 1 && fl->hops >= 2 && owner && ref_is_var(owner)) {
		const struct flow *f = fl;
		struct ref o = *owner;
		uint32_t at = 0;
		bool ok = true;
		while (ok && f->depth == 1 && f->parent) {
			const struct var *ov = mf_var(f->mf, o.var);
			const struct call *c = f->parent->mf->f->events[f->hop_ev].u.call;
			struct ref a;
			ok = ov && ov->kind == VK_PARAM && ref_is_var(&o) && ov->param_index >= 0 &&
			     (uint32_t)ov->param_index < c->nargs && arg_ref(&c->args[ov->param_index], &a);
			if (ok) {
				o = a;
				at = f->hop_ev;
				f = f->parent;
			}
		}
		if (ok && f->depth == 0) {
			in.mapped = 1;
			in.top_owner = o;
			in.top_at = at;
		} else {
			const struct var *ov = mf_var(fl->mf, owner->var);
			in.unmapped_param = ov && ov->kind == VK_PARAM;
			/* stopped at a local of a helper between (rb_value =
			 * rb_hash_aref(opts, ...)): judged there */
			const struct var *sv = f != fl ? mf_var(f->mf, o.var) : NULL;
			if (sv && sv->kind == VK_LOCAL && ref_is_var(&o)) {
				in.stop_fn = (int32_t)f->mf->id;
				in.stop_ref = o;
				in.stop_at = at;
			}
		}
	}
	vec_push(&fl->out->in, in);
}

static void flow_ret_hop(struct flow *fl, uint32_t ci, const struct ref *dest);

static void flow_call(struct flow *fl, int32_t ci, const struct ref *dest)
{
	if (ci < 0 || (uint32_t)ci >= fl->mf->f->nevents)
		return;
	const struct event *e = &fl->mf->f->events[ci];
	if (e->kind != EV_CALL)
		return;
	const struct call *c = e->u.call;
	const struct src_entry *src = source_of(c->name);
	if (!src) {
		/* p = prepare(str, ...): what the gem's helper returns is carried */
		flow_ret_hop(fl, (uint32_t)ci, dest);
		return;
	}
	if (!src || !c->nargs)
		return;
	/* RARRAY_AREF(ary, i) is RARRAY_CONST_PTR(ary)[i]: the element, a VALUE
	 * copied out, not a pointer into the array */
	if (src->kind == IOK_ARRAY && e->macro && !e->in_macro_arg &&
	    (str_eq(e->macro, "RARRAY_AREF") || str_eq(e->macro, "rb_ary_entry")))
		return;
	struct ref owner;
	int32_t tmp = -1;
	bool have = arg_ref(&c->args[0], &owner);
	if (!have && c->args[0].kind == EX_CALL)
		tmp = c->args[0].call;
	add_input(fl, (uint32_t)ci, src->kind, have ? &owner : NULL, tmp, dest);
}

/* A member access on a Ruby object struct (DATA_PTR(self) is RDATA(self)->data). */
int object_member_kind(const char *record)
{
	if (!record)
		return 0;
	if (strcmp(record, "struct RData") == 0 || strcmp(record, "struct RTypedData") == 0)
		return IOK_TYPED;
	if (str_starts(record, "struct RString"))
		return IOK_STRING;
	if (str_starts(record, "struct RArray"))
		return IOK_ARRAY;
	return ruby_object_record(record) ? IOK_OBJECT : 0;
}

/* Synchronisation objects are shared on purpose (the lock and shared-state
 * gates judge them), not output buffers. */
static bool sync_type(const char *type)
{
	return type && (strstr(type, "pthread_") || strstr(type, "_cond") || strstr(type, "sem_t") ||
			strstr(type, "atomic") || strstr(type, "rb_nativethread"));
}

static void flow_ref(struct flow *fl, const struct ref *r, const struct ref *dest)
{
	const struct var *v = mf_var(fl->mf, r->var);
	if (!v)
		return;
	bool member = r->path && *r->path;
	if ((v->flags & VF_VALUE) && member) {
		int kind = object_member_kind(r->record);
		if (!kind)
			return;
		/* the access event of this member, at or before the current assignment */
		for (int32_t j = (int32_t)fl->cur; j >= 0; j--) {
			const struct event *e = &fl->mf->f->events[j];
			if (e->kind == EV_ACCESS && ref_same(&e->u.access->ref, r)) {
				struct ref owner = {.var = r->var, .path = ""};
				add_input(fl, (uint32_t)j, kind, &owner, -1, dest);
				break;
			}
		}
		return;
	}
	if (v->flags & VF_VALUE) {
		if (!member) {
			struct ref val = *r;
			val.addr = 0;
			vec_push(&fl->values, val);
		}
		return;
	}
	if ((v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC || v->kind == VK_LOCAL_STATIC) &&
	    !(v->flags & (VF_CONST | VF_MUTEX | VF_ATOMIC | VF_SIG_ATOMIC)) && !sync_type(v->type) &&
	    (r->addr || (v->flags & (VF_ARRAY | VF_RECORD)))) {
		for (size_t i = 0; i < fl->out->statics.n; i++)
			if (fl->out->statics.v[i].var == r->var && fl->out->statics.v[i].name == v->name)
				return;
		struct io_static st = {r->var, v->name, fl->mf->f->events[fl->cur < fl->limit ? fl->cur : 0].loc, NULL,
				       NULL};
		vec_push(&fl->out->statics, st);
		return;
	}
	/* a pointer kept in a global or static (a C++ static pointer member too):
	 * what it points to is reachable, replaceable and freeable by every fiber */
	if ((v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC || v->kind == VK_LOCAL_STATIC) && !member && !r->addr &&
	    (v->flags & VF_POINTER) &&
	    !(v->flags & (VF_CONST_POINTEE | VF_FNPTR | VF_TLS | VF_ATOMIC | VF_SYSTEM_HEADER | VF_RUBY_HEADER)) &&
	    !fl->out->global_ptr_name)
		fl->out->global_ptr_name = v->name, fl->out->global_ptr_loc = v->loc;
	if (member && r->deref && root_is_typed_data(fl->mf, r->var, fl->limit)) {
		bool seen = false;
		for (size_t i = 0; i < fl->out->objstate.n; i++)
			seen |= fl->out->objstate.v[i].var == r->var;
		if (!seen) {
			struct io_static st = {r->var, ref_name(fl->mf, r),
					       fl->mf->f->events[fl->cur < fl->limit ? fl->cur : 0].loc, v->record,
					       first_member(fl->mf, r->path)};
			vec_push(&fl->out->objstate, st);
		}
	}
	if (r->addr || member || (v->flags & (VF_POINTER | VF_ARRAY | VF_RECORD)))
		add_carrier(fl, r);
}

void flow_expr(struct flow *fl, const struct expr *x, int32_t parent, const struct ref *dest)
{
	if (!x)
		return;
	if (x->kind == EX_CALL && x->call >= 0) {
		flow_call(fl, x->call, dest);
		return;
	}
	for (uint32_t k = 0; k < x->ncalls; k++) {
		int32_t ci = x->calls[k];
		if (ci >= 0 && (uint32_t)ci < fl->mf->f->nevents && fl->mf->f->events[ci].kind == EV_CALL &&
		    fl->mf->f->events[ci].u.call->parent == parent)
			flow_call(fl, ci, dest);
	}
	if (x->kind == EX_REF) {
		/* a VALUE parameter cast to a struct pointer (rb_ensure's argument) is
		 * data the caller filled */
		const struct var *v = mf_var(fl->mf, x->ref.var);
		if (v && v->kind == VK_PARAM && (v->flags & VF_VALUE) && x->cast && fl->depth == 0)
			fl->out->from_caller_cast = 1;
		if (v && v->kind == VK_PARAM && (v->flags & VF_VALUE) && x->cast && fl->depth == 0 &&
		    !fl->out->from_caller) {
			fl->out->from_caller = 1;
			fl->out->from_caller_loc = v->loc;
			fl->out->from_caller_name = v->name;
		}
		flow_ref(fl, &x->ref, dest);
		return;
	}
	refvec reads = {0};
	top_reads(fl->mf, x, parent, &reads);
	for (size_t i = 0; i < reads.n; i++)
		flow_ref(fl, &reads.v[i], dest);
	vec_free(&reads);
}

static void flow_hop(struct flow *fl, uint32_t ci);

/* A caller that hop_call follows (depth 2) gives the data it hands on to a
 * gem function before the call (fill(&job, str)). The function is followed
 * as a helper of the data function would be, but what it finds is not judged
 * at that level: when it finds a pointer into a Ruby object, or cannot follow
 * something, the inputs cannot be verified (never "no inputs"); when it finds
 * nothing (it stores malloc'd memory, or only reads), nothing is lost. */
static void helper_in_caller(struct flow *fl, uint32_t ci)
{
	struct io_analysis *out = fl->out;
	size_t n = out->in.n;
	uint8_t from_caller = out->from_caller;
	flow_hop(fl, ci);
	if (out->in.n == n && out->from_caller == from_caller)
		return;
	out->in.n = n;
	out->from_caller = from_caller;
	if (out->helper_unfollowed)
		return;
	const struct event *e = &fl->mf->f->events[ci];
	out->helper_unfollowed = 1;
	out->helper_loc = e->loc;
	out->helper_name = e->u.call->name;
	out->helper_in = fl->mf->f->name;
}

/* The flow one hop below fl, into the helper callee it calls at event ci,
 * carrying parameter param (-1: what the helper returns). */
static void flow_child(struct flow *h, struct flow *fl, const struct mfunc *callee, uint32_t ci, int param)
{
	memset(h, 0, sizeof(*h));
	h->m = fl->m;
	h->mf = callee;
	h->fn = callee->id;
	h->limit = callee->f->nevents;
	h->rel_region = -1;
	h->out = fl->out;
	h->depth = 1;
	h->hops = fl->hops + 1;
	h->parent = fl;
	h->hop_ev = ci;
	h->hop_param = param;
	h->stack_root = fl->stack_root;
}

/* One hop into a helper given the struct's address: fill_args(&a, str). */
static void flow_hop(struct flow *fl, uint32_t ci)
{
	const struct call *c = fl->mf->f->events[ci].u.call;
	const struct mfunc *callee = model_callee(fl->m, c->usr, fl->mf);
	if (!callee || callee->id == fl->fn)
		return;
	for (uint32_t k = 0; k < c->nargs && k < callee->f->nparams; k++) {
		const struct expr *a = &c->args[k];
		if (a->kind != EX_REF || !carried(fl, &a->ref))
			continue;
		const struct var *av = mf_var(fl->mf, a->ref.var);
		if (!a->ref.addr && !(av && (av->flags & VF_POINTER)))
			continue;
		struct flow h;
		flow_child(&h, fl, callee, ci, (int)k);
		struct ref root = {.var = callee->f->params[k], .path = ""};
		vec_push(&h.carriers, root);
		size_t first = fl->out->in.n;
		flow_run(&h);
		/* a helper-local VALUE stored into the struct stays with it */
		for (size_t i = first; i < fl->out->in.n; i++) {
			struct io_input *in = &fl->out->in.v[i];
			if (in->fn != callee->id || in->owner_ref.var < 0)
				continue;
			for (size_t j = 0; j < h.values.n; j++)
				if (ref_same(&h.values.v[j], &in->owner_ref))
					in->stored = 1;
		}
		vec_free(&h.carriers);
		vec_free(&h.values);
		free(h.done);
		free(h.hopped);
	}
}

/* A pointer the helper returns into a carrier (samples = prepare(list, &n)):
 * the helper is followed with the variables it returns as its carriers, so
 * pointers into Ruby objects it stores in the returned memory (its elements
 * included: s[i].data = RSTRING_PTR(e)) become inputs. A helper below the last
 * level is not followed: the data then counts as not followed. */
static void flow_ret_hop(struct flow *fl, uint32_t ci, const struct ref *dest)
{
	if (fl->mf->f->events[ci].kind != EV_CALL)
		return;
	const struct call *c = fl->mf->f->events[ci].u.call;
	if (!fl->hopped)
		fl->hopped = xcalloc(fl->mf->f->nevents + 1, 1);
	if (!c->usr || !model_func_by_usr(fl->m, c->usr) || (fl->hopped[ci] & 2))
		return;
	const struct mfunc *callee = model_callee(fl->m, c->usr, fl->mf);
	if (!callee || callee->id == fl->fn || !callee->f->ret_type || !strchr(callee->f->ret_type, '*'))
		return;
	fl->hopped[ci] |= 2; /* 1: followed through its arguments (flow_hop), 2: through its result */
	if (fl->hops >= MAX_HELPER_HOPS) {
		if (!fl->out->ret_unfollowed) {
			fl->out->ret_unfollowed = 1;
			fl->out->ret_loc = fl->mf->f->events[ci].loc;
			fl->out->ret_name = dest && dest->var >= 0 ? ref_name(fl->mf, dest) : c->name;
		}
		return;
	}
	struct flow h;
	flow_child(&h, fl, callee, ci, -1);
	h.done = xcalloc(callee->f->nevents + 1, 1);
	h.hopped = xcalloc(callee->f->nevents + 1, 1);
	size_t first = fl->out->in.n;
	for (uint32_t j = 0; j < callee->f->nevents; j++) {
		const struct event *e = &callee->f->events[j];
		if (e->kind != EV_RETURN || !e->u.ret)
			continue;
		h.cur = j;
		flow_expr(&h, e->u.ret, -1, NULL);
	}
	if (h.carriers.n)
		flow_run(&h);
	/* what the helper returns out of a pointer parameter (return s->buf;
	 * return p + 1) is the caller's argument: carried in the caller */
	for (size_t i = 0; i < h.carriers.n; i++) {
		const struct var *v = mf_var(callee, h.carriers.v[i].var);
		if (v && v->kind == VK_PARAM && !(v->flags & VF_VALUE) && v->param_index >= 0 &&
		    (uint32_t)v->param_index < c->nargs)
			flow_expr(fl, &c->args[v->param_index], (int32_t)ci, dest);
	}
	/* a pointer into a parameter of the helper (return StringValueCStr(str);
	 * *out = ...; StringValueCStr(*out)) is a pointer into the caller's
	 * argument: judged in the caller, at the call */
	for (size_t i = first; i < fl->out->in.n;) {
		struct io_input *in = &fl->out->in.v[i];
		const struct var *ov = in->fn == callee->id && in->owner_ref.var >= 0 && !in->mapped
					       ? mf_var(callee, in->owner_ref.var)
					       : NULL;
		struct ref a;
		if (!ov || ov->kind != VK_PARAM || ov->param_index < 0 || (uint32_t)ov->param_index >= c->nargs ||
		    (in->owner_ref.path && *in->owner_ref.path)) {
			i++;
			continue;
		}
		const struct expr *ax = &c->args[ov->param_index];
		int kind = in->kind;
		/* a VALUE * parameter owns nothing itself: the owner is *out */
		bool by_ref, deref = in->owner_ref.deref || !(ov->flags & VF_VALUE);
		if (deref) /* *out, given &v */
			by_ref = ax->kind == EX_REF && ax->ref.var >= 0 && ax->ref.addr;
		else
			by_ref = !(ax->kind == EX_REF && ax->ref.addr) && arg_ref(ax, &a);
		if (by_ref && deref) {
			a = ax->ref;
			a.addr = 0;
		}
		int32_t tmp = !deref && ax->kind == EX_CALL ? ax->call : -1;
		if (!by_ref && tmp < 0) {
			i++;
			continue;
		}
		/* drop the helper's input, add it at the call */
		fl->out->in.v[i] = fl->out->in.v[fl->out->in.n - 1];
		fl->out->in.n--;
		add_input(fl, ci, kind, by_ref ? &a : NULL, by_ref ? -1 : tmp, dest);
	}
	vec_free(&h.carriers);
	vec_free(&h.values);
	free(h.done);
	free(h.hopped);
}

/* p = &carried[i] or p = &carried->f: p points into carried memory, so what
 * is stored through p is carried too (sample = &samples[i]; sample->data = ...). */
static bool alias_of_carrier(const struct flow *fl, const struct event *e)
{
	const struct ref *lhs = &e->u.assign->lhs;
	const struct expr *x = &e->u.assign->rhs;
	if (!ref_is_var(lhs) || lhs->addr || x->kind != EX_REF || !x->ref.addr || !carried(fl, &x->ref))
		return false;
	const struct var *v = mf_var(fl->mf, lhs->var);
	return v && v->kind == VK_LOCAL && (v->flags & VF_POINTER);
}

void flow_run(struct flow *fl)
{
	const struct func *f = fl->mf->f;
	if (!fl->done)
		fl->done = xcalloc(f->nevents + 1, 1);
	if (!fl->hopped)
		fl->hopped = xcalloc(f->nevents + 1, 1);
	bool changed = true;
	unsigned rounds = 0;
	while (changed && rounds++ < 32) {
		changed = false;
		for (uint32_t i = 0; i < fl->limit; i++) {
			const struct event *e = &f->events[i];
			if (e->kind == EV_ASSIGN && !fl->done[i] && alias_of_carrier(fl, e)) {
				fl->done[i] = 1;
				changed = true;
				add_carrier(fl, &e->u.assign->lhs);
			} else if (e->kind == EV_ASSIGN && !fl->done[i]) {
				const struct ref *lhs = &e->u.assign->lhs;
				if (lhs->var < 0 || !assigns_carrier(fl, lhs) || killed(fl, i, lhs))
					continue;
				fl->done[i] = 1;
				changed = true;
				fl->cur = i;
				flow_expr(fl, &e->u.assign->rhs, -1, lhs);
			} else if (e->kind == EV_CALL && !(fl->hopped[i] & 1) && e->u.call->usr &&
				   model_func_by_usr(fl->m, e->u.call->usr)) {
				bool any = false;
				for (uint32_t k = 0; k < e->u.call->nargs; k++)
					if (e->u.call->args[k].kind == EX_REF && carried(fl, &e->u.call->args[k].ref))
						any = true;
				if (!any)
					continue;
				fl->hopped[i] |= 1;
				changed = true;
				if (fl->depth >= 2) {
					helper_in_caller(fl, i);
					continue;
				}
				if (fl->hops >= MAX_HELPER_HOPS) {
					if (!fl->out->from_caller) {
						fl->out->from_caller = 1;
						fl->out->from_caller_loc = e->loc;
						fl->out->from_caller_name = e->u.call->name;
					}
					continue;
				}
				flow_hop(fl, i);
			}
		}
	}
}
