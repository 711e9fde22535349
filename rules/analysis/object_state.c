/* object_state.c: the object-state part of the offload gate (design.md
 * section 5, gvl-semantics.md 2.9).
 *
 * With RB_NOGVL_OFFLOAD_SAFE the callback runs on a worker while the other
 * fibers of the calling thread keep running, so state that lives in a Ruby
 * object's C struct (the typed data of a connection, a stream, a statement)
 * can be used by another fiber during the call. The gate fails such state
 * unless the gem visibly serialises use of the object:
 *   - a Ruby mutex held across the call (rb_mutex_synchronize with the
 *     release below it, or rb_mutex_lock before and rb_mutex_unlock after),
 *   - or an in-progress flag of the same object set before the call, cleared
 *     after it and checked (read in a condition) on the way in;
 * and the guard counts only when every other function that touches the same
 * field takes it too (or is only called from functions that do). Functions
 * that see the object before anyone else can (its allocator, initialize) or
 * after (free, mark, memsize, compact: the GC's callbacks) are exempt.
 *
 * "Object state" is found by type: a struct type is an object's C struct when
 * some function of the project takes a pointer to it out of a typed/data
 * object (TypedData_Get_Struct, DATA_PTR ...). The callback's accesses to a
 * field of such a struct through a pointer are the evidence.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "object_state.h"

/* The tables of struct ostate depend on the model alone: one offload_compute builds
 * them once for all its sites (object_state_begin/end) instead of once per
 * site, which walked every event of the gem three times per release site. */
static struct ostate shared;
static bool shared_active;

void object_state_begin(const struct model *m)
{
	object_state_end();
	memset(&shared, 0, sizeof(shared));
	shared.m = m;
	find_records(&shared);
	shared_active = true;
}

void object_state_end(void)
{
	if (!shared_active)
		return;
	free_ostate(&shared);
	memset(&shared, 0, sizeof(shared));
	shared_active = false;
}
/* ---- settling the inputs gate's "owned by the receiver" evidence ---- */

/* Which object struct a piece of the inputs gate's evidence is about: the
 * typed-data pointer taken at its line, or the object field used there; NULL
 * when none or more than one. */
static bool reads_receiver(const struct mfunc *mf, const struct expr *x)
{
	const struct func *f = mf->f;
	int32_t self = f->nparams ? f->params[0] : -1;
	return self >= 0 && expr_reads_var(x, self);
}

/* self_only: only the receiver's own typed data (TypedData_Get_Struct(self,
 * ...)) in a function that is private to the object's creation, or the
 * object a function makes; a field used elsewhere does not count. */
static const char *evidence_record(const struct ostate *os, const struct gate_evidence *ge, bool self_only)
{
	const char *found = NULL;
	if (!ge->loc.file)
		return NULL;
	for (uint32_t fi = 0; fi < os->m->fns.n; fi++) {
		const struct mfunc *mf = &os->m->fns.v[fi];
		if (!mf->f->loc.file || !str_eq(mf->f->loc.file, ge->loc.file))
			continue;
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->loc.line != ge->loc.line || !e->loc.file || !str_eq(e->loc.file, ge->loc.file))
				continue;
			const char *rec = NULL;
			char fld[128];
			if (e->kind == EV_ASSIGN && io_typed_data_expr(mf, &e->u.assign->rhs) &&
			    e->u.assign->lhs.var >= 0 && !(e->u.assign->lhs.path && *e->u.assign->lhs.path)) {
				rec = var_record(mf, e->u.assign->lhs.var);
				if (self_only && !reads_receiver(mf, &e->u.assign->rhs) && !makes_object(mf->f))
					return NULL;
			} else if (self_only && (e->kind == EV_ACCESS || e->kind == EV_ASSIGN)) {
				const char *r2 = NULL;
				char f2[128];
				const struct ref *r = e->kind == EV_ACCESS ? &e->u.access->ref : &e->u.assign->lhs;
				if (object_field(os, mf, r, &r2, f2, sizeof(f2)))
					return NULL;
				continue;
			} else if (e->kind == EV_ACCESS)
				object_field(os, mf, &e->u.access->ref, &rec, fld, sizeof(fld));
			else if (e->kind == EV_ASSIGN)
				object_field(os, mf, &e->u.assign->lhs, &rec, fld, sizeof(fld));
			if (!rec || !is_object_record(os, rec))
				continue;
			if (found && !str_eq(found, rec))
				return NULL;
			found = rec;
		}
	}
	return found;
}

/* Drops the inputs gate's "cannot verify: memory owned by the receiver"
 * evidence (evidence [0, upto) of GATE_INPUTS at the caller side) that is
 * about one of the settled object structs: every use of them is serialised
 * (or the object is still private to its creator). */
static void settle(struct ostate *os, struct gate_result *g, size_t from, size_t upto, const char *const *settled,
		   unsigned ns, bool self_only)
{
	size_t w = 0;
	for (size_t i = 0; i < g->ev.n; i++) {
		struct gate_evidence *ge = &g->ev.v[i];
		bool drop = false;
		if (i >= from && i < upto && ge->gate == GATE_INPUTS && ge->state == GATE_UNKNOWN && ge->object_owned) {
			/* a field the flow named is that object's; the receiver's own
			 * privacy is judged by the line (a handle from another object
			 * stays) */
			const char *rec = ge->obj_rec && !self_only ? ge->obj_rec : evidence_record(os, ge, self_only);
			for (unsigned k = 0; rec && k < ns && !drop; k++)
				drop = str_eq(settled[k], rec);
		}
		if (drop) {
			gate_evidence_free(ge);
			continue;
		}
		g->ev.v[w++] = *ge;
	}
	g->ev.n = w;
	int st = GATE_PASS;
	for (size_t i = 0; i < g->ev.n; i++)
		if (g->ev.v[i].gate == GATE_INPUTS && g->ev.v[i].state > st)
			st = g->ev.v[i].state;
	g->state[GATE_INPUTS] = st;
}

/* ---- the checker ---- */

struct ofield {
	const char *rec;
	char field[128];
	const char *text; /* as written in the callback */
	struct loc loc;
	int32_t fn; /* the function using it; -1: the callback's data, from the caller side */
	bool cb;    /* used by the callback's own code (not from the inputs gate's evidence) */
	/* the handle is the object's whole typed data (evidence obj_whole): rec
	 * is the data type (io_typed_data_type), obj the object it was taken from */
	bool whole;
	const char *obj;
};

static const char *ofield_user(const struct model *m, const struct msite *s, const struct ofield *of)
{
	return of->fn >= 0 ? m->fns.v[of->fn].f->name : io_callback_name(m, s);
}

/* The object fields of one run: the callback's own (the first ncb), then
 * those of the inputs gate's evidence. */
struct ofields {
	struct ofield v[MAX_FIELDS];
	unsigned n, ncb;
};

/* The fields the callback's own code uses. */
static void cb_fields(const struct ostate *os, const struct reach_set *rs, struct ofields *fs)
{
	const struct model *m = os->m;
	struct ofield *fields = fs->v;
	unsigned nf = fs->n;
	for (uint32_t i = 0; i < rs->n && nf < MAX_FIELDS; i++) {
		const struct mfunc *mf = &m->fns.v[rs->fns[i]];
		for (uint32_t ei = 0; ei < mf->f->nevents && nf < MAX_FIELDS; ei++) {
			const struct event *e = &mf->f->events[ei];
			const struct ref *r = e->kind == EV_ACCESS   ? &e->u.access->ref
					      : e->kind == EV_ASSIGN ? &e->u.assign->lhs
								     : NULL;
			const char *rec = NULL;
			char fld[128];
			if (!r || !object_field(os, mf, r, &rec, fld, sizeof(fld)))
				continue;
			bool dup = false;
			for (unsigned k = 0; k < nf && !dup; k++)
				dup = str_eq(fields[k].rec, rec) && str_eq(fields[k].field, fld);
			if (dup)
				continue;
			struct ofield *of = &fields[nf++];
			of->rec = rec;
			snprintf(of->field, sizeof(of->field), "%s", fld);
			of->text = ref_text(mf->tu, r);
			of->loc = e->loc;
			of->fn = (int32_t)rs->fns[i];
			of->cb = true;
		}
	}
	fs->n = fs->ncb = nf;
}

/* Object state the inputs gate followed into the callback's data (a handle
 * stored in the object, `this->pgconn`): evidence [from, inputs_ev). */
static void evidence_fields(const struct ostate *os, const struct msite *s, const struct gate_result *g, size_t from,
			    size_t inputs_ev, struct ofields *fs)
{
	const struct model *m = os->m;
	struct ofield *fields = fs->v;
	unsigned nf = fs->n;
	for (size_t i = from; i < inputs_ev && nf < MAX_FIELDS; i++) {
		const struct gate_evidence *ge = &g->ev.v[i];
		if (ge->gate != GATE_INPUTS || ge->state != GATE_UNKNOWN || !ge->object_owned || !ge->obj_rec ||
		    !ge->obj_field || !(ge->obj_whole || is_object_record(os, ge->obj_rec)))
			continue;
		const char *fld = ge->obj_whole ? "" : ge->obj_field;
		bool dup = false;
		for (unsigned k = 0; k < nf && !dup; k++)
			dup = str_eq(fields[k].rec, ge->obj_rec) && str_eq(fields[k].field, fld);
		if (dup)
			continue;
		struct ofield *of = &fields[nf++];
		memset(of, 0, sizeof(*of));
		of->rec = ge->obj_rec;
		of->whole = ge->obj_whole;
		of->obj = ge->obj_whole ? ge->obj_field : NULL;
		snprintf(of->field, sizeof(of->field), "%s", fld);
		of->text = ge->fact_name ? arena_printf(&m->fns.v[s->fn].tu->arena, "%s", ge->fact_name) : NULL;
		of->loc = ge->loc;
		of->fn = ge->fn;
		of->cb = false;
	}
	fs->n = nf;
}

/* Some ways into the call take the guard, the one through open_fn does not. */
static void report_open_way(const struct ostate *os, struct gate_result *og, const char *cb, const struct ofield *of,
			    const struct guard *gd, int64_t open_fn)
{
	const struct model *m = os->m;
	struct gate_evidence *ev = gate_add(
		og, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
		"'%s' uses '%s' (field '%s' of %s, a Ruby object's C struct); %s '%s' guards some ways "
		"into "
		"the call but not the one through '%s': with RB_NOGVL_OFFLOAD_SAFE other fibers of the "
		"calling thread may use or close the object while the worker runs",
		cb, of->text ? of->text : of->field, of->field, of->rec,
		gd->kind == GUARD_MUTEX ? "the mutex" : "the in-progress flag", gd->what, m->fns.v[open_fn].f->name);
	gate_note_add(ev, &gd->loc, "the guard is taken here");
	gate_note_add(ev, &m->fns.v[open_fn].f->loc, "'%s' reaches the call without it", m->fns.v[open_fn].f->name);
}

/* No guard at all: one piece of evidence per object struct (field k, the
 * first of its struct), and how many more fields the callback uses. */
static void report_unguarded(const struct ostate *os, struct gate_result *og, const char *cb, const struct ofields *fs,
			     unsigned k)
{
	const struct ofield *fields = fs->v, *of = &fs->v[k];
	unsigned nf = fs->n;
	unsigned more = 0;
	for (unsigned j = k + 1; j < nf; j++)
		more += str_eq(fields[j].rec, of->rec);
	char extra[64] = "", why[sizeof(os->why) + 4] = "";
	if (more)
		snprintf(extra, sizeof(extra), " and %u more field%s", more, more == 1 ? "" : "s");
	if (os->why[0])
		snprintf(why, sizeof(why), " (%s)", os->why);
	struct gate_evidence *ev =
		gate_add(og, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
			 "'%s' uses '%s'%s of %s, a Ruby object's C struct, with no in-progress flag or mutex "
			 "held across the call%s: with RB_NOGVL_OFFLOAD_SAFE other fibers of the calling "
			 "thread keep running and may use or close the object while the worker runs",
			 cb, of->text ? of->text : of->field, extra, of->rec, why);
	if (os->why[0])
		gate_note_add(ev, &os->why_loc, "%s", os->why);
}

/* The first other function touching the object's state without the guard
 * (bad), the names of further ones, and whether one only touches another
 * field of the object (open). */
struct holes {
	bool bad, open;
	uint32_t bad_fi;
	const struct event *bad_te;
	const struct ofield *bad_tf;
	char others[256];
	unsigned nothers;
};

/* Every other function touching a field the callback uses must take the
 * guard; one using another field of the object without it leaves the
 * verdict open (the callback may reach that field's memory through a pointer
 * the gate does not follow). */
static void find_holes(struct ostate *os, const struct reach_set *rs, uint32_t rel_fn, const struct ofields *fs,
		       const struct ofield *of, const struct guard *gd, struct holes *h)
{
	const struct model *m = os->m;
	const struct ofield *fields = fs->v;
	unsigned nf = fs->n;
	/* methods first (what another fiber calls), then helpers; after the
	 * first hole, the other functions with one are named too */
	for (uint32_t pass_fi = 0; pass_fi < 2 * m->fns.n; pass_fi++) {
		uint32_t fi = pass_fi % m->fns.n;
		if ((pass_fi < m->fns.n) != ((role_of(os, fi) & ROLE_METHOD) != 0))
			continue;
		if (rs->by_fn[fi].reached || fi == rel_fn || exempt_fn(os, fi))
			continue;
		const struct event *te = NULL;
		const struct ofield *tf = NULL;
		for (unsigned j = 0; j < nf && !te; j++)
			if (str_eq(fields[j].rec, of->rec) &&
			    (te = touches(os, fi, of->rec, fields[j].field, false, NULL)))
				tf = &fields[j];
		if (!te && gd->kind == GUARD_FLAG)
			te = touches(os, fi, of->rec, gd->field, true, NULL); /* clears the flag */
		/* any other use of the object (memset(s->buf ...) writes through a
		 * field it only reads) leaves the verdict open */
		const struct event *we = te ? NULL : touches(os, fi, of->rec, NULL, false, gd->field);
		if ((!te && !we) || takes_guard(os, fi, gd, UP_DEPTH))
			continue;
		if (!te) {
			h->open = true;
			continue;
		}
		if (h->bad) {
			size_t len = strlen(h->others);
			if (h->nothers < 8 && len + strlen(m->fns.v[fi].f->name) + 8 < sizeof(h->others))
				snprintf(h->others + len, sizeof(h->others) - len, "%s'%s'", h->nothers ? ", " : "",
					 m->fns.v[fi].f->name);
			h->nothers++;
			continue;
		}
		h->bad_fi = fi, h->bad_te = te, h->bad_tf = tf;
		h->bad = true;
	}
}

/* The guarded object's state is touched by bad_fi without the guard. */
static void report_hole(const struct ostate *os, struct gate_result *og, const char *cb, const struct ofield *of,
			const struct guard *gd, const struct holes *h)
{
	const struct model *m = os->m;
	const char *tfld = h->bad_tf ? h->bad_tf->field : gd->field;
	char more[300] = "";
	if (h->nothers)
		snprintf(more, sizeof(more), " (and %u more function%s: %s%s)", h->nothers, h->nothers == 1 ? "" : "s",
			 h->others, h->nothers > 8 ? " ..." : "");
	struct gate_evidence *bev =
		gate_add(og, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
			 "'%s' uses '%s' (field '%s' of %s) under %s '%s', but '%s'%s touches %s without it: "
			 "with RB_NOGVL_OFFLOAD_SAFE another fiber may call it while the worker runs",
			 cb,
			 h->bad_tf && h->bad_tf->text ? h->bad_tf->text
			 : of->text                   ? of->text
						      : of->field,
			 tfld, of->rec, gd->kind == GUARD_MUTEX ? "the mutex" : "the in-progress flag", gd->what,
			 m->fns.v[h->bad_fi].f->name, more, h->bad_tf ? "the same field" : "the flag");
	gate_note_add(bev, &h->bad_te->loc, "'%s' touches '%s' here without %s", m->fns.v[h->bad_fi].f->name, tfld,
		      gd->kind == GUARD_MUTEX ? "the mutex" : "checking the flag");
	gate_note_add(bev, &gd->loc, "the guard is taken here");
}

/* Judges the object struct of field k (its first field): its guard, then
 * every other function touching its state. Returns whether every use of it
 * is serialised (settled). */
static bool judge_record(struct ostate *os, const struct msite *s, const struct reach_set *rs, struct gate_result *g,
			 const struct ofields *fs, unsigned k, bool post)
{
	const struct model *m = os->m;
	const struct ofield *fields = fs->v, *of = &fs->v[k];
	unsigned nf = fs->n;
	uint32_t rel_fn = s->fn, rel_ev = s->ev;
	/* the run after every gate reports only on objects the callback's
	 * own code does not use (the first run reported those) */
	bool mute = false;
	for (unsigned j = k; j < nf && post && !mute; j++)
		mute = fields[j].cb && str_eq(fields[j].rec, of->rec);
	struct gate_result scratch = {0};
	struct gate_result *og = mute ? &scratch : g;
	const char *cb = ofield_user(m, s, of);
	struct guard gd = {0};
	unsigned budget = 256;
	int64_t open_fn = -1;
	os->why[0] = 0;
	bool guarded = path_guarded(os, rel_fn, rel_ev, of->rec, rs, UP_DEPTH, &budget, &gd, &open_fn) &&
		       gd.kind != GUARD_NONE;
	if (!guarded && gd.kind != GUARD_NONE && open_fn >= 0) {
		report_open_way(os, og, cb, of, &gd, open_fn);
		gate_result_free(&scratch);
		return false;
	}
	if (!guarded) {
		report_unguarded(os, og, cb, fs, k);
		gate_result_free(&scratch);
		return false;
	}
	struct holes h = {0};
	find_holes(os, rs, rel_fn, fs, of, &gd, &h);
	if (h.bad)
		report_hole(os, og, cb, of, &gd, &h);
	gate_result_free(&scratch);
	return !(h.bad || h.open);
}

/* ---- a handle that is the object's whole typed data ---- */

static bool data_record(const char *rec)
{
	if (rec && str_starts(rec, "struct "))
		rec += 7; /* C++ spells the record without "struct" */
	return str_eq(rec, "RData") || str_eq(rec, "RTypedData");
}

/* Does event e take the typed data the identity rec names out of an object:
 * rb_check_typeddata(obj, T) with T spelled rec, or, for data taken without
 * its type (rec "DATA_PTR": DATA_PTR, RTYPEDDATA_DATA), any take of an
 * object's data, since which type it is is not known? */
static bool takes_data(const struct mfunc *mf, const struct event *e, const char *rec)
{
	bool untyped = str_eq(rec, "DATA_PTR");
	if (e->kind == EV_ASSIGN) {
		const struct expr *x = &e->u.assign->rhs;
		return untyped && x->kind == EX_REF && data_record(x->ref.record);
	}
	if (e->kind != EV_CALL ||
	    !io_typed_data_expr(mf, &(struct expr){.kind = EX_CALL, .call = (int32_t)(e - mf->f->events)}))
		return false;
	return untyped || str_eq(io_typed_data_type(mf, e->u.call), rec);
}

/* Does fi write an object's data pointer (DATA_PTR(obj) = ...,
 * RTYPEDDATA_DATA(obj) = NULL): it replaces or frees the data. */
static const struct event *replaces_data(const struct mfunc *mf)
{
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (e->kind == EV_ASSIGN && data_record(e->u.assign->lhs.record))
			return e;
	}
	return NULL;
}

/* Another function that takes the same object's data without the guard (gd
 * NULL: no guard at all): one that also replaces or frees the data before
 * one that only uses it, and methods (what another fiber calls) before
 * helpers. *fn_out is its index, *repl where it replaces the data. */
static const struct event *whole_toucher(struct ostate *os, const struct reach_set *rs, uint32_t rel_fn,
					 const char *rec, const struct guard *gd, uint32_t *fn_out,
					 const struct event **repl)
{
	const struct model *m = os->m;
	const struct event *best = NULL;
	int best_score = 0;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		if (rs->by_fn[fi].reached || fi == rel_fn || exempt_fn(os, fi))
			continue;
		const struct event *te = NULL;
		for (uint32_t ei = 0; ei < mf->f->nevents && !te; ei++)
			if (takes_data(mf, &mf->f->events[ei], rec))
				te = &mf->f->events[ei];
		if (!te || (gd && takes_guard(os, fi, gd, UP_DEPTH)))
			continue;
		const struct event *re = replaces_data(mf);
		int score = 1 + (re ? 2 : 0) + ((role_of(os, fi) & ROLE_METHOD) ? 1 : 0);
		if (score > best_score) {
			best_score = score, best = te, *fn_out = fi, *repl = re;
			if (score == 4)
				break;
		}
	}
	return best;
}

/* The handle of a per-handle library call is the whole typed data of a Ruby
 * object the method got from outside (rmagick's Image). Unguarded: fails,
 * naming the object, the handle and a function that takes the same data
 * without a guard. Guarded on every way in, and by every function that
 * takes the data: nothing is added (the evidence stays "cannot verify"). */
static void judge_whole(struct ostate *os, const struct msite *s, const struct reach_set *rs, struct gate_result *g,
			const struct ofield *of)
{
	const struct model *m = os->m;
	const char *cb = ofield_user(m, s, of);
	struct guard gd = {0};
	unsigned budget = 256;
	int64_t open_fn = -1;
	os->why[0] = 0;
	bool guarded =
		path_guarded(os, s->fn, s->ev, of->rec, rs, UP_DEPTH, &budget, &gd, &open_fn) && gd.kind != GUARD_NONE;
	uint32_t tfi = 0;
	const struct event *repl = NULL;
	const struct event *te = whole_toucher(os, rs, s->fn, of->rec, guarded ? &gd : NULL, &tfi, &repl);
	if (guarded && !te)
		return;
	const char *tname = te ? m->fns.v[tfi].f->name : NULL;
	char who[300];
	if (te)
		snprintf(who, sizeof(who), "'%s' takes %s%s without %s", tname,
			 str_eq(of->rec, "DATA_PTR")
				 ? "an object's data (its type is not checked, so it may be this one)"
				 : "the same object's data",
			 repl ? " and replaces or frees it" : "", guarded ? "the guard" : "any guard");
	else
		snprintf(who, sizeof(who), "another call on the same object uses it");
	char how[400] = "";
	if (guarded)
		snprintf(how, sizeof(how), " under %s '%s', but %s", gd.kind == GUARD_MUTEX ? "the mutex" : "the flag",
			 gd.what, who);
	else if (gd.kind != GUARD_NONE && open_fn >= 0)
		snprintf(how, sizeof(how),
			 "; %s '%s' guards some ways into the call but not the one through '%s', and %s",
			 gd.kind == GUARD_MUTEX ? "the mutex" : "the flag", gd.what, m->fns.v[open_fn].f->name, who);
	else
		snprintf(how, sizeof(how), " with no in-progress flag or mutex held across the call, and %s", who);
	/* the library call and its handle argument, as the callback writes them */
	const char *lib = "?", *arg = "?";
	const struct mfunc *uf = of->fn >= 0 ? &m->fns.v[of->fn] : NULL;
	for (uint32_t ei = 0; uf && ei < uf->f->nevents; ei++) {
		const struct event *e = &uf->f->events[ei];
		if (e->kind != EV_CALL || e->loc.line != of->loc.line || e->loc.col != of->loc.col || !e->u.call->name)
			continue;
		const struct lib_model *lm = model_find(e->u.call->name);
		int ha = lm ? lm->handle_arg : 0;
		lib = e->u.call->name;
		const struct expr *hx = ha >= 0 && (uint32_t)ha < e->u.call->nargs ? &e->u.call->args[ha] : NULL;
		/* as written, or, inside a macro body (rmagick's DEFINE_GVL_STUBn),
		 * the reference itself */
		if (hx && hx->text && hx->exact && !hx->macro)
			arg = hx->text;
		else if (hx && hx->kind == EX_REF && hx->ref.var >= 0)
			arg = ref_text(uf->tu, &hx->ref);
		break;
	}
	struct gate_evidence *ev = gate_add(
		g, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
		"'%s' passes '%s' to '%s' (thread-safe only per handle), and that handle is the typed data of the "
		"Ruby object '%s' (taken by '%s')%s: with RB_NOGVL_OFFLOAD_SAFE other fibers of the calling thread "
		"keep running and may use, replace or free the object's data while the worker runs",
		cb, arg, lib, of->obj ? of->obj : "?", of->text ? of->text : "?", how);
	if (te)
		gate_note_add(ev, repl ? &repl->loc : &te->loc, "'%s' %s here", tname,
			      repl ? "replaces or frees the object's data" : "takes the object's data");
	if (gd.kind != GUARD_NONE)
		gate_note_add(ev, &gd.loc, "the guard is taken here");
}

/* The fields the callback's own code uses, and the object fields of the
 * evidence from index `from` on. The first run (post false, from the inputs
 * checker) judges both. The run after every gate (post true) is for the
 * handles the per-handle library models followed: it judges each object
 * struct again with all its fields, so that settling it stays a judgement on
 * every use, but leaves the reporting of the callback's own fields to the
 * first run. */
static void object_state_run(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g, size_t from, bool post)
{
	struct ostate local = {.m = m};
	struct ostate *os = &local;
	if (shared_active && shared.m == m) {
		os = &shared;
		os->why[0] = 0;
		os->why_loc = (struct loc){0};
	} else {
		find_records(os);
	}
	if (!os->nrecords) {
		free_ostate(&local);
		return;
	}
	size_t inputs_ev = g->ev.n; /* the inputs checker's evidence comes before ours */
	/* an object still being created is private to its creator */
	if (private_fn(os, s->data_fn, UP_DEPTH) && private_fn(os, s->fn, UP_DEPTH)) {
		settle(os, g, from, inputs_ev, os->records, os->nrecords, true);
		free_ostate(&local);
		return;
	}
	struct ofields fs = {.n = 0};
	cb_fields(os, rs, &fs);
	evidence_fields(os, s, g, from, inputs_ev, &fs);
	if (!fs.n || (post && fs.n == fs.ncb)) {
		free_ostate(&local);
		return;
	}
	const char *settled[MAX_FIELDS];
	unsigned nsettled = 0;
	bool all_settled = true;
	/* one object struct at a time: its guard, then every other function
	 * touching its state */
	for (unsigned k = 0; k < fs.n; k++) {
		bool first = true;
		for (unsigned j = 0; j < k && first; j++)
			first = !str_eq(fs.v[j].rec, fs.v[k].rec);
		if (!first)
			continue;
		if (fs.v[k].whole) {
			judge_whole(os, s, rs, g, &fs.v[k]);
			all_settled = false; /* never settled: at best it stays "cannot verify" */
			continue;
		}
		if (judge_record(os, s, rs, g, &fs, k, post))
			settled[nsettled++] = fs.v[k].rec;
		else
			all_settled = false;
	}
	/* a fully guarded object: its state no longer leaves the inputs gate
	 * open */
	if (all_settled && nsettled)
		settle(os, g, 0, inputs_ev, settled, nsettled, false);
	free_ostate(&local);
}

void gate_check_object_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g)
{
	object_state_run(m, s, rs, g, 0, false);
}

void gate_check_object_handles(const struct model *m, const struct msite *s, const struct reach_set *rs,
			       struct gate_result *g, size_t from)
{
	object_state_run(m, s, rs, g, from, true);
}
