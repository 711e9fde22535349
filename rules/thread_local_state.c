/* thread-local-state: with RB_NOGVL_OFFLOAD_SAFE the callback may run on a
 * worker thread: it must not use the caller's thread-local state, and the
 * caller must not read a per-thread error channel the callback filled.
 * Evidence: gate_check_thread_state and gate_check_error_channel. */
#include "state_rules.h"

static void run(struct rule_ctx *rc)
{
	static const gate_checker checks[] = {gate_check_thread_state, gate_check_error_channel};
	state_rule_run(rc, checks, ARRAY_SIZE(checks), true);
}

const struct rule_desc rule_thread_local_state = {
	.slug = "thread-local-state",
	.severity = SEV_WARNING,
	.category = "Shared and thread state",
	.summary = "A callback marked RB_NOGVL_OFFLOAD_SAFE uses thread-local state, thread identity, locale or "
		   "signal masks, or the caller reads a per-thread error channel the callback filled.",
	.rationale = "With RB_NOGVL_OFFLOAD_SAFE a fiber scheduler may run the callback on a worker thread. Only "
		     "its return value and errno come back to the caller (rb_nogvl restores only errno): __thread "
		     "variables, pthread_getspecific data, pthread_self, the locale set with uselocale and the "
		     "signal mask are the worker's, and errors a library queues per thread (OpenSSL's ERR_* "
		     "queue, git_error_last, dlerror, h_errno) stay on the worker, so the caller's ERR_get_error "
		     "after the call sees nothing. Without the flag the callback runs on the calling thread: no "
		     "finding, but the call is not an offload candidate.",
	.fix = "Pass what the callback needs in its data and return what the caller needs (an error code or "
	       "message copied inside the callback), or do not set RB_NOGVL_OFFLOAD_SAFE. A thread-local value "
	       "set at the start of the callback and cleared before it returns is fine.",
	.flags = RULE_OFFLOAD_ONLY,
	.run = run,
};
