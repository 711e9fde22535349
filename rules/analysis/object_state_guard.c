/* object_state_guard.c: the guards of the object-state gate (see
 * object_state.c): a Ruby mutex held across the call or an in-progress flag
 * set, checked and cleared around it, on every way into the release; and
 * whether another function that touches the same state takes the guard. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object_state.h"

const char *last_field(const struct expr *x)
{
	if (x->kind == EX_REF && x->ref.field)
		return x->ref.field;
	return NULL;
}

/* Does the object var (a pointer to an object struct in fi) reach the call at
 * ev: passed as an argument, or stored in a local the call is given
 * (args.conn = c; rb_nogvl(fn, &args ...))? A guard on one object says
 * nothing about another one's state. */
bool expr_feeds(const struct ostate *os, uint32_t fi, uint32_t ev, const struct expr *x, int32_t var)
{
	const struct func *f = os->m->fns.v[fi].f;
	if (expr_reads_var(x, var))
		return true;
	/* a local filled with the object before the call */
	int32_t locals[8];
	unsigned nl = 0;
	if (x->kind == EX_REF && x->ref.var >= 0)
		locals[nl++] = x->ref.var;
	for (uint32_t k = 0; k < x->nreads && nl < ARRAY_SIZE(locals); k++)
		if (x->reads[k].var >= 0)
			locals[nl++] = x->reads[k].var;
	for (uint32_t i = 0; i < ev && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_ASSIGN)
			continue;
		for (unsigned l = 0; l < nl; l++) {
			/* args.conn = c; ... call(&args) */
			if (e->u.assign->lhs.var == locals[l] && expr_reads_var(&e->u.assign->rhs, var))
				return true;
			/* z = args->z; ... call(args): z came out of what the call is given */
			if (e->u.assign->lhs.var == var && !(e->u.assign->lhs.path && *e->u.assign->lhs.path) &&
			    e->u.assign->rhs.kind == EX_REF && e->u.assign->rhs.ref.var == locals[l] &&
			    e->u.assign->rhs.ref.path && *e->u.assign->rhs.ref.path)
				return true;
		}
	}
	return false;
}

bool feeds(const struct ostate *os, uint32_t fi, uint32_t ev, int32_t var)
{
	const struct func *f = os->m->fns.v[fi].f;
	if (ev >= f->nevents || f->events[ev].kind != EV_CALL)
		return false;
	const struct call *c = f->events[ev].u.call;
	for (uint32_t a = 0; a < c->nargs; a++)
		if (expr_feeds(os, fi, ev, &c->args[a], var))
			return true;
	return false;
}

/* The object var a mutex expression belongs to (c in c->mutex), -1 when the
 * mutex is not a member of an object struct (a global mutex serialises every
 * object). */
int32_t mutex_owner(const struct ostate *os, const struct mfunc *mf, const struct expr *x)
{
	if (x->kind != EX_REF || x->ref.var < 0 || !x->ref.deref)
		return -1;
	return is_object_record(os, var_record(mf, x->ref.var)) ? x->ref.var : -1;
}

bool is_clear_value(const struct expr *x)
{
	return x->kind == EX_NULL || (x->has_ival && x->ival == 0) ||
	       (x->text && (str_eq(x->text, "Qnil") || str_eq(x->text, "Qfalse")));
}

/* A write of the flag: a set (= 1, = the fiber, |= BIT) or a clear (= 0,
 * = Qnil, &= ~BIT). Compound assignments are told apart by the spelling of
 * their operand (no operator in the facts): "~..." clears a bit. */
bool is_flag_clear(const struct assign *a)
{
	if (a->compound)
		return a->rhs.text && a->rhs.text[0] == '~';
	return is_clear_value(&a->rhs);
}

/* Does clear c undo set s (the same bit, when both are bit operations)? */
bool clear_undoes(const struct assign *c, const struct assign *s)
{
	if (!is_flag_clear(c))
		return false;
	if (s->compound && c->compound && s->rhs.has_ival && c->rhs.has_ival)
		return c->rhs.ival == ~s->rhs.ival;
	if (s->compound && c->compound && s->rhs.text && c->rhs.text)
		return str_eq(c->rhs.text + 1, s->rhs.text);
	return true;
}

/* Is the flag (rec, fld) read in a condition of fi before offset off? */
bool flag_checked(const struct ostate *os, uint32_t fi, const char *rec, const char *fld, const char *bit, uint32_t off)
{
	const struct mfunc *mf = &os->m->fns.v[fi];
	const struct func *f = mf->f;
	for (uint32_t r = 0; r < f->nregions; r++) {
		const struct region *rg = &f->regions[r];
		if (rg->begin > off || !rg->cond.text)
			continue;
		/* a bit flag: the condition names the same bit (flags has others) */
		if (bit && !strstr(rg->cond.text, bit))
			continue;
		for (uint32_t k = 0; k < rg->cond.nreads; k++) {
			const char *r3 = NULL;
			char f3[128];
			if (object_field(os, mf, &rg->cond.reads[k], &r3, f3, sizeof(f3)) && str_eq(r3, rec) &&
			    str_eq(f3, fld))
				return true;
		}
	}
	return false;
}

/* A function of the callback's side that writes the flag: the flag would be
 * cleared while the worker still runs. */
int64_t flag_written_by(const struct ostate *os, const struct reach_set *rs, const char *rec, const char *fld,
			const struct assign *set, struct loc *where)
{
	for (uint32_t i = 0; rs && i < rs->n; i++) {
		const struct mfunc *mf = &os->m->fns.v[rs->fns[i]];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			const char *r2 = NULL;
			char f2[128];
			if (e->kind == EV_ASSIGN && object_field(os, mf, &e->u.assign->lhs, &r2, f2, sizeof(f2)) &&
			    str_eq(r2, rec) && str_eq(f2, fld) && (!set->compound || clear_undoes(e->u.assign, set))) {
				*where = e->loc;
				return rs->fns[i];
			}
		}
	}
	return -1;
}

/* Why a guard-like shape was not taken as a guard (for the evidence). */
void reject(struct ostate *os, const struct loc *loc, const char *fmt, ...)
{
	if (os->why[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(os->why, sizeof(os->why), fmt, ap);
	va_end(ap);
	os->why_loc = *loc;
}

/* fi is the body of rb_ensure(fi, a, E, b) and E clears the flag. */
bool ensure_clears(struct ostate *os, uint32_t fi, const char *rec, const char *fld, const struct assign *set)
{
	const char *usr = os->m->fns.v[fi].f->usr;
	if (!usr)
		return false;
	size_t np = 0;
	const struct call_at *passed = model_func_passed(os->m, usr, &np);
	for (size_t i = 0; i < np; i++) {
		const struct event *ce = &os->m->fns.v[passed[i].fn].f->events[passed[i].ev];
		if (!is_call(ce, "rb_ensure") || ce->u.call->nargs < 3 || ce->u.call->args[0].kind != EX_FUNC ||
		    !str_eq(ce->u.call->args[0].func_usr, usr) || ce->u.call->args[2].kind != EX_FUNC)
			continue;
		const struct mfunc *en = model_func_by_usr(os->m, ce->u.call->args[2].func_usr);
		for (uint32_t ei = 0; en && ei < en->f->nevents; ei++) {
			const struct event *e = &en->f->events[ei];
			const char *r2 = NULL;
			char f2[128];
			if (e->kind == EV_ASSIGN && object_field(os, en, &e->u.assign->lhs, &r2, f2, sizeof(f2)) &&
			    str_eq(r2, rec) && str_eq(f2, fld) && clear_undoes(e->u.assign, set))
				return true;
		}
	}
	return false;
}

/* rb_mutex_lock(X) ... ev ... rb_mutex_unlock(X) in fi. */
static bool mutex_guard_in(struct ostate *os, uint32_t fi, uint32_t ev, struct guard *g)
{
	const struct mfunc *mf = &os->m->fns.v[fi];
	const struct func *f = mf->f;
	for (uint32_t i = 0; i < ev && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (!is_call(e, "rb_mutex_lock") || e->u.call->nargs < 1)
			continue;
		const char *t = e->u.call->args[0].text;
		int32_t owner = mutex_owner(os, mf, &e->u.call->args[0]);
		if (owner >= 0 && !feeds(os, fi, ev, owner)) {
			reject(os, &e->loc, "the mutex '%s' belongs to another object than the one the callback uses",
			       t ? t : "?");
			continue;
		}
		/* not unlocked again before the call */
		bool released = false;
		for (uint32_t k = i + 1; k < ev && !released; k++) {
			const struct event *u = &f->events[k];
			released = is_call(u, "rb_mutex_unlock") && u->u.call->nargs >= 1 && t &&
				   str_eq(u->u.call->args[0].text, t);
		}
		if (released) {
			reject(os, &e->loc, "the mutex '%s' is unlocked again before the call", t);
			continue;
		}
		for (uint32_t k = ev + 1; k < f->nevents; k++) {
			const struct event *u = &f->events[k];
			if ((is_call(u, "rb_mutex_unlock") || is_call(u, "rb_ensure")) && t) {
				g->kind = GUARD_MUTEX;
				g->what = t;
				g->field = last_field(&e->u.call->args[0]);
				g->mrec = owner >= 0 ? var_record(mf, owner) : NULL;
				g->loc = e->loc;
				return true;
			}
		}
	}
	return false;
}

/* Is the write at event i of fi (obj->F = nonzero before ev) an in-progress
 * flag of rec: cleared after the call, not before it returns (nor by the
 * callback), and checked on the way in? */
static bool flag_set_guards(struct ostate *os, uint32_t fi, uint32_t ev, uint32_t i, const char *rec,
			    const struct reach_set *rs, struct guard *g)
{
	const struct mfunc *mf = &os->m->fns.v[fi];
	const struct func *f = mf->f;
	const struct event *e = &f->events[i];
	const struct assign *a = e->u.assign;
	const char *frec = NULL;
	char fld[128];
	/* set: anything but the value it is cleared to (1, true, the current
	 * fiber ...); cleared: a constant (0, NULL, Qnil, Qfalse) */
	/* a flag is a member of its own (busy, flags, active_fiber), not a
	 * member of an embedded struct (stream.avail_out) */
	if (!object_field(os, mf, &a->lhs, &frec, fld, sizeof(fld)) || is_flag_clear(a) ||
	    a->lhs.path[strcspn(a->lhs.path, ".[")])
		return false;
	const char *bit = a->compound ? a->rhs.text : NULL;
	/* why a set is no guard is told only for fields checked like a flag
	 * (read in a condition before the set): a connection handle or a
	 * state enum written before the call is no attempt at a guard */
	bool flaglike = flag_checked(os, fi, frec, fld, bit, e->loc.off);
	if (!str_eq(frec, rec)) {
		if (flaglike)
			reject(os, &e->loc,
			       "the flag '%s' set here is a field of %s, not of %s whose state the callback "
			       "uses",
			       fld, frec, rec);
		return false;
	}
	if (!feeds(os, fi, ev, a->lhs.var)) {
		if (flaglike)
			reject(os, &e->loc,
			       "the flag '%s' set here belongs to another object than the one the callback "
			       "uses",
			       fld);
		return false;
	}
	bool cleared = false;
	for (uint32_t k = ev + 1; k < f->nevents && !cleared; k++) {
		const struct event *u = &f->events[k];
		char f2[128];
		const char *r2 = NULL;
		cleared = u->kind == EV_ASSIGN && object_field(os, mf, &u->u.assign->lhs, &r2, f2, sizeof(f2)) &&
			  str_eq(r2, rec) && str_eq(f2, fld) && clear_undoes(u->u.assign, a);
	}
	/* or by the ensure function of the rb_ensure that runs fi */
	if (!cleared)
		cleared = ensure_clears(os, fi, rec, fld, a);
	if (!cleared) {
		if (flaglike)
			reject(os, &e->loc,
			       "the flag '%s' set here is not cleared after the call in '%s', so it does not "
			       "mark this call "
			       "as in progress (a method that clears it later only checks that it is set)",
			       fld, f->name);
		return false;
	}
	/* not cleared again before the call */
	bool early = false;
	for (uint32_t k = i + 1; k < ev && !early; k++) {
		const struct event *u = &f->events[k];
		char f2[128];
		const char *r2 = NULL;
		early = u->kind == EV_ASSIGN && object_field(os, mf, &u->u.assign->lhs, &r2, f2, sizeof(f2)) &&
			str_eq(r2, rec) && str_eq(f2, fld) && clear_undoes(u->u.assign, a);
		if (early && flaglike)
			reject(os, &u->loc, "the flag '%s' is cleared here, before the call returns", fld);
	}
	if (early)
		return false;
	/* nor by the callback while the worker runs */
	struct loc wl;
	int64_t wfn = flag_written_by(os, rs, rec, fld, a, &wl);
	if (wfn >= 0) {
		if (flaglike)
			reject(os, &wl, "the flag '%s' is cleared by '%s' on the worker, before the call returns", fld,
			       os->m->fns.v[wfn].f->name);
		return false;
	}
	/* checked on the way in: a condition before the set reads the flag */
	if (!flag_checked(os, fi, rec, fld, bit, e->loc.off)) {
		reject(os, &e->loc, "the flag '%s' is set here but not checked before: a second caller sets it again",
		       fld);
		return false;
	}
	g->kind = GUARD_FLAG;
	snprintf(g->buf, sizeof(g->buf), "%s", fld);
	g->what = g->buf;
	g->field = g->buf;
	g->rec = rec;
	g->bit = bit;
	g->loc = e->loc;
	return true;
}

/* obj->F = nonzero before ev, obj->F = 0 after, F read in a condition */
static bool flag_guard_in(struct ostate *os, uint32_t fi, uint32_t ev, const char *rec, const struct reach_set *rs,
			  struct guard *g)
{
	const struct func *f = os->m->fns.v[fi].f;
	for (uint32_t i = 0; i < ev && i < f->nevents; i++)
		if (f->events[i].kind == EV_ASSIGN && flag_set_guards(os, fi, ev, i, rec, rs, g))
			return true;
	return false;
}

static int record_index(const struct ostate *os, const char *rec);
static const otouch_vec *touch_list(const struct ostate *os, uint32_t fi);

/* Checked but set elsewhere: the flag is set by another method (a query
 * sends, a later call reads the result), only read here and cleared after
 * the call, so a second fiber calling this method passes the same check (no
 * guard; says why). */
static void flag_only_read(struct ostate *os, uint32_t fi, uint32_t ev, const char *rec)
{
	const struct mfunc *mf = &os->m->fns.v[fi];
	const struct func *f = mf->f;
	for (uint32_t r = 0; r < f->nregions; r++) {
		const struct region *rg = &f->regions[r];
		if (!rg->cond.text || ev >= f->nevents || rg->begin > f->events[ev].loc.off)
			continue;
		for (uint32_t k = 0; k < rg->cond.nreads; k++) {
			const char *r3 = NULL;
			char f3[128];
			if (!object_field(os, mf, &rg->cond.reads[k], &r3, f3, sizeof(f3)) || !str_eq(r3, rec) ||
			    rg->cond.reads[k].path[strcspn(rg->cond.reads[k].path, ".[")])
				continue;
			bool cleared_here = false;
			for (uint32_t ci = ev + 1; ci < f->nevents && !cleared_here; ci++) {
				const struct event *u = &f->events[ci];
				const char *r2 = NULL;
				char f2[128];
				cleared_here = u->kind == EV_ASSIGN &&
					       object_field(os, mf, &u->u.assign->lhs, &r2, f2, sizeof(f2)) &&
					       str_eq(r2, rec) && str_eq(f2, f3) && is_flag_clear(u->u.assign);
			}
			if (!cleared_here)
				continue;
			int ri = record_index(os, rec);
			for (uint32_t ofi = 0; ofi < os->m->fns.n && ri >= 0; ofi++) {
				if (ofi == fi)
					continue;
				const struct mfunc *om = &os->m->fns.v[ofi];
				/* its writes of object fields (touches' index) */
				const otouch_vec *tl = touch_list(os, ofi);
				for (size_t ti = 0; ti < tl->n; ti++) {
					const struct otouch *t = &tl->v[ti];
					const struct event *e = &om->f->events[t->ev];
					if (t->write && t->rec == ri && str_eq(t->field, f3) &&
					    !is_clear_value(&e->u.assign->rhs)) {
						reject(os, &rg->cond.loc,
						       "'%s' only reads the flag '%s', which '%s' sets: the flag says "
						       "the object is "
						       "in use, not by whom, so a second fiber calling '%s' passes the "
						       "same check",
						       f->name, f3, om->f->name, f->name);
						return;
					}
				}
			}
		}
	}
}

/* A mutex or flag guard of object struct rec in function fi around its event
 * ev (the call that leads to the release). */
bool guard_in(struct ostate *os, uint32_t fi, uint32_t ev, const char *rec, const struct reach_set *rs, struct guard *g)
{
	if (mutex_guard_in(os, fi, ev, g) || flag_guard_in(os, fi, ev, rec, rs, g))
		return true;
	flag_only_read(os, fi, ev, rec);
	return false;
}

/* Is every way into (fi, ev) guarded? fi itself takes the guard around ev,
 * or fi is the body of rb_mutex_synchronize, or every caller is guarded on
 * its way in (an entry point with no caller is not). budget bounds the walk. */
bool path_guarded(struct ostate *os, uint32_t fi, uint32_t ev, const char *rec, const struct reach_set *rs, int depth,
		  unsigned *budget, struct guard *g, int64_t *open_fn)
{
	struct guard here = {0};
	if (guard_in(os, fi, ev, rec, rs, &here)) {
		if (g->kind == GUARD_NONE)
			*g = here, g->what = g->kind == GUARD_FLAG ? g->buf : g->what,
			g->field = g->kind == GUARD_FLAG ? g->buf : g->field;
		return true;
	}
	if (depth <= 0 || !*budget)
		return false;
	(*budget)--;
	caller_vec cs = {0};
	callers_of(os, fi, &cs);
	bool ok = cs.n > 0;
	if (!ok && *open_fn < 0)
		*open_fn = fi; /* an entry point (a method) with no guard */
	/* every caller, not only up to the first open one: the message names the
	 * guard some ways take */
	for (size_t i = 0; i < cs.n; i++) {
		const struct mfunc *cm = &os->m->fns.v[cs.v[i].fn];
		const struct event *ce = &cm->f->events[cs.v[i].ev];
		if (is_call(ce, "rb_mutex_synchronize") && ce->u.call->nargs >= 3 &&
		    ce->u.call->args[1].kind == EX_FUNC) {
			int32_t owner = mutex_owner(os, cm, &ce->u.call->args[0]);
			if (owner >= 0 && !expr_feeds(os, cs.v[i].fn, cs.v[i].ev, &ce->u.call->args[2], owner)) {
				reject(os, &ce->loc,
				       "the mutex '%s' belongs to another object than the one passed to '%s'",
				       ce->u.call->args[0].text ? ce->u.call->args[0].text : "?",
				       os->m->fns.v[fi].f->name);
				ok = false;
				continue;
			}
			if (g->kind == GUARD_NONE) {
				g->kind = GUARD_MUTEX;
				g->what = ce->u.call->args[0].text ? ce->u.call->args[0].text : "?";
				g->field = last_field(&ce->u.call->args[0]);
				g->mrec = owner >= 0 ? var_record(cm, owner) : NULL;
				g->loc = ce->loc;
			}
			continue;
		}
		if (ce->kind == EV_CALL && str_starts(ce->u.call->name, "rb_define_")) {
			if (*open_fn < 0)
				*open_fn = fi; /* registered as a method: an entry point */
			ok = false;
			continue;
		}
		if (!path_guarded(os, cs.v[i].fn, cs.v[i].ev, rec, rs, depth - 1, budget, g, open_fn))
			ok = false;
	}
	vec_free(&cs);
	return ok;
}

/* ---- other functions that touch the same state ---- */

/* Is mutex expression x (in mf) the guard's mutex: the same member of the
 * same object struct (st->lock of struct stream, not another struct's
 * member named lock), or, for a mutex outside any object, the same
 * spelling? */
bool same_mutex(const struct ostate *os, const struct mfunc *mf, const struct expr *x, const struct guard *g)
{
	int32_t owner = mutex_owner(os, mf, x);
	if (g->mrec)
		return owner >= 0 && g->field && str_eq(last_field(x), g->field) &&
		       str_eq(var_record(mf, owner), g->mrec);
	return owner < 0 && str_eq(x->text, g->what);
}

/* Does fi take the guard (itself or through every caller)? A flag counts when
 * fi checks it (reads it in a condition). */
bool takes_guard(struct ostate *os, uint32_t fi, const struct guard *g, int depth)
{
	const struct model *m = os->m;
	const struct mfunc *mf = &m->fns.v[fi];
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (g->kind == GUARD_MUTEX && (is_call(e, "rb_mutex_lock") || is_call(e, "rb_mutex_synchronize")) &&
		    e->u.call->nargs >= 1 && same_mutex(os, mf, &e->u.call->args[0], g))
			return true;
	}
	if (g->kind == GUARD_FLAG && flag_checked(os, fi, g->rec, g->field, g->bit, UINT32_MAX))
		return true;
	if (depth <= 0)
		return false;
	caller_vec cs = {0};
	callers_of(os, fi, &cs);
	bool ok = cs.n > 0;
	for (size_t i = 0; i < cs.n && ok; i++) {
		const struct event *ce = &m->fns.v[cs.v[i].fn].f->events[cs.v[i].ev];
		if (g->kind == GUARD_MUTEX && is_call(ce, "rb_mutex_synchronize") && ce->u.call->nargs >= 1 &&
		    same_mutex(os, &m->fns.v[cs.v[i].fn], &ce->u.call->args[0], g))
			continue;
		/* registered as a method (rb_define_method(klass, "close", fn, 0)): an entry point */
		if (ce->kind == EV_CALL && str_starts(ce->u.call->name, "rb_define_")) {
			ok = false;
			break;
		}
		ok = takes_guard(os, cs.v[i].fn, g, depth - 1) || exempt_fn(os, cs.v[i].fn);
	}
	vec_free(&cs);
	return ok;
}

/* The index of rec in os->records, -1 when it is not an object struct. */
static int record_index(const struct ostate *os, const char *rec)
{
	if (!rec)
		return -1;
	for (unsigned i = 0; i < os->nrecords; i++)
		if (str_eq(os->records[i], rec))
			return (int)i;
	return -1;
}

/* fi's uses of object fields, listed on first use. */
static const otouch_vec *touch_list(const struct ostate *os, uint32_t fi)
{
	struct otouch_tab *t = os->touch;
	if (!t->built[fi]) {
		t->built[fi] = 1;
		const struct mfunc *mf = &os->m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			const struct ref *r = e->kind == EV_ACCESS   ? &e->u.access->ref
					      : e->kind == EV_ASSIGN ? &e->u.assign->lhs
								     : NULL;
			const char *r2 = NULL;
			char f2[128];
			if (!r || !object_field(os, mf, r, &r2, f2, sizeof(f2)))
				continue;
			struct otouch ot = {ei, (uint16_t)record_index(os, r2), e->kind == EV_ASSIGN,
					    intern(&t->fields, f2)};
			vec_push(&t->by_fn[fi], ot);
		}
	}
	return &t->by_fn[fi];
}

void touch_tab_init(struct ostate *os)
{
	os->touch = xcalloc(1, sizeof(*os->touch));
	os->touch->by_fn = xcalloc(os->m->fns.n ? os->m->fns.n : 1, sizeof(*os->touch->by_fn));
	os->touch->built = xcalloc(os->m->fns.n ? os->m->fns.n : 1, 1);
}

void touch_tab_free(struct ostate *os)
{
	struct otouch_tab *t = os->touch;
	if (!t)
		return;
	for (uint32_t fi = 0; fi < os->m->fns.n; fi++)
		vec_free(&t->by_fn[fi]);
	free(t->by_fn);
	free(t->built);
	strpool_free(&t->fields);
	free(t);
	os->touch = NULL;
}

/* Does fi touch field fld of record rec (any field when fld is NULL; only
 * writes when writes_only)? Returns the event, or NULL. */
const struct event *touches(const struct ostate *os, uint32_t fi, const char *rec, const char *fld, bool writes_only,
			    const char *skip)
{
	int ri = record_index(os, rec);
	if (ri < 0)
		return NULL;
	const otouch_vec *tl = touch_list(os, fi);
	for (size_t i = 0; i < tl->n; i++) {
		const struct otouch *t = &tl->v[i];
		if (t->rec != ri || (writes_only && !t->write))
			continue;
		if ((!fld || str_eq(t->field, fld)) && !(skip && str_eq(t->field, skip)))
			return &os->m->fns.v[fi].f->events[t->ev];
	}
	return NULL;
}
