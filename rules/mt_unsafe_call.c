/* mt-unsafe-call: a library function that is not required to be thread-safe
 * (strtok, localtime, strerror ...) is called without the GVL. Evidence:
 * gate_check_shared_state; the table is in state_knowledge.c. */
#include "state_rules.h"

static void run(struct rule_ctx *rc)
{
	static const gate_checker checks[] = {gate_check_shared_state};
	state_rule_run(rc, checks, ARRAY_SIZE(checks), false);
}

const struct rule_desc rule_mt_unsafe_call = {
	.slug = "mt-unsafe-call",
	.severity = SEV_WARNING,
	.category = "Shared and thread state",
	.summary = "A callback run without the GVL calls a library function that is not thread-safe (strtok, "
		   "localtime, strerror, getenv ...).",
	.rationale = "POSIX lists functions that \"need not be thread-safe\" (XSH 2.9.1): they keep state in static "
		     "buffers or globals (localtime's struct tm, strtok's position, rand's seed). With the GVL held "
		     "no other Ruby thread runs them at the same time; once the callback releases it, another "
		     "thread can call them concurrently and overwrite the result.",
	.fix = "Use the reentrant variant (localtime_r, gmtime_r, strtok_r, strerror_r, getpwnam_r ...), or call "
	       "the function before releasing the GVL and pass the result in the callback's data.",
	.flags = 0,
	.run = run,
};
