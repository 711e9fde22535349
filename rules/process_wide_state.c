/* process-wide-state: the callback changes state the whole process shares
 * (dup2/close onto fds 0-2, freopen/setvbuf on the standard streams, chdir,
 * umask, signal/sigaction). Evidence: gate_check_shared_state; the table is
 * process_state.c. */
#include "state_rules.h"

static void run(struct rule_ctx *rc)
{
	static const gate_checker checks[] = {gate_check_shared_state};
	state_rule_run(rc, checks, ARRAY_SIZE(checks), false);
}

const struct rule_desc rule_process_wide_state = {
	.slug = "process-wide-state",
	.severity = SEV_WARNING,
	.category = "Shared and thread state",
	.summary = "A callback run without the GVL changes state the whole process shares: the standard "
		   "descriptors or streams, the working directory, the umask or a signal's disposition.",
	.rationale = "File descriptors 0-2, stdin/stdout/stderr, the working directory, the umask and signal "
		     "dispositions belong to the process, not the thread. Without the GVL other Ruby threads run "
		     "at the same time and see the change: two threads that each save stderr, redirect it to "
		     "/dev/null and restore it interleave, and stderr can stay at /dev/null for good; a relative "
		     "path opened by another thread resolves against the wrong directory. A lock of the gem's "
		     "own does not help, since Ruby and other gems do not take it.",
	.fix = "Do it with the GVL held (before releasing it, or through rb_thread_call_with_gvl), or avoid the "
	       "process-wide change: pass the descriptor or stream to the library instead of redirecting "
	       "fd 2, use openat/*at() calls with a directory fd instead of chdir, pass the mode to open "
	       "instead of changing the umask.",
	.flags = 0,
	.run = run,
};
