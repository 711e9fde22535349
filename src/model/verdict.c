/* verdict.c: the offload verdict data (verdict.h): names, gate evidence
 * bookkeeping, and the missing fact of a "cannot verify" verdict. */
#include "verdict.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "invariant.h"
#include "libmodel.h"
#include "model.h"

static const char *const gate_names[GATE_COUNT] = {
#define GATE_NAME(id, name, safety, check) name,
	GATE_LIST(GATE_NAME)
#undef GATE_NAME
};

static const bool gate_safety[GATE_COUNT] = {
#define GATE_SAFETY(id, name, safety, check) safety,
	GATE_LIST(GATE_SAFETY)
#undef GATE_SAFETY
};

const char *gate_name(int gate)
{
	return gate >= 0 && gate < GATE_COUNT ? gate_names[gate] : "?";
}

bool gate_is_safety(int gate)
{
	return gate >= 0 && gate < GATE_COUNT && gate_safety[gate];
}

const char *gate_state_name(int state)
{
	return state == GATE_FAIL ? "fail" : state == GATE_UNKNOWN ? "cannot verify" : "pass";
}

const char *offload_verdict_name(int v)
{
	switch (v) {
	case OV_CANDIDATE:
		return "candidate";
	case OV_NOT_SAFE:
		return "not offload-safe";
	case OV_CANNOT_VERIFY:
		return "cannot verify";
	case OV_FLAGGED_SAFE:
		return "already flagged";
	case OV_FLAGGED_UNSAFE:
		return "unsafe";
	case OV_FLAGGED_CANNOT_VERIFY:
		return "already flagged, cannot verify";
	case OV_NOT_APPLICABLE:
		return "not applicable";
	default:
		return "not evaluated";
	}
}

const char *verdict_state_name(int v)
{
	switch (v) {
	case OV_CANDIDATE:
	case OV_FLAGGED_SAFE:
		return "safe";
	case OV_NOT_SAFE:
	case OV_FLAGGED_UNSAFE:
		return "unsafe";
	case OV_CANNOT_VERIFY:
	case OV_FLAGGED_CANNOT_VERIFY:
		return "cannot verify";
	default:
		return NULL;
	}
}

const struct site_verdict *site_verdict_of(const struct model *m, uint32_t site)
{
	/* the offload phase runs right after linking, before anything reads a
	 * verdict (run.c: run_analysis) */
	INVARIANT(m->verdicts && m->nverdicts == m->sites.n);
	INVARIANT(site < m->sites.n);
	return &m->verdicts[site];
}

struct gate_evidence *gate_add(struct gate_result *g, int gate, int state, const struct loc *loc, int32_t fn,
			       const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct gate_evidence e =
		{.gate = gate, .state = state, .loc = *loc, .msg = xvasprintf(fmt, ap), .fn = fn, .ev = -1};
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

void gate_fact(struct gate_evidence *e, int kind, const char *name)
{
	e->fact = kind;
	free(e->fact_name);
	e->fact_name = name ? xstrdup(name) : NULL;
}

int gate_worst(const struct gate_result *g)
{
	int w = GATE_PASS;
	for (int i = 0; i < GATE_COUNT; i++)
		if (g->state[i] > w)
			w = g->state[i];
	return w;
}

void gate_evidence_free(struct gate_evidence *e)
{
	free(e->msg);
	free(e->fact_name);
	for (size_t k = 0; k < e->notes.n; k++)
		free(e->notes.v[k].msg);
	vec_free(&e->notes);
}

void gate_result_free(struct gate_result *g)
{
	for (size_t i = 0; i < g->ev.n; i++)
		gate_evidence_free(&g->ev.v[i]);
	vec_free(&g->ev);
	vec_free(&g->basis);
}

void site_verdicts_free(struct site_verdict *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		gate_result_free(&v[i].g);
	free(v);
}

const char *fact_kind_name(int kind)
{
	switch (kind) {
	case FACT_HEADER:
		return "header";
	case FACT_PARSE:
		return "parse";
	case FACT_FNPTR:
		return "function pointer";
	case FACT_MODEL:
		return "library model";
	case FACT_FLAGS:
		return "flags";
	case FACT_DATA:
		return "data origin";
	case FACT_OTHER:
		return "evidence";
	default:
		return "none";
	}
}

/* The kind of one piece of "cannot verify" evidence: what the checker said,
 * else by gate. */
static int fact_of(const struct gate_evidence *e)
{
	if (e->fact != FACT_NONE)
		return e->fact;
	if (e->gate == GATE_INPUTS || e->gate == GATE_OUTPUTS)
		return FACT_DATA;
	return FACT_OTHER;
}

void missing_fact_choose(const struct gate_result *g, struct missing_fact *out)
{
	memset(out, 0, sizeof(*out));
	out->gate = -1;
	unsigned n = 0;
	for (size_t i = 0; i < g->ev.n; i++) {
		const struct gate_evidence *e = &g->ev.v[i];
		if (e->state != GATE_UNKNOWN || !gate_is_safety(e->gate) || g->state[e->gate] != GATE_UNKNOWN)
			continue;
		n++;
		int k = fact_of(e);
		if (out->kind == FACT_NONE || k < out->kind) {
			out->kind = k;
			out->name = e->fact_name;
			out->gate = e->gate;
			out->ev = e;
		}
	}
	out->others = n ? n - 1 : 0;
	/* evidence that names nothing it misses (no function, header or
	 * pointer): the gate it leaves undecided is the name */
	if (out->kind == FACT_OTHER && !out->name)
		out->name = gate_name(out->gate);
}

char *missing_fact_text(const struct missing_fact *mf)
{
	const struct gate_evidence *e = mf->ev;
	const char *msg = e ? e->msg : "?";
	const char *name = mf->name ? mf->name : "?";
	char *t;
	switch (mf->kind) {
	case FACT_HEADER:
		t = xasprintf("install the header '%s' (a file the callback needs did not parse without it)", name);
		break;
	case FACT_PARSE:
		t = xasprintf("make '%s' parse without errors (%s)", name, msg);
		break;
	case FACT_FNPTR:
		t = xasprintf("resolve the function pointer '%s': which functions can it call? (%s)", name, msg);
		break;
	case FACT_MODEL:
		t = xasprintf("add a library model for '%s': is it thread-safe, may it block, does it touch "
			      "process-wide state? (%s)",
			      name, msg);
		break;
	case FACT_FLAGS:
		t = xasprintf("make the flags argument a constant (%s)", msg);
		break;
	case FACT_DATA:
		t = xasprintf("establish where the callback's data comes from and who else can reach it (%s)", msg);
		break;
	case FACT_OTHER:
		t = xasprintf("decide the %s gate: %s", gate_name(mf->gate), msg);
		break;
	default:
		return xstrdup("nothing: the verdict is decided");
	}
	if (!mf->others)
		return t;
	char *all = xasprintf("%s; %u more cannot-verify item%s after it", t, mf->others, mf->others == 1 ? "" : "s");
	free(t);
	return all;
}

const struct lib_model *gate_user_basis(const struct gate_result *g)
{
	for (size_t i = 0; i < g->basis.n; i++)
		if (g->basis.v[i].lm->user)
			return g->basis.v[i].lm;
	return NULL;
}

void offload_withheld_advice(const struct site_verdict *oi, const char **pre, const char **post)
{
	if (oi->withheld_by && strcmp(oi->withheld_by, "ubf-ignored") == 0) {
		*pre = "make the callback honour the unblocking function of the call at";
		*post = "first (ubf-ignored): an offloaded call is cancelled through its UBF, and a cancel it ignores "
			"holds the fiber and a pool worker for the callback's whole run";
		return;
	}
	*pre = "move the cleanup at";
	*post = "into an rb_ensure handler first (offloading adds a cancellation path that raises)";
}
