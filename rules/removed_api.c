/* removed-api: GVL APIs removed in Ruby 2.2 (Feature #9502). */
#include <string.h>

#include "rule.h"

static const char *const removed_names[] = {
	"TRAP_BEG",
	"TRAP_END",
	"rb_thread_blocking_region",
	"rb_thread_blocking_region_begin",
	"rb_thread_blocking_region_end",
};

static void report(struct rule_ctx *rc, const struct loc *loc, const char *fn, const char *name)
{
	const char *instead = strcmp(name, "rb_thread_blocking_region") == 0
				      ? "rb_thread_call_without_gvl (or rb_nogvl)"
				      : "rb_thread_call_without_gvl around the blocking call";
	rule_report(rc, loc, fn, "'%s' was removed in Ruby 2.2 (Feature #9502); use %s", name, instead);
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	/* calls the parser saw */
	struct call_walk w;
	for (call_walk_init(&w, m, -1, CALLS_DIRECT); call_walk_next(&w);)
		if (!model_func_by_usr(m, w.c->usr) &&
		    str_in_list(w.c->name, removed_names, ARRAY_SIZE(removed_names)) >= 0)
			report(rc, &w.e->loc, w.mf->f->name, w.c->name);
	/* spellings the parser could not see (undeclared macros, unparsable code) */
	for (size_t t = 0; t < m->ntus; t++) {
		const struct tu_facts *tu = m->tus[t];
		for (size_t i = 0; i < tu->token_sites.n; i++) {
			const struct token_site *ts = &tu->token_sites.v[i];
			if (ts->inactive || ts->in_ast)
				continue;
			if (str_in_list(ts->api, removed_names, ARRAY_SIZE(removed_names)) < 0)
				continue;
			report(rc, &ts->loc, ts->function, ts->api);
		}
	}
}

const struct rule_desc rule_removed_api = {
	.slug = "removed-api",
	.severity = SEV_ERROR,
	.category = "GVL misuse",
	.summary = "rb_thread_blocking_region, TRAP_BEG/TRAP_END and rb_thread_blocking_region_begin/_end were "
		   "removed in Ruby 2.2.",
	.rationale = "Ruby 2.2 NEWS, \"Deprecated APIs removed [Feature #9502]\": code using them no longer builds "
		     "on any supported Ruby, or silently takes a fallback branch.",
	.fix = "Use rb_thread_call_without_gvl (or rb_nogvl) with a callback that does the blocking work.",
	.flags = 0,
	.run = run,
};
