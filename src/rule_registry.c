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
