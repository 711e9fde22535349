/* state_gates_errchan.c: GATE_ERROR_CHANNEL (thread-local-state): error
 * channels set by the callback and read by the caller after the call
 * (state_ctx.h). */
#include "state_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "process_state.h"
#include "rule.h"
#include "state_knowledge.h"

/* ---- GATE_ERROR_CHANNEL ---- */

struct chan_read {
	int32_t fn; /* where the read is (deepest) */
	int32_t ev;
	const char *name;
};

enum {
	CH_NONE = 2,
	CH_READ = 3,
	CH_CLEAR = 4
};

/* Regions after whose events a channel counts as cleared (or refilled by the
 * function's own checked call): a clear inside an if-branch covers only that
 * branch, so a read in the else-branch or after the if still counts (the
 * gate errs towards "fail"). */
struct cleared {
	int32_t rg[8];
	unsigned n;
	bool all;
};

static void cleared_add(struct cleared *c, const struct func *f, int32_t region)
{
	if (region < 0 || f->regions[region].kind == RG_BODY) {
		c->all = true;
		return;
	}
	if (c->n < 8)
		c->rg[c->n++] = region;
}

static bool cleared_covers(const struct cleared *c, const struct func *f, int32_t region)
{
	if (c->all)
		return true;
	for (unsigned i = 0; i < c->n; i++)
		if (region_within(f, region, c->rg[i]))
			return true;
	return false;
}

static const struct mfunc *chan_callee(const struct model *m, const struct event *e)
{
	return e->kind == EV_CALL ? project_callee(m, e->u.call) : NULL;
}

/* What calling project function fn does to `channel` first: reads it (the
 * read may be below fn, recorded in found[fn]), clears it, or neither.
 * memo: 0 unknown, 1 busy, else CH_*. */
static int chan_effect(const struct model *m, uint32_t fn, int channel, uint8_t *memo, struct chan_read *found);

/* The effect of event ei of f on `channel`: CH_READ (with *rd), CH_CLEAR,
 * or CH_NONE; *refill: a checked call of a library that writes the channel. */
static int event_chan(const struct model *m, const struct mfunc *mf, uint32_t ei, int channel, uint8_t *memo,
		      struct chan_read *found, struct chan_read *rd, bool *refill)
{
	const struct event *e = &mf->f->events[ei];
	*refill = false;
	if (e->kind != EV_CALL || e->u.call->indirect)
		return CH_NONE;
	const struct mfunc *callee = chan_callee(m, e);
	if (callee) {
		int sub = chan_effect(m, callee->id, channel, memo, found);
		if (sub == CH_READ)
			*rd = found[callee->id];
		return sub;
	}
	struct err_channel_fn ecb;
	const struct err_channel_fn *ec = err_channel_find(e->u.call->name, &ecb) ? &ecb : NULL;
	if (ec && ec->channel == channel) {
		if (ec->clears)
			return CH_CLEAR;
		*rd = (struct chan_read){(int32_t)mf->id, (int32_t)ei, call_display(e)};
		return CH_READ;
	}
	/* a checked call of the library fills the channel again; a void cleanup
	 * such as EVP_PKEY_CTX_free does not count */
	if (!ec && e->u.call->result_used && err_channel_producer(channel, e->u.call->name, e->u.call->decl_file))
		*refill = true;
	return CH_NONE;
}

static int chan_effect(const struct model *m, uint32_t fn, int channel, uint8_t *memo, struct chan_read *found)
{
	if (memo[fn] >= CH_NONE)
		return memo[fn];
	if (memo[fn])
		return CH_NONE; /* recursion */
	memo[fn] = 1;
	const struct mfunc *mf = &m->fns.v[fn];
	int r = CH_NONE;
	struct cleared cl = {0};
	for (uint32_t ei = 0; ei < mf->f->nevents && r == CH_NONE; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (cleared_covers(&cl, mf->f, e->region))
			continue;
		struct chan_read rd;
		bool refill;
		int eff = event_chan(m, mf, ei, channel, memo, found, &rd, &refill);
		if (eff == CH_READ) {
			found[fn] = rd;
			r = CH_READ;
		} else if (eff == CH_CLEAR || refill) {
			if (e->region < 0 || mf->f->regions[e->region].kind == RG_BODY)
				r = eff == CH_CLEAR ? CH_CLEAR : CH_NONE;
			cleared_add(&cl, mf->f, e->region);
			if (cl.all)
				break;
		}
	}
	memo[fn] = (uint8_t)r;
	return r;
}

/* A library call in the callback that can leave an error on `channel`. */
static bool chan_producer(const struct model *m, const struct msite *s, const struct reach_set *rs, int channel,
			  uint32_t *pfn, uint32_t *pev)
{
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, rs, NOGVL_ALL_EVENTS); nogvl_walk_next(&w);) {
		const struct event *e = w.e;
		if (!library_call(m, e) || err_channel_find(e->u.call->name, NULL))
			continue;
		if (err_channel_producer(channel, e->u.call->name, e->u.call->decl_file)) {
			*pfn = w.fi;
			*pev = w.ei;
			return true;
		}
	}
	for (uint32_t i = 0; i < s->cb.nexternal; i++)
		if (err_channel_producer(channel, s->cb.external[i], NULL)) {
			*pfn = UINT32_MAX;
			*pev = UINT32_MAX;
			return true;
		}
	return false;
}

void gate_check_error_channel(const struct model *m, const struct msite *s, const struct reach_set *rs,
			      struct gate_result *g)
{
	const struct mfunc *caller = &m->fns.v[s->fn];
	uint32_t end = next_site_event(m, s);
	enum {
		NCH = ERRCH_LIBXML2 + 1
	};
	bool done[NCH] = {0};
	struct cleared cl[NCH];
	memset(cl, 0, sizeof(cl));
	uint8_t *memo[NCH] = {0};
	struct chan_read *found[NCH] = {0};
	for (int ch = 1; ch < NCH; ch++) {
		memo[ch] = xcalloc(m->fns.n + 1, 1);
		found[ch] = xcalloc(m->fns.n + 1, sizeof(struct chan_read));
	}
	for (uint32_t ei = s->ev + 1; ei < end; ei++) {
		const struct event *e = &caller->f->events[ei];
		if (e->kind != EV_CALL || e->u.call->indirect)
			continue;
		const struct mfunc *callee = chan_callee(m, e);
		for (int ch = 1; ch < NCH; ch++) {
			if (done[ch] || cleared_covers(&cl[ch], caller->f, e->region))
				continue;
			struct chan_read rd = {-1, -1, NULL};
			bool refill;
			int eff = event_chan(m, caller, ei, ch, memo[ch], found[ch], &rd, &refill);
			if (eff == CH_CLEAR || refill) {
				cleared_add(&cl[ch], caller->f, e->region);
				continue;
			}
			if (eff != CH_READ)
				continue;
			done[ch] = true; /* the first read is the one that matters */
			uint32_t pfn = 0, pev = 0;
			bool produced = chan_producer(m, s, rs, ch, &pfn, &pev);
			if (!produced) {
				if (rs->nopaque || (!s->cb.ntargets && !s->cb.nexternal))
					gate_add(
						g, GATE_ERROR_CHANNEL, GATE_UNKNOWN, &e->loc, -1,
						"'%s' reads %s after the call; cannot tell whether the callback leaves "
						"errors there",
						caller->f->name, err_channel_text(ch));
				continue;
			}
			struct gate_evidence *ev;
			if (callee)
				ev = gate_add(g, GATE_ERROR_CHANNEL, GATE_FAIL, &e->loc, -1,
					      "'%s' reads %s (through '%s') after the call, but with "
					      "RB_NOGVL_OFFLOAD_SAFE the callback's errors stay on the worker thread; "
					      "return the error from the callback",
					      caller->f->name, err_channel_text(ch), callee->f->name);
			else
				ev = gate_add(g, GATE_ERROR_CHANNEL, GATE_FAIL, &e->loc, -1,
					      "'%s' reads %s with '%s' after the call, but with RB_NOGVL_OFFLOAD_SAFE "
					      "the callback's errors stay on the worker thread; return the error from "
					      "the callback",
					      caller->f->name, err_channel_text(ch), rd.name);
			ev->rule = "thread-local-state";
			ev->ev = (int32_t)ei;
			if (callee && rd.fn >= 0) {
				const struct mfunc *rf = &m->fns.v[rd.fn];
				gate_note_add(ev, &rf->f->events[rd.ev].loc, "'%s' reads it here with '%s'",
					      rf->f->name, rd.name);
			}
			if (pfn != UINT32_MAX) {
				const struct mfunc *pf = &m->fns.v[pfn];
				const struct event *pe = &pf->f->events[pev];
				gate_note_add(ev, &pe->loc,
					      "'%s' in '%s', run without the GVL, can leave its errors there",
					      call_display(pe), pf->f->name);
			}
		}
	}
	for (int ch = 0; ch < NCH; ch++) {
		free(memo[ch]);
		free(found[ch]);
	}
}
