/* debug-offload-verdict: reports the offload verdict of every evaluated
 * release site, with each gate that did not pass (and its first piece of
 * evidence, with the missing fact when one is named) and the library model
 * entries that decided gates. For corpus cases and audits; off by default. */
#include "libmodel.h"
#include "offload.h"
#include "rule.h"

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		const struct site_verdict *oi = site_verdict_of(m, (uint32_t)i);
		if (!oi || oi->verdict == OV_NOT_EVALUATED || oi->verdict == OV_NOT_APPLICABLE)
			continue;
		struct strbuf sb = {0};
		sb_printf(&sb, "offload verdict: %s", offload_verdict_name(oi->verdict));
		if (oi->withheld_by)
			sb_printf(&sb,
				  str_eq(oi->withheld_by, "ubf-ignored")
					  ? " (withheld: %s, the callback ignores the unblocking function of line %u)"
					  : " (withheld: %s, the cleanup at line %u runs outside rb_ensure)",
				  oi->withheld_by, oi->withheld_loc.line);
		for (int g = 0; g < GATE_COUNT; g++) {
			if (oi->g.state[g] == GATE_PASS)
				continue;
			sb_printf(&sb, "; %s %s", gate_name(g), gate_state_name(oi->g.state[g]));
			for (size_t k = 0; k < oi->g.ev.n; k++)
				if (oi->g.ev.v[k].gate == g && oi->g.ev.v[k].state == oi->g.state[g]) {
					sb_printf(&sb, ": %s", oi->g.ev.v[k].msg);
					if (oi->g.ev.v[k].fact_name)
						sb_printf(&sb, " [missing: %s]", oi->g.ev.v[k].fact_name);
					break;
				}
		}
		for (size_t k = 0; k < oi->g.basis.n; k++) {
			const struct lib_model *lm = oi->g.basis.v[k].lm;
			sb_printf(&sb, "%s%s (%s%s)", k ? ", " : "; models: ", lm->name, lm->library,
				  lm->user ? ", user model" : "");
		}
		rule_report(rc, &s->loc, m->fns.v[s->fn].f->name, "%s", sb_str(&sb));
		sb_free(&sb);
	}
}

const struct rule_desc rule_debug_offload_verdict = {
	.slug = "debug-offload-verdict",
	.severity = SEV_NOTE,
	.category = "Engine",
	.summary = "Reports the offload verdict of every release site, its open gates and the library models used.",
	.rationale = "Lets tests and auditors check why a site is a candidate, unsafe or cannot be verified, and "
		     "which library model entries (built-in or the user's) the verdict rests on.",
	.fix = "Nothing to fix: this is a diagnostic rule, enabled with --enable debug-offload-verdict.",
	.flags = RULE_DEBUG,
	.run = run,
};
