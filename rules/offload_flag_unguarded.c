/* offload-flag-unguarded: RB_NOGVL_OFFLOAD_SAFE (Ruby 3.4+) or
 * RB_NOGVL_PENDING_INTR_FAIL (newer) used without #ifdef or a fallback. */
#include <string.h>

#include "rule.h"

static const char *const new_flags[] = {"RB_NOGVL_OFFLOAD_SAFE", "RB_NOGVL_PENDING_INTR_FAIL"};

static bool has_fallback(const struct tu_facts *tu, const char *flag)
{
	for (size_t i = 0; i < tu->pp_defines.n; i++)
		if (strcmp(tu->pp_defines.v[i].name, flag) == 0)
			return true;
	return false;
}

/* Is `line` inside an #if/#ifdef branch whose condition names the flag or a
 * Ruby version? (#else branches of `#ifndef FLAG` count too.) */
static bool guarded(const struct tu_facts *tu, uint32_t line, const char *flag)
{
	for (size_t i = 0; i < tu->pp_conds.n; i++) {
		const struct pp_cond *c = &tu->pp_conds.v[i];
		if (line < c->line_begin || line > c->line_end)
			continue;
		const char *cond = c->cond;
		if (!*cond && i > 0) /* #else: the condition of the branch it follows */
			cond = tu->pp_conds.v[i - 1].cond;
		if (strstr(cond, flag) || strstr(cond, "RUBY_API_VERSION") || strstr(cond, "RUBY_VERSION") ||
		    strstr(cond, "HAVE_RB_FIBER_SCHEDULER"))
			return true;
	}
	return false;
}

/* Is the whole file built only on Rubies that have the flag? extconf.rb adds
 * it to $srcs only under `if have_func("f")` (io-event's worker pool), and
 * every rb_fiber_scheduler_blocking_operation_* function shipped with or
 * after RB_NOGVL_OFFLOAD_SAFE (3.4: _wait; 4.0: _extract/_execute/_cancel).
 * None of them implies RB_NOGVL_PENDING_INTR_FAIL (4.1). */
static bool built_only_with_flag(const struct tu_facts *tu, int flag)
{
	return flag == 0 && tu->build_probe && str_starts(tu->build_probe, "rb_fiber_scheduler_blocking_operation_");
}

/* `#ifdef RB_NOGVL_OFFLOAD_SAFE` itself is recorded as a use of the macro. */
static bool on_directive_line(const struct tu_facts *tu, uint32_t line)
{
	for (size_t i = 0; i < tu->pp_conds.n; i++)
		if (tu->pp_conds.v[i].line_begin == line + 1)
			return true;
	for (size_t i = 0; i < tu->pp_defines.n; i++)
		if (tu->pp_defines.v[i].file == tu->path && tu->pp_defines.v[i].line == line)
			return true;
	return false;
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t t = 0; t < m->ntus; t++) {
		const struct tu_facts *tu = m->tus[t];
		for (size_t i = 0; i < tu->macro_exps.n; i++) {
			const struct macro_exp *me = &tu->macro_exps.v[i];
			int k = str_in_list(me->name, new_flags, ARRAY_SIZE(new_flags));
			if (k < 0 || has_fallback(tu, me->name) || guarded(tu, me->loc.line, me->name) ||
			    on_directive_line(tu, me->loc.line) || built_only_with_flag(tu, k))
				continue;
			rule_report(
				rc, &me->loc, NULL,
				"'%s' is used without #ifdef or a fallback define: Ruby before %s does not define it, "
				"so the gem no longer builds there",
				me->name, k == 0 ? "3.4" : "4.1");
		}
	}
}

const struct rule_desc rule_offload_flag_unguarded = {
	.slug = "offload-flag-unguarded",
	.severity = SEV_WARNING,
	.category = "Offload",
	.summary = "RB_NOGVL_OFFLOAD_SAFE (or RB_NOGVL_PENDING_INTR_FAIL) is used without an #ifdef or a fallback "
		   "define.",
	.rationale = "RB_NOGVL_OFFLOAD_SAFE first shipped in Ruby 3.4 and RB_NOGVL_PENDING_INTR_FAIL is newer: an "
		     "unguarded use is a compile error on every older Ruby the gem supports.",
	.fix = "Add `#ifndef RB_NOGVL_OFFLOAD_SAFE` / `#define RB_NOGVL_OFFLOAD_SAFE 0` / `#endif` after the includes "
	       "(ruby/zlib does this), or put the use under `#ifdef RB_NOGVL_OFFLOAD_SAFE`.",
	.flags = 0,
	.run = run,
};
