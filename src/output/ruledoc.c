/* ruledoc.c: see ruledoc.h. */
#include "ruledoc.h"

#include <string.h>

const char *rule_doc_find(const char *slug)
{
	for (unsigned i = 0; i < rule_doc_count; i++)
		if (strcmp(rule_docs[i].slug, slug) == 0)
			return rule_docs[i].text;
	return NULL;
}
