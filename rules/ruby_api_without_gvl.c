/* ruby-api-without-gvl: Ruby C API reached from a GVL-release callback. */
#include <stdlib.h>
#include <string.h>

#include "knowledge.h"
#include "rule.h"

/* One finding per line: further Ruby API uses on the line of a finding are
 * named in it (`rb_hash_aset(h, LONG2NUM(i), Qtrue)` is one problem). */
struct line_group {
	struct finding *f;
	const char *fn;
	int cls;
	const char *first;   /* the first use's name */
	struct strbuf names; /* ", 'b', 'c'" of RC_CALL uses after the first */
	unsigned n;
};

static struct line_group *line_group_get(struct hmap *lines, struct strpool *keys, const struct event *e,
					 const char *fn, bool create)
{
	char *k = xasprintf("%s:%u:%s", e->loc.file ? e->loc.file : "", e->loc.line, fn);
	const char *ik = intern(keys, k);
	free(k);
	struct line_group *lg = hmap_get(lines, ik);
	if (!lg && create) {
		lg = xcalloc(1, sizeof(*lg));
		hmap_put(lines, ik, lg);
	}
	return lg;
}

static void line_groups_finish(struct hmap *lines)
{
	hmap_foreach(lines, it)
	{
		struct line_group *lg = it->val;
		if (lg->n && lg->cls == RC_CALL) {
			char *msg =
				xasprintf("Ruby C API '%s'%s called without the GVL ('%s' runs with the GVL released)",
					  lg->first, sb_str(&lg->names), lg->fn);
			if (strlen(msg) <= 140) {
				free(lg->f->msg);
				lg->f->msg = msg;
			} else {
				/* keep the headline short: the others in a note */
				free(msg);
				finding_note(lg->f, &lg->f->loc, "also on this line:%s", sb_str(&lg->names) + 1);
			}
		}
		sb_free(&lg->names);
		free(lg);
	}
	hmap_free(lines);
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	struct use_groups groups = {0};
	struct hmap lines = {0};
	struct strpool keys = {0};
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
		struct line_group *lg = line_group_get(&lines, &keys, e, fn, false);
		if (lg) {
			/* the same line: named in its finding */
			if (lg->cls == RC_CALL && u.cls == RC_CALL) {
				sb_printf(&lg->names, ", '%s'", u.name);
				lg->n++;
			} else {
				finding_note(lg->f, &e->loc, "'%s' on this line %s too", u.name,
					     u.cls == RC_RAISES      ? "raises"
					     : u.cls == RC_MAY_RAISE ? "may raise"
								     : "is Ruby API");
			}
			use_group_add(&groups, mf, e, u.name, lg->f);
			continue;
		}
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
		lg = line_group_get(&lines, &keys, e, fn, true);
		lg->f = f;
		lg->fn = fn;
		lg->cls = u.cls;
		lg->first = u.name;
	}
	use_groups_finish(&groups);
	line_groups_finish(&lines);
	strpool_free(&keys);
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
