/* gates.c: offload gate bookkeeping and the Ruby API / with-gvl gates. */
#include "gates.h"

#include <stdarg.h>
#include <stdlib.h>

#include "knowledge.h"
#include "libmodel.h"

const char *gate_name(int gate)
{
	static const char *const names[GATE_COUNT] = {
		"Ruby API",        "rb_thread_call_with_gvl", "thread state", "per-thread error channel",
		"lock across the release", "inputs",      "outputs",      "shared state",
		"file descriptors", "unblocking function", "opaque callees", "work size",
	};
	return gate >= 0 && gate < GATE_COUNT ? names[gate] : "?";
}

const char *gate_state_name(int state)
{
	return state == GATE_FAIL ? "fail" : state == GATE_UNKNOWN ? "cannot verify" : "pass";
}

struct gate_evidence *gate_add(struct gate_result *g, int gate, int state, const struct loc *loc, int32_t fn,
			       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct gate_evidence e = {.gate = gate, .state = state, .loc = *loc, .msg = xvasprintf(fmt, ap), .fn = fn,
				  .ev = -1};
	va_end(ap);
	vec_push(&g->ev, e);
	if (state > g->state[gate])
		g->state[gate] = state;
	return &g->ev.v[g->ev.n - 1];
}

void gate_note_add(struct gate_evidence *e, const struct loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct gate_note n = {*loc, xvasprintf(fmt, ap)};
	va_end(ap);
	vec_push(&e->notes, n);
}

int gate_worst(const struct gate_result *g)
{
	int w = GATE_PASS;
	for (int i = 0; i < GATE_COUNT; i++)
		if (g->state[i] > w)
			w = g->state[i];
	return w;
}

void gate_result_free(struct gate_result *g)
{
	for (size_t i = 0; i < g->ev.n; i++) {
		free(g->ev.v[i].msg);
		for (size_t k = 0; k < g->ev.v[i].notes.n; k++)
			free(g->ev.v[i].notes.v[k].msg);
		vec_free(&g->ev.v[i].notes);
	}
	vec_free(&g->ev);
	vec_free(&g->basis);
}

void gate_basis_add(struct gate_result *g, int gate, const struct lib_model *lm, const struct loc *loc, int32_t fn)
{
	for (size_t i = 0; i < g->basis.n; i++)
		if (g->basis.v[i].gate == gate && g->basis.v[i].lm == lm)
			return;
	struct gate_basis b = {gate, lm, *loc, fn};
	vec_push(&g->basis, b);
}

const struct lib_model *gate_user_basis(const struct gate_result *g)
{
	for (size_t i = 0; i < g->basis.n; i++)
		if (g->basis.v[i].lm->user)
			return g->basis.v[i].lm;
	return NULL;
}

void gate_check_ruby_api(const struct model *m, const struct msite *s, const struct reach_set *rs,
			 struct gate_result *g)
{
	(void)s;
	for (uint32_t i = 0; i < rs->n; i++) {
		uint32_t fi = rs->fns[i];
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->gvl_guard)
				continue;
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
			case RC_ALLOC:
				/* gvl-semantics rule 9: may raise NoMemoryError through
				 * rb_thread_call_with_gvl; fatal on a non-Ruby thread */
				gate_add(g, GATE_RUBY_API, GATE_UNKNOWN, &e->loc, (int32_t)fi,
					 "'%s' allocates with '%s', which needs a Ruby thread and may raise "
					 "NoMemoryError",
					 mf->f->name, u.name);
				break;
			default:
				break;
			}
		}
	}
}
