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

/* Headlines say what is wrong and where in at most about HEADLINE_MAX bytes;
 * the rest of a longer message (the why and the fix) becomes the finding's
 * first note. Split at the last "; " or ": " that keeps the headline within
 * the limit; with none, cut at a word (or UTF-8 character) boundary. */
#define HEADLINE_MAX 140
#define HEADLINE_MIN 40

static size_t headline_split(const char *msg, size_t len, size_t *rest)
{
	size_t best = 0;
	for (size_t i = HEADLINE_MIN; i + 1 < len && i <= HEADLINE_MAX; i++)
		if ((msg[i] == ';' || msg[i] == ':') && msg[i + 1] == ' ')
			best = i;
	if (best) {
		*rest = best + 2;
		return best;
	}
	/* no clause boundary: cut before the last space within the limit, or at
	 * a UTF-8 character boundary */
	size_t cut = HEADLINE_MAX;
	for (size_t i = HEADLINE_MAX; i > HEADLINE_MIN; i--)
		if (msg[i] == ' ') {
			cut = i;
			break;
		}
	while (cut > 0 && ((unsigned char)msg[cut] & 0xC0) == 0x80)
		cut--;
	*rest = cut;
	while (*rest < len && msg[*rest] == ' ')
		(*rest)++;
	return cut;
}

struct finding *rule_report(struct rule_ctx *rc, const struct loc *loc, const char *function, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *msg = xvasprintf(fmt, ap);
	va_end(ap);
	size_t len = strlen(msg);
	if (len <= HEADLINE_MAX + 20) {
		struct finding *f = finding_add(rc->out, rc->rule, rc->severity, loc, function, msg);
		free(msg);
		return f;
	}
	size_t rest = 0;
	size_t head = headline_split(msg, len, &rest);
	bool cut = msg[head] != ';' && msg[head] != ':';
	char *h = xasprintf("%.*s%s", (int)head, msg, cut ? " ..." : "");
	struct finding *f = finding_add(rc->out, rc->rule, rc->severity, loc, function, h);
	free(h);
	if (rest < len)
		finding_note(f, loc, "%s%s", cut ? "... " : "", msg + rest);
	free(msg);
	return f;
}
