/* ruby-api-without-gvl: Ruby C API reached from a GVL-release callback. */
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
		if (!u.representative)
			continue;
		if (u.cls != RC_RAISES && u.cls != RC_MAY_RAISE && u.cls != RC_CALL)
			continue;
		if (use_group_find(&groups, mf, e, u.name))
			continue;
		struct finding *f;
		const char *fn = mf->f->name;
		switch (u.cls) {
		case RC_RAISES:
			f = rule_report(rc, &e->loc, fn,
					"'%s' raises a Ruby exception without the GVL ('%s' runs with the GVL "
					"released); return an error from the callback and raise after the call",
					u.name, fn);
			break;
		case RC_MAY_RAISE:
			f = rule_report(rc, &e->loc, fn,
					"'%s' may raise a Ruby exception, but '%s' runs without the GVL; convert or "
					"check the value before releasing the GVL",
					u.name, fn);
			break;
		case RC_CALL:
			f = rule_report(rc, &e->loc, fn,
					"Ruby C API '%s' called without the GVL ('%s' runs with the GVL released)",
					u.name, fn);
			break;
		default:
			continue;
		}
		finding_macro_note(f, e);
		finding_chain(f, m, CTX_NOGVL, fi);
		use_group_add(&groups, mf, e, u.name, f);
	}
	use_groups_finish(&groups);
}

const struct rule_desc rule_ruby_api_without_gvl = {
	.slug = "ruby-api-without-gvl",
	.severity = SEV_ERROR,
	.category = "GVL misuse",
	.summary = "A Ruby C API function (or a macro that expands to one) is called while the GVL is released.",
	.rationale = "Ruby's C API is not thread-safe: without the GVL another thread may run the garbage collector "
		     "or change the same objects at the same time. Raising (rb_raise, rb_sys_fail) or calling a "
		     "function that may raise (NUM2INT, StringValue, Check_Type, ALLOCV) longjmps out of the "
		     "blocking region and leaves the VM in an undefined state. thread.c: \"You can not execute "
		     "most of Ruby C API and touch Ruby objects in func() and ubf(), including raising an "
		     "exception\".",
	.fix = "Do the Ruby work before releasing the GVL (convert arguments, take pointers, allocate result "
	       "strings) or after it (raise from an error code the callback returned). If a callback really "
	       "needs Ruby, wrap that part in rb_thread_call_with_gvl and rb_protect.",
	.flags = 0,
	.run = run,
};
