/* debug-inputs: lists what the inputs analysis (inputs_flow.h) found for every
 * release site: each pointer into a Ruby object, how its owner was made, and
 * how it is kept alive; and the inputs/outputs offload gates. Off by default. */
#include "gates.h"
#include "inputs_flow.h"
#include "rule.h"

static const char *state_name(int s)
{
	static const char *const n[] = {"?",       "frozen",  "fresh", "locked", "receiver",
					"unknown", "exposed", "dup",   "shared"};
	return s >= 0 && s <= IOS_SHARED ? n[s] : "?";
}

static const char *alive_name(int a)
{
	static const char *const n[] = {"not kept alive", "RB_GC_GUARD", "later use", "in the data struct", "held"};
	return a >= 0 && a <= IOA_HELD ? n[a] : "?";
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		struct io_analysis a;
		io_analyse(m, s, &a);
		struct gate_result g = {0};
		gate_check_inputs(m, s, NULL, &g);
		gate_check_outputs(m, s, NULL, &g);
		struct finding *f = rule_report(
			rc, &s->loc, m->fns.v[s->fn].f->name, "inputs gate: %s; outputs gate: %s; %zu input(s)%s%s",
			gate_state_name(g.state[GATE_INPUTS]), gate_state_name(g.state[GATE_OUTPUTS]), a.in.n,
			a.no_data ? ", no data" : "", a.from_caller ? ", data from the caller" : "");
		for (size_t k = 0; k < a.in.n; k++) {
			const struct io_input *in = &a.in.v[k];
			const struct event *e = &m->fns.v[in->fn].f->events[in->ev];
			finding_note(f, &e->loc, "input '%s' of %s '%s': %s%s%s, %s", in->what, io_kind_noun(in->kind),
				     in->owner ? in->owner : "?", state_name(in->state), in->why ? " by " : "",
				     in->why ? in->why : "", alive_name(in->alive));
		}
		for (size_t k = 0; k < g.ev.n; k++)
			finding_note(f, &g.ev.v[k].loc, "gate %s %s: %s", gate_name(g.ev.v[k].gate),
				     gate_state_name(g.ev.v[k].state), g.ev.v[k].msg);
		gate_result_free(&g);
		io_free(&a);
	}
}

const struct rule_desc rule_debug_inputs = {
	.slug = "debug-inputs",
	.severity = SEV_NOTE,
	.category = "Engine",
	.summary = "Lists the Ruby-object inputs found for every release site and the inputs/outputs offload gates.",
	.rationale = "Lets tests check what the inputs analysis sees: which pointers reach the callback's data, how "
		     "their owners were made, and whether they are kept alive.",
	.fix = "Nothing to fix: this is a diagnostic rule, enabled with --enable debug-inputs.",
	.flags = RULE_DEBUG,
	.run = run,
};
