/* lock-across-boundary: with RB_NOGVL_OFFLOAD_SAFE a mutex locked on one side
 * of the release call is unlocked on the other. Evidence: gate_check_locks. */
#include "state_rules.h"

static void run(struct rule_ctx *rc)
{
	static const gate_checker checks[] = {gate_check_locks};
	state_rule_run(rc, checks, ARRAY_SIZE(checks), true);
}

const struct rule_desc rule_lock_across_boundary = {
	.slug = "lock-across-boundary",
	.severity = SEV_WARNING,
	.category = "Shared and thread state",
	.summary = "A callback marked RB_NOGVL_OFFLOAD_SAFE unlocks a mutex the caller locked, or locks one that "
		   "the caller or a later callback unlocks.",
	.rationale = "A mutex belongs to the thread that locked it: unlocking it from another thread is undefined "
		     "for a default pthread mutex and an error for an error-checking one. With "
		     "RB_NOGVL_OFFLOAD_SAFE the callback may run on a worker thread, so a lock taken before the "
		     "call and released inside the callback (or the reverse) crosses threads; Ruby's own "
		     "documentation of the flag names \"unlocking a mutex\". Without the flag it is the same thread: "
		     "no finding, but the call is not an offload candidate.",
	.fix = "Lock and unlock on the same side of the release call: both inside the callback, or both in the "
	       "caller around it. Do not set RB_NOGVL_OFFLOAD_SAFE on a callback that must own the caller's lock.",
	.flags = RULE_OFFLOAD_ONLY,
	.run = run,
};
