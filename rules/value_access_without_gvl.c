/* value-access-without-gvl: a Ruby object's internals read or written in a callback. */
#include "knowledge.h"
#include "rule.h"

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	struct use_groups groups = {0};
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, NULL, NOGVL_SKIP_GEM_CALLS); nogvl_walk_next(&w);) {
		uint32_t fi = w.fi, ei = w.ei;
		const struct mfunc *mf = w.mf;
		const struct event *e = w.e;
		struct ruby_use u = ruby_use_of(mf, ei);
		if (!u.representative || u.cls != RC_ACCESSOR)
			continue;
		if (use_group_find(&groups, mf, e, u.name))
			continue;
		struct finding *f;
		if (u.member && !e->macro)
			f = rule_report(rc, &e->loc, mf->f->name,
					"'%s' accesses a Ruby object's internals (%s) without the GVL; read what "
					"the callback needs before releasing the GVL",
					e->u.access->ref.field ? e->u.access->ref.field : "?", u.callee);
		else
			f = rule_report(rc, &e->loc, mf->f->name,
					"'%s' reads a Ruby object's internals without the GVL; take the pointer or "
					"length before releasing the GVL",
					u.name);
		finding_macro_note(f, e);
		finding_chain(f, m, CTX_NOGVL, fi);
		use_group_add(&groups, mf, e, u.name, f);
	}
	use_groups_finish(&groups);
}

const struct rule_desc rule_value_access_without_gvl = {
	.slug = "value-access-without-gvl",
	.severity = SEV_ERROR,
	.category = "GVL misuse",
	.summary = "A Ruby object's internals (RSTRING_PTR, RARRAY_LEN, DATA_PTR, RBASIC ...) are used while the "
		   "GVL is released.",
	.rationale = "Without the GVL another thread can mutate, resize or free the object, and GC compaction can "
		     "move an embedded string: a pointer or length read inside the callback may be stale or "
		     "dangling (ruby/ruby PR #9997, ged/ruby-pg #738).",
	.fix = "Compute pointers and lengths before releasing the GVL, store them in the callback's data struct, and "
	       "keep the owning VALUE alive with RB_GC_GUARD after the call.",
	.flags = 0,
	.run = run,
};
