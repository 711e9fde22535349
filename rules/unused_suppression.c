/* unused-suppression: a `nogvl-lint: ignore[...]` comment that suppresses nothing.
 * The driver reports it (src/suppress.c) with --report-unused-suppressions
 * or `report_unused_suppressions: true` in .nogvl-lint.yml; run() has nothing
 * to look at in the model. */
#include "rule.h"

static void run(struct rule_ctx *rc)
{
	(void)rc;
}

const struct rule_desc rule_unused_suppression = {
	.slug = "unused-suppression",
	.severity = SEV_WARNING,
	.category = "Suppressions",
	.summary = "A nogvl-lint: ignore comment names a rule that reports nothing on the lines it covers.",
	.rationale = "A suppression that no longer matches anything hides the next real finding on that line, and "
		     "tells readers a problem exists where there is none. It is reported only with "
		     "--report-unused-suppressions (or report_unused_suppressions: true in .nogvl-lint.yml).",
	.fix = "Remove the rule from the comment, or the whole comment when it names no other rule.",
	.flags = 0,
	.run = run,
};
