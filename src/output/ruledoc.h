/* ruledoc.h: the rule documentation pages (rules/<slug>.md), embedded at build
 * time by rules/embed_docs.cmake. */
#ifndef NOGVL_RULEDOC_H
#define NOGVL_RULEDOC_H

struct rule_doc {
	const char *slug;
	const char *text; /* the Markdown page */
};

/* Sorted by slug; terminated by {NULL, NULL}. */
extern const struct rule_doc rule_docs[];
extern const unsigned rule_ndocs;

/* The page of a rule, NULL when it has none (debug rules). */
const char *rule_doc_find(const char *slug);

#endif
