/* offload-unsafe: the call passes RB_NOGVL_OFFLOAD_SAFE but a gate fails. */
#include "offload.h"
#include "rule.h"

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (uint32_t i = 0; i < m->sites.n; i++) {
		const struct site_verdict *oi = site_verdict_of(m, i);
		if (!oi || oi->verdict != OV_FLAGGED_UNSAFE)
			continue;
		const struct msite *s = &m->sites.v[i];
		struct strbuf gates = {0};
		for (int g = 0; g < GATE_COUNT; g++) {
			if (!gate_is_safety(g) || oi->g.state[g] != GATE_FAIL)
				continue;
			sb_printf(&gates, "%s%s", gates.len ? ", " : "", gate_name(g));
		}
		struct finding *f =
			rule_report(rc, &s->loc, m->fns.v[s->fn].f->name,
				    "the call passes RB_NOGVL_OFFLOAD_SAFE but its callback is not safe to run "
				    "on another thread (failed: %s)",
				    sb_str(&gates));
		sb_free(&gates);
		for (size_t k = 0; k < oi->g.ev.n; k++) {
			const struct gate_evidence *e = &oi->g.ev.v[k];
			if (e->state == GATE_FAIL && gate_is_safety(e->gate))
				finding_note(f, &e->loc, "%s: %s", gate_name(e->gate), e->msg);
		}
		if (s->macro)
			finding_note(f, &s->loc, "expanded from macro '%s'", s->macro);
	}
}

const struct rule_desc rule_offload_unsafe = {
	.slug = "offload-unsafe",
	.severity = SEV_ERROR,
	.category = "Offload",
	.summary = "The call passes RB_NOGVL_OFFLOAD_SAFE but an offload gate fails for its callback.",
	.rationale = "With the flag, a fiber scheduler may run the callback on a worker thread while other fibers of "
		     "the calling thread keep running. Ruby API calls, rb_thread_call_with_gvl, thread-local state, a "
		     "per-thread error channel read after the call, a lock held across the release, unowned inputs "
		     "or shared mutable state then break (ruby/thread.h: \"If your function depends on "
		     "thread-local storage, or thread-specific data operations/data structures, you should not set "
		     "this flag\").",
	.fix = "Remove RB_NOGVL_OFFLOAD_SAFE, or fix each failed gate listed in the notes (copy or freeze inputs, "
	       "move Ruby calls out of the callback, carry errors back in the data struct instead of a "
	       "per-thread channel).",
	.flags = 0,
	.run = run,
};
