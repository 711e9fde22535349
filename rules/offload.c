/* offload.c: the offload verdict per release site, and the gates that belong
 * to no other rule area (opaque callees, file descriptors, work size). */
#include "offload.h"
#include "io_fd.h"

#include <stdlib.h>
#include <string.h>

#include "knowledge.h"
#include "ubf.h"

/* Every gate with its checker. A gate whose checker is NULL has no checker in
 * this build: it is "cannot verify", so no site becomes a candidate on the
 * strength of an unchecked gate. */
struct gate_reg {
	int gate;
	gate_checker check;
};

static const struct gate_reg registry[] = {
	{GATE_RUBY_API, gate_check_ruby_api}, /* also records GATE_WITH_GVL */
	{GATE_THREAD_STATE, gate_check_thread_state},
	{GATE_ERROR_CHANNEL, gate_check_error_channel},
	{GATE_LOCK, gate_check_locks},
	{GATE_INPUTS, gate_check_inputs},
	{GATE_OUTPUTS, gate_check_outputs},
	{GATE_SHARED_STATE, gate_check_shared_state},
	{GATE_FD, gate_check_fd},
	{GATE_UBF, gate_check_ubf},
	{GATE_UBF, gate_check_unbounded_wait},
	{GATE_OPAQUE, gate_check_opaque},
	{GATE_WORK_SIZE, gate_check_work_size},
};

const char *offload_verdict_name(int v)
{
	switch (v) {
	case OV_CANDIDATE: return "candidate";
	case OV_NOT_SAFE: return "not offload-safe";
	case OV_CANNOT_VERIFY: return "cannot verify";
	case OV_FLAGGED_SAFE: return "already flagged";
	case OV_FLAGGED_UNSAFE: return "unsafe";
	case OV_FLAGGED_CANNOT_VERIFY: return "already flagged, cannot verify";
	case OV_NOT_APPLICABLE: return "not applicable";
	default: return "not evaluated";
	}
}

bool gate_is_safety(int gate)
{
	return gate != GATE_WORK_SIZE;
}

struct offload_cache {
	uint32_t n;
	struct offload_info *info;
	uint8_t *done;
};

static void cache_free(void *p)
{
	struct offload_cache *c = p;
	for (uint32_t i = 0; i < c->n; i++)
		if (c->done[i])
			gate_result_free(&c->info[i].g);
	free(c->info);
	free(c->done);
	free(c);
}

/* A release under `if (len > THRESHOLD)` (or any size comparison). */
static bool threshold_guarded(const struct model *m, const struct msite *s)
{
	const struct mfunc *mf = &m->fns.v[s->fn];
	if (s->ev >= mf->f->nevents)
		return false;
	int32_t r = mf->f->events[s->ev].region;
	while (r >= 0 && (uint32_t)r < mf->f->nregions) {
		const struct region *rg = &mf->f->regions[r];
		if ((rg->kind == RG_THEN || rg->kind == RG_ELSE) && rg->cond.text &&
		    (strchr(rg->cond.text, '>') || strchr(rg->cond.text, '<')))
			return true;
		r = rg->parent;
	}
	return false;
}

static void evaluate(const struct model *m, const struct msite *s, struct offload_info *oi)
{
	if (s->is_template) {
		oi->verdict = OV_NOT_EVALUATED;
		return;
	}
	if (!s->api || s->api->kind == API_IO_BLOCKING_REGION || s->api->kind == API_THREAD_IO_BLOCKING_REGION ||
	    s->api->removed) {
		oi->verdict = OV_NOT_APPLICABLE;
		return;
	}
	oi->flagged = s->flags_known && (s->flags & NOGVL_OFFLOAD_SAFE);
	oi->threshold_guard = threshold_guarded(m, s);
	struct reach_set rs;
	model_reach_from(m, &s->cb, (int32_t)s->id, &rs);
	for (size_t i = 0; i < ARRAY_SIZE(registry); i++) {
		if (registry[i].check)
			registry[i].check(m, s, &rs, &oi->g);
		else
			gate_add(&oi->g, registry[i].gate, GATE_UNKNOWN, &s->loc, -1,
				 "the %s gate is not checked by this version of nogvl-lint", gate_name(registry[i].gate));
	}
	reach_set_free(&rs);
	if (!s->flags_known)
		gate_add(&oi->g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1, "the flags of this call are not a constant");
	if (s->token_only)
		gate_add(&oi->g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1,
			 "the call was found by the token scan only (the parser lost it): nothing else is known");
	int worst = GATE_PASS;
	for (int gi = 0; gi < GATE_COUNT; gi++)
		if (gate_is_safety(gi) && oi->g.state[gi] > worst)
			worst = oi->g.state[gi];
	oi->small_work = oi->g.state[GATE_WORK_SIZE] == GATE_FAIL;
	if (oi->flagged)
		oi->verdict = worst == GATE_FAIL ? OV_FLAGGED_UNSAFE : worst == GATE_UNKNOWN ? OV_FLAGGED_CANNOT_VERIFY
											 : OV_FLAGGED_SAFE;
	else if (worst == GATE_FAIL || oi->small_work)
		oi->verdict = OV_NOT_SAFE;
	else if (worst == GATE_UNKNOWN)
		oi->verdict = OV_CANNOT_VERIFY;
	else
		oi->verdict = OV_CANDIDATE;
}

const struct offload_info *offload_info(const struct model *m, uint32_t site)
{
	struct model *mm = (struct model *)m; /* the cache slot is mutable by design */
	struct offload_cache *c = mm->ext;
	if (!c) {
		c = xcalloc(1, sizeof(*c));
		c->n = (uint32_t)m->sites.n;
		c->info = xcalloc(c->n + 1, sizeof(*c->info));
		c->done = xcalloc(c->n + 1, 1);
		mm->ext = c;
		mm->ext_free = cache_free;
	}
	if (site >= c->n)
		return NULL;
	if (!c->done[site]) {
		evaluate(m, &m->sites.v[site], &c->info[site]);
		c->done[site] = 1;
	}
	return &c->info[site];
}

/* ---- opaque callees ---- */

void gate_check_opaque(const struct model *m, const struct msite *s, const struct reach_set *rs,
		       struct gate_result *g)
{
	if (!s->cb.ntargets) {
		if (s->cb.nexternal)
			gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1,
				 "the callback '%s' has no body in the project (a library function)", s->cb.external[0]);
		else
			gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1, "the callback '%s' could not be resolved",
				 s->cb.text ? s->cb.text : "?");
		return;
	}
	/* a file with parse errors may have lost the very call that matters */
	const struct tu_facts *seen_bad[8];
	unsigned nbad = 0;
	for (uint32_t i = 0; i <= rs->n; i++) {
		const struct mfunc *mf = i < rs->n ? &m->fns.v[rs->fns[i]] : &m->fns.v[s->data_fn];
		const struct tu_facts *tu = mf->tu;
		if (!tu->nerrors)
			continue;
		bool dup = false;
		for (unsigned k = 0; k < nbad; k++)
			dup = dup || seen_bad[k] == tu;
		if (dup || nbad == ARRAY_SIZE(seen_bad))
			continue;
		seen_bad[nbad++] = tu;
		gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &mf->f->loc, (int32_t)mf->id,
			 "'%s' is in a file that did not parse cleanly (%u error%s): a call may be missing from what "
			 "the engine sees",
			 mf->f->name, tu->nerrors, tu->nerrors == 1 ? "" : "s");
	}
	/* a function nested too deep to walk whole (extract.h: EXTRACT_MAX_DEPTH) */
	for (uint32_t i = 0; i <= rs->n; i++) {
		const struct mfunc *mf = i < rs->n ? &m->fns.v[rs->fns[i]] : &m->fns.v[s->data_fn];
		if (mf->f->flags & FN_TRUNCATED)
			gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &mf->f->loc, (int32_t)mf->id,
				 "'%s' nests statements or expressions too deeply for the engine to see all of it",
				 mf->f->name);
	}
	if (s->cb.partial)
		gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1,
			 "the callback variable '%s' is also assigned values the engine cannot follow",
			 s->cb.text ? s->cb.text : "?");
	for (uint32_t i = 0; i < rs->n; i++) {
		uint32_t fi = rs->fns[i];
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t k = mf->edge_begin; k < mf->edge_end; k++) {
			const struct edge *e = &m->edges.v[k];
			if (e->to >= 0 || mf->f->events[e->ev].gvl_guard)
				continue;
			const struct event *ev = &mf->f->events[e->ev];
			gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &ev->loc, (int32_t)fi,
				 "'%s' calls through a function pointer ('%s') the engine cannot resolve", mf->f->name,
				 ev->u.call->callee.text ? ev->u.call->callee.text : "?");
		}
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || e->gvl_guard || e->u.call->indirect)
				continue;
			const struct call *c = e->u.call;
			if (model_func_by_usr(m, c->usr) || ruby_class_of_call(c) != RC_NONE || ruby_thread_api(c->name))
				continue;
			if (known_safe_call(c->name))
				continue;
			gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &e->loc, (int32_t)fi,
				 "'%s' calls '%s', which has no body here and is not a known thread-safe library call",
				 mf->f->name, c->name);
		}
	}
}

/* ---- file descriptors and FILE * from Ruby IO objects ---- */

/* What a Ruby IO accessor returns belongs to an IO object that another fiber
 * on the calling thread can close while the operation is in flight
 * (gvl-semantics 2.7, RMagick's keep_thread): a descriptor stored into the
 * callback's data fails the gate (design.md, December 2026 revision); any
 * other use of an IO accessor before the call cannot be verified. The
 * recognition (io_fd.c) is io-fd-without-io-region's. */
void gate_check_fd(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	(void)rs;
	const struct mfunc *mf = &m->fns.v[s->data_fn];
	const char *what = NULL;
	int32_t into = io_fd_into_data(m, s, &what);
	if (into >= 0) {
		struct gate_evidence *ev =
			gate_add(g, GATE_FD, GATE_FAIL, &mf->f->events[into].loc, (int32_t)s->data_fn,
				 "'%s' passes a descriptor taken from a Ruby IO (%s) to the callback: another fiber "
				 "can close the IO mid-call",
				 mf->f->name, what);
		ev->ev = into;
		return;
	}
	uint32_t limit = s->data_fn == s->fn ? s->ev : mf->f->nevents;
	for (uint32_t ei = 0; ei < limit && ei < mf->f->nevents; ei++) {
		if (!io_fd_event(m, mf, ei, &what))
			continue;
		gate_add(g, GATE_FD, GATE_UNKNOWN, &mf->f->events[ei].loc, (int32_t)s->data_fn,
			 "'%s' takes %s from a Ruby IO before the release: another fiber could close it mid-call",
			 mf->f->name, what);
		return;
	}
}

/* ---- work size ---- */

void gate_check_work_size(const struct model *m, const struct msite *s, const struct reach_set *rs,
			  struct gate_result *g)
{
	if (!s->cb.ntargets || s->cb.nexternal || rs->n > 8 || rs->nopaque)
		return;
	bool small = true;
	for (uint32_t i = 0; i < rs->n && small; i++) {
		const struct mfunc *mf = &m->fns.v[rs->fns[i]];
		/* a claim of absence needs a clean parse: a missing library header can
		 * hide the call that does the real work */
		if (mf->tu->nerrors || mf->tu->degraded || (mf->f->flags & FN_TRUNCATED)) {
			small = false;
			break;
		}
		for (uint32_t r = 0; r < mf->f->nregions; r++)
			if (mf->f->regions[r].kind == RG_LOOP)
				small = false;
		for (uint32_t k = mf->edge_begin; k < mf->edge_end && small; k++) {
			const struct edge *e = &m->edges.v[k];
			/* recursion or a call back up the chain: unbounded */
			if (e->to >= 0 && rs->by_fn[e->to].reached && (uint32_t)e->to != rs->fns[i]) {
				for (uint32_t j = 0; j <= i; j++)
					if (rs->fns[j] == (uint32_t)e->to)
						small = false;
			} else if (e->to >= 0 && (uint32_t)e->to == rs->fns[i]) {
				small = false;
			}
		}
		for (uint32_t ei = 0; ei < mf->f->nevents && small; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL)
				continue;
			const struct call *c = e->u.call;
			if (c->indirect) {
				small = false;
				break;
			}
			if (model_func_by_usr(m, c->usr))
				continue;
			int sa = cheap_call_size_arg(c->name);
			if (sa >= 0) {
				const struct expr *a = (uint32_t)sa < c->nargs ? &c->args[sa] : NULL;
				if (!a || !a->has_ival || a->ival < 0 || a->ival > 65536)
					small = false;
				continue;
			}
			int rc = ruby_class_of_call(c);
			if (rc == RC_PURE || rc == RC_ALLOWED)
				continue;
			if (!cheap_call(c->name)) {
				small = false;
				break;
			}
		}
	}
	if (!small || threshold_guarded(m, s))
		return;
	const struct mfunc *cb = &m->fns.v[s->cb.targets[0]];
	gate_add(g, GATE_WORK_SIZE, GATE_FAIL, &cb->f->loc, (int32_t)s->cb.targets[0],
		 "'%s' does a bounded, small amount of work (no loop, only constant-size calls)", cb->f->name);
}

/* ---- waits nothing can interrupt ---- */

/* With a NULL UBF, a callback that can block without bound cannot be
 * cancelled: under a worker pool the cancelled fiber waits for it forever
 * (io-event waits for every queued or running operation to finish). */
void gate_check_unbounded_wait(const struct model *m, const struct msite *s, const struct reach_set *rs,
			       struct gate_result *g)
{
	(void)rs;
	if (s->ubf_kind != UBF_NULL && s->ubf_kind != UBF_NONE)
		return;
	struct cb_scan cs;
	ubf_scan_callback(m, s, &cs);
	for (size_t i = 0; i < cs.items.n; i++) {
		const struct cb_item *it = &cs.items.v[i];
		if (it->kind != CI_BLOCKING || it->bound == CB_BOUNDED)
			continue;
		const struct mfunc *mf = &m->fns.v[it->fn];
		gate_add(g, GATE_UBF, GATE_UNKNOWN, &mf->f->events[it->ev].loc, (int32_t)it->fn,
			 "'%s' %s ('%s'%s%s) and the UBF is NULL: a cancelled offloaded operation would wait for it",
			 mf->f->name, it->bound == CB_UNBOUNDED ? "can block without bound" : "may block without bound",
			 it->name, it->why ? ", " : "", it->why ? it->why : "");
		break;
	}
	cb_scan_free(&cs);
}
