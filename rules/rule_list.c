/* rule_list.c: every rule, sorted by slug. Add a rule here when you add its file. */
#include <stdarg.h>
#include <string.h>

#include <stdlib.h>

#include "rules.h"

extern const struct rule_desc rule_cleanup_not_ensured;
extern const struct rule_desc rule_debug_inputs;
extern const struct rule_desc rule_debug_no_gvl;
extern const struct rule_desc rule_debug_release_site;
extern const struct rule_desc rule_debug_state_gates;
extern const struct rule_desc rule_lock_across_boundary;
extern const struct rule_desc rule_missing_gc_guard;
extern const struct rule_desc rule_mt_unsafe_call;
extern const struct rule_desc rule_offload_candidate;
extern const struct rule_desc rule_offload_flag_unguarded;
extern const struct rule_desc rule_offload_unsafe;
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
	&rule_debug_inputs,
	&rule_debug_no_gvl,
	&rule_debug_release_site,
	&rule_debug_state_gates,
	&rule_lock_across_boundary,
	&rule_missing_gc_guard,
	&rule_mt_unsafe_call,
	&rule_offload_candidate,
	&rule_offload_flag_unguarded,
	&rule_offload_unsafe,
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

/* Optimal string alignment distance (transpositions count one), capped. */
static unsigned edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	unsigned d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *rule_suggest(const char *name)
{
	if (!name || !*name)
		return NULL;
	size_t len = strlen(name);
	unsigned limit = (unsigned)(len / 3 > 2 ? len / 3 : 2);
	const char *best = NULL;
	unsigned best_d = limit + 1;
	for (unsigned i = 0; i <= rule_count; i++) {
		const char *slug = i < rule_count ? rule_list[i]->slug : "all";
		unsigned dd = edit_distance(name, slug);
		if (dd < best_d) {
			best_d = dd;
			best = slug;
		}
	}
	return best;
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
