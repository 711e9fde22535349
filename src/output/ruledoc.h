/* ruledoc.h: the rule documentation pages (rules/docs/<slug>.md), embedded at
 * build time by cmake/embed.cmake. */
#ifndef NOGVL_RULEDOC_H
#define NOGVL_RULEDOC_H

#include <stddef.h>

struct rule_doc {
	const char *slug;
	const char *text; /* the Markdown page */
	size_t len;
};

/* Sorted by slug; terminated by {NULL, NULL, 0}. */
extern const struct rule_doc rule_docs[];
extern const unsigned rule_doc_count;

/* The page of a rule, NULL when it has none (debug rules). */
const char *rule_doc_find(const char *slug);

#endif
