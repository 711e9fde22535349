/* debug-state-gates: the shared and thread state gates of every release site
 * (thread state, per-thread error channel, lock, shared state), whatever the
 * site's flags, with the evidence as notes. For corpus tests and audits; off
 * by default. */
#include "gates.h"
#include "rule.h"

static void run(struct rule_ctx *rc)
{
	static const gate_checker checks[] = {gate_check_thread_state, gate_check_error_channel, gate_check_locks,
					      gate_check_shared_state};
	static const int gates[] = {GATE_THREAD_STATE, GATE_ERROR_CHANNEL, GATE_LOCK, GATE_SHARED_STATE};
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template)
			continue;
		struct reach_set rs;
		model_reach_from(m, &s->cb, (int32_t)i, &rs);
		struct gate_result g = {0};
		for (size_t k = 0; k < ARRAY_SIZE(checks); k++)
			checks[k](m, s, &rs, &g);
		struct strbuf sb = {0};
		sb_puts(&sb, "state gates:");
		for (size_t k = 0; k < ARRAY_SIZE(gates); k++)
			sb_printf(&sb, "%s %s %s", k ? "," : "", gate_name(gates[k]),
				  gate_state_name(g.state[gates[k]]));
		struct finding *f = rule_report(rc, &s->loc, m->fns.v[s->fn].f->name, "%s", sb_str(&sb));
		for (size_t k = 0; k < g.ev.n; k++)
			finding_note(f, &g.ev.v[k].loc, "%s: %s: %s", gate_name(g.ev.v[k].gate),
				     gate_state_name(g.ev.v[k].state), g.ev.v[k].msg);
		sb_free(&sb);
		gate_result_free(&g);
		reach_set_free(&rs);
	}
}

const struct rule_desc rule_debug_state_gates = {
	.slug = "debug-state-gates",
	.severity = SEV_NOTE,
	.category = "Debug",
	.summary = "Reports the thread state, error channel, lock and shared state gates of every release site.",
	.rationale = "Engine and gate tests: shows what the offload gates record for calls with and without "
		     "RB_NOGVL_OFFLOAD_SAFE.",
	.fix = "Nothing to fix; enable with --enable debug-state-gates.",
	.flags = RULE_DEBUG,
	.run = run,
};
