/* inputs_sites.c: the walk over release sites and their inputs
 * (inputs_flow.h: struct io_sites). */
#include <string.h>

#include "inputs_flow.h"

void io_sites_init(struct io_sites *it, const struct model *m, bool analyse)
{
	memset(it, 0, sizeof(*it));
	it->m = m;
	it->analyse = analyse;
}

void io_sites_end(struct io_sites *it)
{
	if (it->have)
		io_free(&it->a);
	it->have = false;
	it->s = NULL;
}

bool io_sites_next(struct io_sites *it)
{
	io_sites_end(it);
	while (it->next < it->m->sites.n) {
		const struct msite *s = &it->m->sites.v[it->next++];
		if (!io_first_for_data(it->m, s))
			continue;
		it->s = s;
		if (it->analyse) {
			io_analyse(it->m, s, &it->a);
			it->have = true;
		}
		return true;
	}
	return false;
}
