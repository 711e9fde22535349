/* with-gvl-escape: a function given to rb_thread_call_with_gvl can raise without
 * rb_protect around it, or returns a VALUE through its void * result. */
#include <string.h>

#include "knowledge.h"
#include <stdlib.h>

#include "rule.h"

/* Ruby API that runs arbitrary Ruby code and so can raise anything. Source:
 * ruby/internal/eval.h, ruby/internal/iterator.h (Ruby 3.1 headers). */
static const char *const runs_ruby[] = {
	"rb_apply",
	"rb_block_call",
	"rb_call_super",
	"rb_class_new_instance",
	"rb_eval_string",
	"rb_eval_string_protect",
	"rb_funcall",
	"rb_funcall_passing_block",
	"rb_funcall_with_block",
	"rb_funcallv",
	"rb_funcallv_kw",
	"rb_funcallv_public",
	"rb_method_call",
	"rb_obj_call_init",
	"rb_proc_call",
	"rb_proc_call_with_block",
	"rb_require",
	"rb_yield",
	"rb_yield_splat",
	"rb_yield_values",
	"rb_yield_values2",
};

static bool can_raise(const struct ruby_use *u)
{
	if (u->cls == RC_RAISES || u->cls == RC_MAY_RAISE)
		return true;
	return u->cls == RC_CALL && u->callee && str_in_sorted(u->callee, runs_ruby, ARRAY_SIZE(runs_ruby));
}

/* First raising use reachable from root with the GVL (not through
 * rb_protect, whose body is not an edge); rs receives the call graph below
 * root (CTX_WITHGVL: under a GVL guard too), whose chains lead back. */
static bool find_raise(const struct model *m, uint32_t root, uint32_t *out_fn, uint32_t *out_ev, struct ruby_use *out_u,
		       struct reach_set *rs)
{
	struct cbres roots = {.ntargets = 1, .targets = &root};
	model_reach_from_ctx(m, &roots, -1, CTX_WITHGVL, rs);
	/* the strongest evidence wins: a raise, then a call into Ruby code, then a
	 * conversion that may raise; the first of each in breadth-first order */
	int best = 0;
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, rs, NOGVL_GUARDED_TOO); nogvl_walk_next(&w);) {
		const struct event *e = w.e;
		if (e->kind == EV_CALL && model_func_by_usr(m, e->u.call->usr))
			continue;
		struct ruby_use u = ruby_use_of(w.mf, w.ei);
		if (!u.representative || !can_raise(&u))
			continue;
		int strength = u.cls == RC_RAISES ? 3 : u.cls == RC_CALL ? 2 : 1;
		if (strength > best) {
			best = strength;
			*out_fn = w.fi;
			*out_ev = w.ei;
			*out_u = u;
		}
	}
	return best > 0;
}

static bool returns_value(const struct mfunc *mf, const struct event **at)
{
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (e->kind != EV_RETURN)
			continue;
		const struct expr *r = e->u.ret;
		bool v = false;
		if (r->kind == EX_CALL && r->call >= 0)
			v = mf->f->events[r->call].u.call->returns_value;
		else if (r->kind == EX_REF && (!r->ref.path || !*r->ref.path)) {
			const struct var *var = mf_var(mf, r->ref.var);
			v = var && (var->flags & VF_VALUE);
		}
		if (v) {
			*at = e;
			return true;
		}
	}
	return false;
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->withgvl.n; i++) {
		const struct withgvl_call *w = &m->withgvl.v[i];
		const struct mfunc *caller = &m->fns.v[w->fn];
		const struct event *call = &caller->f->events[w->ev];
		for (uint32_t t = 0; t < w->target.ntargets; t++) {
			uint32_t root = w->target.targets[t];
			const struct mfunc *rf = &m->fns.v[root];
			uint32_t ffn, fev;
			struct ruby_use u;
			struct reach_set rs;
			if (find_raise(m, root, &ffn, &fev, &u, &rs)) {
				struct finding *f = rule_report(
					rc, &call->loc, caller->f->name,
					"'%s' is called with rb_thread_call_with_gvl and can raise ('%s'), but no "
					"rb_protect catches it: the exception would longjmp across the blocking region",
					rf->f->name, u.name);
				const struct mfunc *at = &m->fns.v[ffn];
				finding_note(f, &at->f->events[fev].loc, "'%s' can raise here, in '%s'", u.name,
					     at->f->name);
				for (int32_t c = (int32_t)ffn; c >= 0 && rs.by_fn[c].pred_fn >= 0;
				     c = rs.by_fn[c].pred_fn)
					finding_note(f, &m->fns.v[rs.by_fn[c].pred_fn].f->loc,
						     "'%s' is called from '%s'", m->fns.v[c].f->name,
						     m->fns.v[rs.by_fn[c].pred_fn].f->name);
			}
			reach_set_free(&rs);
			/* a dropped result (a statement, a cast to void) carries no
			 * VALUE out of the GVL: only a caller that keeps it is at risk */
			const struct event *ret = NULL;
			if (call->u.call->result_used && returns_value(rf, &ret)) {
				struct finding *f = rule_report(
					rc, &call->loc, caller->f->name,
					"'%s' returns a Ruby object through rb_thread_call_with_gvl's void * result; "
					"nothing keeps it alive once the GVL is released again",
					rf->f->name);
				finding_note(f, &ret->loc, "the VALUE is returned here");
			}
		}
	}
}

const struct rule_desc rule_with_gvl_escape = {
	.slug = "with-gvl-escape",
	.severity = SEV_ERROR,
	.category = "GVL misuse",
	.summary = "A function run with rb_thread_call_with_gvl can raise without rb_protect, or returns a VALUE "
		   "through void *.",
	.rationale = "ruby/thread.h: the function \"must not raise\" and \"must not return a Ruby object\". An "
		     "exception escaping it longjmps out of the no-GVL callback and the blocking region; under a "
		     "fiber-scheduler worker pool it also strands the waiting fiber. A VALUE returned through void * "
		     "is not seen by the GC once the GVL is released again.",
	.fix = "Wrap the Ruby work in rb_protect (or rb_rescue/rb_ensure) inside the function, return the state, "
	       "and re-raise with rb_jump_tag after the blocking call returns. Return plain C data, not VALUEs.",
	.flags = 0,
	.run = run,
};
