/* inputs_gates.c: the inputs and outputs offload gates, built on io_analyse.
 * Part of the inputs analysis (inputs_flow_int.h). */
#include "inputs_flow_int.h"

#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "gvlapi.h"
#include "knowledge.h"
#include "libmodel.h"

/* ---- the offload gates ---- */

static bool field_ref(const struct ref *r, const char *rec, const char *field)
{
	return r->var >= 0 && r->deref && str_eq(r->field, field) && str_eq(r->path, field) && str_eq(r->record, rec);
}

/* Does field `field` of object struct `rec` hold a pointer, as far as the
 * gem shows: copied into a pointer variable (PGconn *c = this->pgconn), set from one
 * (obj->buf = p, not cast), or
 * passed to a pointer parameter of the gem's own function? Member types are
 * not in the facts; a field only ever read as a number is not a pointer. */
static bool field_pointer_walk(const struct model *m, const char *rec, const char *field)
{
	/* the events naming the member (model_member_refs), in the order of a walk of the gem */
	size_t nref = 0;
	const struct call_at *refs = model_member_refs(m, field, &nref);
	for (size_t i = 0; i < nref; i++) {
		const struct mfunc *mf = &m->fns.v[refs[i].fn];
		const struct event *e = &mf->f->events[refs[i].ev];
		if (e->kind == EV_ASSIGN) {
			const struct assign *as = e->u.assign;
			/* obj->buf = p, with p a pointer variable (not cast) */
			if (field_ref(&as->lhs, rec, field) && as->rhs.kind == EX_REF && !as->rhs.cast &&
			    ref_is_var(&as->rhs.ref) && !as->rhs.ref.addr) {
				const struct var *rv = mf_var(mf, as->rhs.ref.var);
				if (rv && (rv->flags & VF_POINTER))
					return true;
			}
			if (as->rhs.kind != EX_REF || !field_ref(&as->rhs.ref, rec, field) || !ref_is_var(&as->lhs))
				continue;
			const struct var *lv = mf_var(mf, as->lhs.var);
			if (lv && (lv->flags & VF_POINTER))
				return true;
		} else if (e->kind == EV_CALL && e->u.call->usr) {
			const struct call *c = e->u.call;
			const struct mfunc *g = NULL;
			for (uint32_t k = 0; k < c->nargs; k++) {
				if (c->args[k].kind != EX_REF || !field_ref(&c->args[k].ref, rec, field))
					continue;
				if (!g)
					g = model_callee(m, c->usr, mf);
				if (!g || k >= g->f->nparams)
					break;
				const struct var *pv = mf_var(g, g->f->params[k]);
				if (pv && (pv->flags & VF_POINTER))
					return true;
			}
		}
	}
	return false;
}

/* field_pointer_walk, memoised per field of the model. */
static bool field_pointer_like(const struct model *m, const char *rec, const char *field)
{
	if (!rec || !field)
		return false;
	char key[MODEL_MEMO_KEY_MAX + 1];
	int n = snprintf(key, sizeof(key), "field-pointer\x01%s\x01%s", rec, field);
	bool fits = n > 0 && (size_t)n < sizeof(key);
	uintptr_t v = 0;
	if (fits && model_memo_get(m, key, &v))
		return v != 0;
	bool r = field_pointer_walk(m, rec, field);
	if (fits)
		model_memo_put(m, key, r);
	return r;
}

void gate_check_inputs(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	(void)rs;
	struct io_analysis a;
	io_analyse(m, s, &a);
	/* every "cannot verify" names what is missing (missing_fact) */
	if (a.from_caller && a.from_caller_member) {
		/* C++: a member of the object the method runs on; whoever holds
		 * that object (other fibers too) can use or free it meanwhile */
		char nm[256];
		snprintf(nm, sizeof nm, "%s->%s", a.from_caller_name ? a.from_caller_name : "this",
			 a.from_caller_member);
		gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, a.from_caller_loc.line ? &a.from_caller_loc : &s->loc,
				   -1,
				   "the callback's data holds '%s', a member of the object the method runs on, "
				   "which its callers own and other fibers may reach: cannot verify its inputs",
				   nm),
			  FACT_DATA, nm);
	} else if (a.from_caller)
		gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, a.from_caller_loc.line ? &a.from_caller_loc : &s->loc,
				   -1,
				   "the callback's data comes from the caller ('%s'), which is not followed: cannot "
				   "verify "
				   "its inputs",
				   a.from_caller_name ? a.from_caller_name : "?"),
			  FACT_DATA, a.from_caller_name ? a.from_caller_name : io_callback_name(m, s));
	if (a.global_ptr_name)
		gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &a.global_ptr_loc, -1,
				   "the callback's data holds what the global or static pointer '%s' points to: every "
				   "fiber can reach, replace or free it meanwhile: cannot verify its inputs",
				   a.global_ptr_name),
			  FACT_DATA, a.global_ptr_name);
	if (a.ret_unfollowed)
		gate_fact(
			gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &a.ret_loc, -1,
				 "'%s' is a pointer a helper returns from below the last level followed: cannot verify "
				 "what it points to",
				 a.ret_name ? a.ret_name : "?"),
			FACT_DATA, a.ret_name ? a.ret_name : io_callback_name(m, s));
	if (a.helper_unfollowed)
		gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &a.helper_loc, -1,
				   "'%s' hands the callback's data to '%s' before the call, and what '%s' stores in it "
				   "is not judged that far from the release: cannot verify its inputs",
				   a.helper_in ? a.helper_in : "?", a.helper_name ? a.helper_name : "?",
				   a.helper_name ? a.helper_name : "?"),
			  FACT_DATA, a.helper_name ? a.helper_name : io_callback_name(m, s));
	for (size_t i = 0; i < a.objstate.n; i++) {
		struct gate_evidence *ev =
			gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &a.objstate.v[i].loc, -1,
				 "'%s' is state kept in a Ruby object's C struct; other fibers can use "
				 "that object during the call unless an in-progress guard stops them: "
				 "cannot verify",
				 a.objstate.v[i].name);
		ev->object_owned = true;
		/* the object-state part judges the field's guard when it holds a
		 * pointer (a handle, a buffer); a number copied out of the object
		 * is not shared with the callback */
		if (field_pointer_like(m, a.objstate.v[i].rec, a.objstate.v[i].field)) {
			ev->obj_rec = a.objstate.v[i].rec;
			ev->obj_field = a.objstate.v[i].field;
		}
		gate_fact(ev, FACT_DATA, a.objstate.v[i].name);
	}
	for (size_t i = 0; i < a.in.n; i++) {
		const struct io_input *in = &a.in.v[i];
		const struct event *e = &m->fns.v[in->fn].f->events[in->ev];
		if (io_unfrozen(in))
			gate_add(g, GATE_INPUTS, GATE_FAIL, &e->loc, -1,
				 "'%s' hands the callback a pointer into %s '%s', which other code can modify during "
				 "the call",
				 in->what, io_kind_noun(in->kind), in->owner ? in->owner : "?");
		else if (in->state == IOS_RECEIVER) {
			struct gate_evidence *ev = gate_add(
				g, GATE_INPUTS, GATE_UNKNOWN, &e->loc, -1,
				"'%s' hands the callback memory owned by '%s'; other fibers can use that object "
				"during the call unless an in-progress guard stops them: cannot verify",
				in->what, in->owner ? in->owner : "?");
			ev->object_owned = true;
			gate_fact(ev, FACT_DATA, in->owner ? in->owner : in->what);
		} else if (in->state == IOS_UNKNOWN)
			gate_fact(gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &e->loc, -1,
					   "'%s' hands the callback a pointer into '%s', whose origin is not followed: "
					   "cannot "
					   "verify it is frozen, copied or locked",
					   in->what, in->owner ? in->owner : "?"),
				  FACT_DATA, in->owner ? in->owner : in->what);
		if (io_not_alive(in))
			gate_add(g, GATE_INPUTS, GATE_FAIL, &e->loc, -1,
				 "nothing keeps '%s' alive past the call while the callback uses its memory",
				 in->owner ? in->owner : "?");
	}
	io_free(&a);
}

void gate_check_outputs(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	(void)rs;
	struct io_analysis a;
	io_analyse(m, s, &a);
	for (size_t i = 0; i < a.statics.n; i++)
		gate_add(g, GATE_OUTPUTS, GATE_FAIL, &a.statics.v[i].loc, -1,
			 "'%s' is a static buffer handed to the callback: every call, and every fiber, shares it",
			 a.statics.v[i].name);
	io_free(&a);
}

/* ---- shared reporting helpers ---- */

const char *io_callback_name(const struct model *m, const struct msite *s)
{
	if (s->cb.ntargets)
		return m->fns.v[s->cb.targets[0]].f->name;
	if (s->cb.nexternal)
		return s->cb.external[0];
	return s->cb.text ? s->cb.text : "?";
}
