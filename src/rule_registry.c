/* rule_registry.c: the rule list (rules/rule_list.h, sorted by slug), lookup
 * by slug, and rule_report, through which rules report. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rule.h"

#define RULE(id) extern const struct rule_desc rule_##id;
#define DEBUG_RULE(id) RULE(id)
#include "rule_list.h"
#undef RULE
#undef DEBUG_RULE

const struct rule_desc *const rule_list[] = {
#define RULE(id) &rule_##id,
#define DEBUG_RULE(id) RULE(id)
#include "rule_list.h"
#undef RULE
#undef DEBUG_RULE
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
