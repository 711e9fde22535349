/* debug-no-gvl: reports every function the engine finds running without the
 * GVL (or as an unblocking function), with the chain back to the release
 * site. For engine tests; off by default. */
#include "rule.h"

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	static const struct {
		enum ctx_kind ctx;
		const char *what;
	} kinds[] = {
		{CTX_NOGVL, "runs without the GVL"},
		{CTX_UBF, "runs as an unblocking function"},
		{CTX_WITHGVL, "runs with the GVL re-acquired by rb_thread_call_with_gvl"},
	};
	for (size_t i = 0; i < m->fns.n; i++) {
		for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
			if (!model_reached(m, kinds[k].ctx, (uint32_t)i))
				continue;
			const struct mfunc *mf = &m->fns.v[i];
			struct finding *f =
				rule_report(rc, &mf->f->loc, mf->f->name, "'%s' %s", mf->f->name, kinds[k].what);
			finding_chain(f, m, kinds[k].ctx, (uint32_t)i);
		}
	}
}

const struct rule_desc rule_debug_no_gvl = {
	.slug = "debug-no-gvl",
	.severity = SEV_NOTE,
	.category = "Engine",
	.summary = "Lists every function reached without the GVL, from a UBF, or under rb_thread_call_with_gvl.",
	.rationale = "Lets tests check the GVL context the engine infers across files, wrappers and function "
		     "pointers, with the call chain back to the release site.",
	.fix = "Nothing to fix: this is a diagnostic rule, enabled with --enable debug-no-gvl.",
	.flags = RULE_DEBUG,
	.run = run,
};
