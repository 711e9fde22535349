/* small-work-nogvl: the GVL is released around bounded-small work. */
#include "offload.h"
#include "rule.h"

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (uint32_t i = 0; i < m->sites.n; i++) {
		const struct site_verdict *oi = site_verdict_of(m, i);
		if (!oi || !oi->small_work)
			continue;
		const struct msite *s = &m->sites.v[i];
		const char *cb = m->fns.v[s->cb.targets[0]].f->name;
		struct finding *f =
			rule_report(rc, &s->loc, m->fns.v[s->fn].f->name,
				    "'%s' does bounded, small work: releasing and re-acquiring the GVL costs "
				    "more than it saves; call it directly, or release only above a size "
				    "threshold",
				    cb);
		for (size_t k = 0; k < oi->g.ev.n; k++)
			if (oi->g.ev.v[k].gate == GATE_WORK_SIZE)
				finding_note(f, &oi->g.ev.v[k].loc, "%s", oi->g.ev.v[k].msg);
		finding_branch_note(f, m, s->cb.targets[0]);
	}
}

const struct rule_desc rule_small_work_nogvl = {
	.slug = "small-work-nogvl",
	.severity = SEV_NOTE,
	.category = "Offload",
	.summary = "The GVL is released around bounded-small work (no loop, constant-size calls) with no size "
		   "threshold.",
	.rationale = "ruby/thread.h: \"Releasing and re-acquiring the GVL are expensive operations. For a "
		     "short-running func, it might be faster to just call func\". Under a worker pool the hand-off "
		     "costs more again (async-cable: 0.024 ms per message without offload, 0.96 ms with a thread per "
		     "operation).",
	.fix = "Call the function directly, or release the GVL only when the input is large (IO::Buffer releases "
	       "at 1 MiB, bignum division above 10000 digits).",
	.flags = 0,
	.run = run,
};
