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
	/* debug rules keep their one-line diagnostics whole */
	if (len <= HEADLINE_MAX + 20 || (rc->rule->flags & RULE_DEBUG)) {
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
