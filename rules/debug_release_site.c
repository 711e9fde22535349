/* debug-release-site: reports every GVL-release site the engine found, with
 * how its callback was resolved. For engine tests and audits; off by default. */
#include "rule.h"

static void append_targets(struct strbuf *sb, const struct model *m, const struct cbres *r)
{
	if (!r->ntargets && !r->nexternal) {
		sb_puts(sb, r->how == CB_NULL       ? "NULL"
			    : r->how == CB_SENTINEL ? (r->macro ? r->macro : "sentinel")
						    : "?");
		return;
	}
	for (uint32_t i = 0; i < r->ntargets; i++)
		sb_printf(sb, "%s'%s'", i ? "|" : "", m->fns.v[r->targets[i]].f->name);
	for (uint32_t i = 0; i < r->nexternal; i++)
		sb_printf(sb, "%s'%s' (no body)", (i || r->ntargets) ? "|" : "", r->external[i]);
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		struct strbuf sb = {0};
		char fl[128];
		sb_printf(&sb, "%s site%s: %s", s->is_template ? "wrapper" : "release",
			  s->unreachable ? " (unreachable: nothing in the gem calls the function)" : "",
			  s->api ? s->api->name : "?");
		if (s->inner >= 0)
			sb_printf(&sb, " via '%s'", s->called);
		sb_puts(&sb, ", callback ");
		append_targets(&sb, m, &s->cb);
		sb_printf(&sb, " (%s)", cb_how_text(s->cb.how));
		if (s->ubf_kind != UBF_NONE) {
			sb_printf(&sb, ", ubf %s", ubf_kind_text(s->ubf_kind));
			if (s->ubf_kind == UBF_FUNC) {
				sb_putc(&sb, ' ');
				append_targets(&sb, m, &s->ubf);
			}
		}
		sb_printf(&sb, ", flags %s", s->flags_known ? gvl_flags_text(s->flags, fl, sizeof(fl)) : "unknown");
		struct finding *f = rule_report(rc, &s->loc, m->fns.v[s->fn].f->name, "%s", sb_str(&sb));
		if (s->macro)
			finding_note(f, &s->loc, "expanded from macro '%s'", s->macro);
		sb_free(&sb);
	}
}

const struct rule_desc rule_debug_release_site = {
	.slug = "debug-release-site",
	.severity = SEV_NOTE,
	.category = "Engine",
	.summary = "Lists every GVL-release site found and how its callback was resolved.",
	.rationale = "Lets tests and auditors check what the engine sees: the API, the callback, the UBF and the flags "
		     "of each release, including calls through wrapper functions and macros.",
	.fix = "Nothing to fix: this is a diagnostic rule, enabled with --enable debug-release-site.",
	.flags = RULE_DEBUG,
	.run = run,
};
