/* gates.c: the Ruby API / with-gvl gates (the bookkeeping: src/verdict.c). */
#include "gates.h"

#include "knowledge.h"
#include "libmodel.h"

void gate_basis_add(struct gate_result *g, int gate, const struct lib_model *lm, const struct loc *loc, int32_t fn)
{
	for (size_t i = 0; i < g->basis.n; i++)
		if (g->basis.v[i].gate == gate && g->basis.v[i].lm == lm)
			return;
	struct gate_basis b = {gate, lm, *loc, fn};
	vec_push(&g->basis, b);
}

void gate_check_ruby_api(const struct model *m, const struct msite *s, const struct reach_set *rs,
			 struct gate_result *g)
{
	(void)s;
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, rs, NOGVL_ALL_EVENTS); nogvl_walk_next(&w);) {
		uint32_t fi = w.fi, ei = w.ei;
		const struct mfunc *mf = w.mf;
		const struct event *e = w.e;
		if (e->kind == EV_CALL && str_eq(e->u.call->name, WITH_GVL_API)) {
			gate_add(g, GATE_WITH_GVL, GATE_FAIL, &e->loc, (int32_t)fi,
				 "'%s' calls rb_thread_call_with_gvl: the worker may not be the caller's thread, "
				 "or a Ruby thread at all",
				 mf->f->name);
			continue;
		}
		if (e->kind == EV_CALL && (e->u.call->indirect || model_func_by_usr(m, e->u.call->usr)))
			continue;
		struct ruby_use u = ruby_use_of(mf, ei);
		if (!u.representative)
			continue;
		switch (u.cls) {
		case RC_CALL:
		case RC_MAY_RAISE:
		case RC_RAISES:
			gate_add(g, GATE_RUBY_API, GATE_FAIL, &e->loc, (int32_t)fi, "'%s' calls Ruby API '%s'",
				 mf->f->name, u.name);
			break;
		case RC_ACCESSOR:
			gate_add(g, GATE_RUBY_API, GATE_FAIL, &e->loc, (int32_t)fi,
				 "'%s' reads a Ruby object's internals ('%s')", mf->f->name, u.name);
			break;
		case RC_ALLOC: {
			/* gvl-semantics rule 9: allowed without the GVL, but it blocks
			 * RB_NOGVL_OFFLOAD_SAFE (a pool's native thread is fatal to it,
			 * and NoMemoryError is raised through rb_thread_call_with_gvl,
			 * out of the callback): the gate fails. When
			 * the code wrote a libc name a Ruby header redefines
			 * (strdup after ruby/util.h), say that it is Ruby's */
			const char *hdr = ruby_header_redefines(u.name, e->kind == EV_CALL ? e->u.call->name : NULL);
			if (hdr)
				gate_add(g, GATE_RUBY_API, GATE_FAIL, &e->loc, (int32_t)fi,
					 "'%s' allocates with '%s', which is Ruby's '%s' here (%s redefines it): it "
					 "needs a Ruby thread and may raise NoMemoryError, and an offloaded callback's "
					 "worker may be neither (gvl-semantics rule 9)",
					 mf->f->name, u.name, e->u.call->name, hdr);
			else
				gate_add(g, GATE_RUBY_API, GATE_FAIL, &e->loc, (int32_t)fi,
					 "'%s' allocates with '%s', which needs a Ruby thread and may raise "
					 "NoMemoryError, and an offloaded callback's worker may be neither "
					 "(gvl-semantics rule 9)",
					 mf->f->name, u.name);
			break;
		}
		default:
			break;
		}
	}
}
