/* rule.h: the rule interface, part of the engine. One rule per file in
 * rules/, each with a `const struct rule_desc` that --list-rules, --explain
 * and the rule docs come from, listed in rules/rule_list.h (read that file's
 * "Adding a rule"). Rules read the linked model (model.h) and report findings
 * (report.h); they never walk the AST. rule_registry.c holds the list.
 */
#ifndef NOGVL_RULE_H
#define NOGVL_RULE_H

#include "model.h"
#include "report.h"

enum rule_flags {
	RULE_DEBUG = 1u << 0,        /* engine diagnostics for the corpus; off unless enabled */
	RULE_OFFLOAD_ONLY = 1u << 1, /* fires only for calls that pass RB_NOGVL_OFFLOAD_SAFE */
};

struct rule_ctx;

struct rule_desc {
	const char *slug;      /* stable name, e.g. "ruby-api-without-gvl" */
	int severity;          /* default severity (enum severity) */
	const char *category;  /* "GVL misuse", "Inputs and outputs", ... */
	const char *summary;   /* one line */
	const char *rationale; /* why it matters */
	const char *fix;       /* how to fix */
	unsigned flags;        /* enum rule_flags */
	void (*run)(struct rule_ctx *rc);
};

struct rule_ctx {
	const struct model *m;
	const struct rule_desc *rule;
	struct findings *out;
	int severity; /* effective severity for this run */
};

/* All rules, sorted by slug (rules/rule_list.h). */
extern const struct rule_desc *const rule_list[];
extern const unsigned rule_count;
const struct rule_desc *rule_find(const char *slug);
/* The rule a misspelt name most likely meant (edit distance at most a
 * third of its length, at least 2; "all" counts as a name), or NULL. */
const char *rule_suggest(const char *name);

/* Starts a finding of rc's rule at loc. */
struct finding *rule_report(struct rule_ctx *rc, const struct loc *loc, const char *function, const char *fmt, ...)
	PRINTF_LIKE(4, 5);

#endif
