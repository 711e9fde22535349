/* model_iter.c: the walk over what runs without the GVL (model.h:
 * struct nogvl_walk), the policy every rule shares. */
#include "model.h"

#include <string.h>

void nogvl_walk_init(struct nogvl_walk *w, const struct model *m, const struct reach_set *rs, unsigned flags)
{
	memset(w, 0, sizeof(*w));
	w->m = m;
	w->rs = rs;
	w->flags = flags;
}

/* The next function to walk, or false at the end. */
static bool next_function(struct nogvl_walk *w)
{
	const struct model *m = w->m;
	if (w->rs) {
		if (w->pos >= w->rs->n)
			return false;
		w->fi = w->rs->fns[w->pos++];
	} else {
		while (w->pos < m->fns.n && !model_reached(m, CTX_NOGVL, w->pos))
			w->pos++;
		if (w->pos >= m->fns.n)
			return false;
		w->fi = w->pos++;
	}
	w->mf = &m->fns.v[w->fi];
	w->next_ev = 0;
	return true;
}

bool nogvl_walk_next(struct nogvl_walk *w)
{
	for (;;) {
		if (!w->mf || w->next_ev >= w->mf->f->nevents) {
			if (!next_function(w))
				return false;
			continue;
		}
		w->ei = w->next_ev++;
		w->e = &w->mf->f->events[w->ei];
		if (w->e->gvl_guard)
			continue;
		if ((w->flags & NOGVL_SKIP_GEM_CALLS) && w->e->kind == EV_CALL &&
		    (w->e->u.call->indirect || model_func_by_usr(w->m, w->e->u.call->usr)))
			continue;
		return true;
	}
}
