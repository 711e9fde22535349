/* shared-mutable-state: the callback writes a global or static (a static
 * local buffer included) without a lock. Evidence: gate_check_shared_state. */
#include "state_rules.h"

static void run(struct rule_ctx *rc)
{
	static const gate_checker checks[] = {gate_check_shared_state};
	state_rule_run(rc, checks, ARRAY_SIZE(checks), false);
}

const struct rule_desc rule_shared_mutable_state = {
	.slug = "shared-mutable-state",
	.severity = SEV_WARNING,
	.category = "Shared and thread state",
	.summary = "A callback run without the GVL writes a global or static variable (or memory only reachable "
		   "through one) without a lock.",
	.rationale = "Without the GVL, other Ruby threads run at the same time, and may run the same callback: two "
		     "writers to one global, static or static local buffer race and corrupt each other's data. "
		     "With RB_NOGVL_OFFLOAD_SAFE the callback also runs on a worker thread while other fibers of "
		     "the caller's thread keep going. Const data, reads, atomics (_Atomic, __atomic_*, __sync_*) "
		     "and writes made while a mutex is held are not reported.",
	.fix = "Keep the state in the callback's data (a struct the caller owns per call), make it a local, use "
	       "an atomic, or take a mutex around the write.",
	.flags = 0,
	.run = run,
};
