/* rule_list.c: every rule, sorted by slug. Add a rule here when you add its file. */
#include <stdarg.h>
#include <string.h>

#include <stdlib.h>

#include "rules.h"

extern const struct rule_desc rule_cleanup_not_ensured;
extern const struct rule_desc rule_dangling_gc_root;
extern const struct rule_desc rule_debug_inputs;
extern const struct rule_desc rule_debug_no_gvl;
extern const struct rule_desc rule_debug_release_site;
extern const struct rule_desc rule_debug_state_gates;
extern const struct rule_desc rule_io_fd_without_io_region;
extern const struct rule_desc rule_lock_across_boundary;
extern const struct rule_desc rule_missing_gc_guard;
extern const struct rule_desc rule_mt_unsafe_call;
extern const struct rule_desc rule_offload_candidate;
extern const struct rule_desc rule_offload_flag_unguarded;
extern const struct rule_desc rule_offload_unsafe;
extern const struct rule_desc rule_process_wide_state;
extern const struct rule_desc rule_removed_api;
extern const struct rule_desc rule_ruby_api_without_gvl;
extern const struct rule_desc rule_shared_mutable_state;
extern const struct rule_desc rule_small_work_nogvl;
extern const struct rule_desc rule_thread_local_state;
extern const struct rule_desc rule_ubf_ignored;
extern const struct rule_desc rule_ubf_not_async_safe;
extern const struct rule_desc rule_ubf_on_cpu_work;
extern const struct rule_desc rule_unfrozen_input;
extern const struct rule_desc rule_uninterruptible_blocking;
extern const struct rule_desc rule_unset_result;
extern const struct rule_desc rule_unused_suppression;
extern const struct rule_desc rule_value_access_without_gvl;
extern const struct rule_desc rule_with_gvl_escape;

const struct rule_desc *const rule_list[] = {
	&rule_cleanup_not_ensured,
	&rule_dangling_gc_root,
	&rule_debug_inputs,
	&rule_debug_no_gvl,
	&rule_debug_release_site,
	&rule_debug_state_gates,
	&rule_io_fd_without_io_region,
	&rule_lock_across_boundary,
	&rule_missing_gc_guard,
	&rule_mt_unsafe_call,
	&rule_offload_candidate,
	&rule_offload_flag_unguarded,
	&rule_offload_unsafe,
	&rule_process_wide_state,
	&rule_removed_api,
	&rule_ruby_api_without_gvl,
	&rule_shared_mutable_state,
	&rule_small_work_nogvl,
	&rule_thread_local_state,
	&rule_ubf_ignored,
	&rule_ubf_not_async_safe,
	&rule_ubf_on_cpu_work,
	&rule_unfrozen_input,
	&rule_uninterruptible_blocking,
	&rule_unset_result,
	&rule_unused_suppression,
	&rule_value_access_without_gvl,
	&rule_with_gvl_escape,
};
const unsigned rule_count = ARRAY_SIZE(rule_list);

const struct rule_desc *rule_find(const char *slug)
{
	for (unsigned i = 0; i < rule_count; i++)
		if (strcmp(rule_list[i]->slug, slug) == 0)
			return rule_list[i];
	return NULL;
}

struct finding *rule_report(struct rule_ctx *rc, const struct loc *loc, const char *function, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	struct finding *f = finding_add(rc->out, rc->rule, rc->severity, loc, function, msg);
	free(msg);
	return f;
}
