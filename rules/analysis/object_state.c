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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "inputs_flow.h"
#include "offload.h"

#define MAX_RECORDS 64
#define MAX_FIELDS 16
#define UP_DEPTH 8

struct caller {
	uint32_t fn, ev;
};
typedef VEC(struct caller) caller_vec;

struct ostate {
	const struct model *m;
	const char *records[MAX_RECORDS]; /* object structs of the project */
	unsigned nrecords;
	/* function USR -> caller_vec *: calls that pass the function as an
	 * argument (rb_ensure bodies ...), built on first use */
	struct hmap fnargs;
	bool fnargs_built;
};

static bool is_object_record(const struct ostate *os, const char *rec)
{
	if (!rec)
		return false;
	for (unsigned i = 0; i < os->nrecords; i++)
		if (str_eq(os->records[i], rec))
			return true;
	return false;
}

/* "struct zstream *" -> "struct zstream" (records are spelled without '*'). */
static const char *var_record(const struct mfunc *mf, int32_t var)
{
	const struct var *v = mf_var(mf, var);
	return v ? v->record : NULL;
}

static void find_records(struct ostate *os)
{
	const struct model *m = os->m;
	for (uint32_t fi = 0; fi < m->fns.n && os->nrecords < MAX_RECORDS; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents && os->nrecords < MAX_RECORDS; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_ASSIGN || e->u.assign->lhs.var < 0 ||
			    (e->u.assign->lhs.path && *e->u.assign->lhs.path))
				continue;
			if (!io_typed_data_expr(mf, &e->u.assign->rhs))
				continue;
			const char *rec = var_record(mf, e->u.assign->lhs.var);
			if (rec && !is_object_record(os, rec))
				os->records[os->nrecords++] = rec;
		}
	}
}

/* The first member name of a path ("stream.avail_in" -> "stream"), interned
 * in buf. */
static const char *first_field(const char *path, char *buf, size_t n)
{
	if (!path || !*path)
		return NULL;
	size_t k = strcspn(path, ".[");
	if (k >= n)
		k = n - 1;
	memcpy(buf, path, k);
	buf[k] = 0;
	return buf;
}

/* The object-state field a reference names: a pointer to an object struct,
 * followed to a member. Fills rec/field. */
static bool object_field(const struct ostate *os, const struct mfunc *mf, const struct ref *r, const char **rec,
			 char *field, size_t n)
{
	if (r->var < 0 || !r->deref || !r->path || !*r->path)
		return false;
	const char *vr = var_record(mf, r->var);
	if (!is_object_record(os, vr))
		return false;
	const struct var *v = mf_var(mf, r->var);
	if (!v || !(v->flags & VF_POINTER))
		return false;
	*rec = vr;
	first_field(r->path, field, n);
	return *field != 0;
}

/* ---- guards ---- */

enum guard_kind { GUARD_NONE = 0, GUARD_MUTEX, GUARD_FLAG };

struct guard {
	int kind;
	const char *what;    /* mutex argument text, or flag field */
	const char *field;   /* the mutex's (or flag's) member name, to find it in other functions */
	struct loc loc;
	char buf[128];
};

static const char *last_field(const struct expr *x)
{
	if (x->kind == EX_REF && x->ref.field)
		return x->ref.field;
	return NULL;
}

static bool is_call(const struct event *e, const char *name)
{
	return e->kind == EV_CALL && !e->u.call->indirect && str_eq(e->u.call->name, name);
}

/* A mutex or flag guard in function fi around its event ev (the call that
 * leads to the release). */
static bool guard_in(const struct ostate *os, uint32_t fi, uint32_t ev, struct guard *g)
{
	const struct mfunc *mf = &os->m->fns.v[fi];
	const struct func *f = mf->f;
	/* rb_mutex_lock(X) ... ev ... rb_mutex_unlock(X) */
	for (uint32_t i = 0; i < ev && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (!is_call(e, "rb_mutex_lock") || e->u.call->nargs < 1)
			continue;
		const char *t = e->u.call->args[0].text;
		for (uint32_t k = ev + 1; k < f->nevents; k++) {
			const struct event *u = &f->events[k];
			if ((is_call(u, "rb_mutex_unlock") || is_call(u, "rb_ensure")) && t) {
				g->kind = GUARD_MUTEX;
				g->what = t;
				g->field = last_field(&e->u.call->args[0]);
				g->loc = e->loc;
				return true;
			}
		}
	}
	/* obj->F = nonzero before ev, obj->F = 0 after, F read in a condition */
	for (uint32_t i = 0; i < ev && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_ASSIGN)
			continue;
		const struct assign *a = e->u.assign;
		const char *rec = NULL;
		char fld[128];
		/* set: anything but the value it is cleared to (1, true, the current
		 * fiber ...); cleared: a constant (0, NULL, Qnil, Qfalse) */
		if (!object_field(os, mf, &a->lhs, &rec, fld, sizeof(fld)) || a->rhs.kind == EX_NULL ||
		    (a->rhs.has_ival && a->rhs.ival == 0))
			continue;
		bool cleared = false;
		for (uint32_t k = ev + 1; k < f->nevents && !cleared; k++) {
			const struct event *u = &f->events[k];
			char f2[128];
			const char *r2 = NULL;
			cleared = u->kind == EV_ASSIGN && object_field(os, mf, &u->u.assign->lhs, &r2, f2, sizeof(f2)) &&
				  str_eq(r2, rec) && str_eq(f2, fld) &&
				  (u->u.assign->rhs.kind == EX_NULL || u->u.assign->rhs.has_ival) &&
				  !(a->rhs.has_ival && u->u.assign->rhs.has_ival && a->rhs.ival == u->u.assign->rhs.ival);
		}
		if (!cleared)
			continue;
		/* checked on the way in: a condition before the set reads the flag */
		bool checked = false;
		for (uint32_t r = 0; r < f->nregions && !checked; r++) {
			const struct region *rg = &f->regions[r];
			if (rg->begin > e->loc.off || !rg->cond.text)
				continue;
			for (uint32_t k = 0; k < rg->cond.nreads && !checked; k++) {
				const char *r3 = NULL;
				char f3[128];
				checked = object_field(os, mf, &rg->cond.reads[k], &r3, f3, sizeof(f3)) && str_eq(r3, rec) &&
					  str_eq(f3, fld);
			}
		}
		if (!checked)
			continue;
		g->kind = GUARD_FLAG;
		snprintf(g->buf, sizeof(g->buf), "%s", fld);
		g->what = g->buf;
		g->field = g->buf;
		g->loc = e->loc;
		return true;
	}
	return false;
}

/* A guard on the way from an entry point down to (fi, ev): fi itself, or a
 * caller (rb_mutex_synchronize(m, fi, arg) counts), up to UP_DEPTH levels. */
static void build_fnargs(struct ostate *os)
{
	const struct model *m = os->m;
	os->fnargs_built = true;
	for (uint32_t k = 0; k < m->fns.n; k++) {
		const struct func *f = m->fns.v[k].f;
		for (uint32_t ei = 0; ei < f->nevents; ei++) {
			const struct event *e = &f->events[ei];
			if (e->kind != EV_CALL || e->u.call->indirect)
				continue;
			for (uint32_t a = 0; a < e->u.call->nargs; a++) {
				const char *usr = e->u.call->args[a].kind == EX_FUNC ? e->u.call->args[a].func_usr : NULL;
				if (!usr)
					continue;
				caller_vec *cv = hmap_get(&os->fnargs, usr);
				if (!cv) {
					cv = xcalloc(1, sizeof(*cv));
					hmap_put(&os->fnargs, usr, cv);
				}
				if (cv->n && cv->v[cv->n - 1].fn == k && cv->v[cv->n - 1].ev == ei)
					continue;
				struct caller c = {k, ei};
				vec_push(cv, c);
			}
		}
	}
}

static void free_fnargs(struct ostate *os)
{
	hmap_foreach(&os->fnargs, e)
	{
		caller_vec *cv = e->val;
		vec_free(cv);
		free(cv);
	}
	hmap_free(&os->fnargs);
}

/* The callers of fi: call-graph edges, and calls anywhere that pass fi as a
 * function argument (rb_ensure, rb_protect, rb_rescue, rb_mutex_synchronize
 * bodies). */
static void callers_of(struct ostate *os, uint32_t fi, caller_vec *out)
{
	const struct model *m = os->m;
	const struct mfunc *mf = &m->fns.v[fi];
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *e = &m->edges.v[m->in_edges.v[k]];
		struct caller c = {e->from, e->ev};
		vec_push(out, c);
	}
	const char *usr = mf->f->usr;
	if (!usr)
		return;
	if (!os->fnargs_built)
		build_fnargs(os);
	const caller_vec *cv = hmap_get(&os->fnargs, usr);
	for (size_t i = 0; cv && i < cv->n; i++) {
		bool dup = false;
		for (size_t j = 0; j < out->n && !dup; j++)
			dup = out->v[j].fn == cv->v[i].fn && out->v[j].ev == cv->v[i].ev;
		if (!dup)
			vec_push(out, cv->v[i]);
	}
}

/* Is every way into (fi, ev) guarded? fi itself takes the guard around ev,
 * or fi is the body of rb_mutex_synchronize, or every caller is guarded on
 * its way in (an entry point with no caller is not). budget bounds the walk. */
static bool path_guarded(struct ostate *os, uint32_t fi, uint32_t ev, int depth, unsigned *budget,
			 struct guard *g, int64_t *open_fn)
{
	if (guard_in(os, fi, ev, g))
		return true;
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
		const struct event *ce = &os->m->fns.v[cs.v[i].fn].f->events[cs.v[i].ev];
		if (is_call(ce, "rb_mutex_synchronize") && ce->u.call->nargs >= 2 && ce->u.call->args[1].kind == EX_FUNC) {
			if (g->kind == GUARD_NONE) {
				g->kind = GUARD_MUTEX;
				g->what = ce->u.call->args[0].text ? ce->u.call->args[0].text : "?";
				g->field = last_field(&ce->u.call->args[0]);
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
		if (!path_guarded(os, cs.v[i].fn, cs.v[i].ev, depth - 1, budget, g, open_fn))
			ok = false;
	}
	vec_free(&cs);
	return ok;
}

/* ---- other functions that touch the same state ---- */

/* Functions that see the object before or after everyone else. */
static bool exempt_fn(const struct model *m, uint32_t fi)
{
	const char *n = m->fns.v[fi].f->name;
	static const char *const parts[] = {"free", "mark", "memsize", "compact", "alloc", "dealloc", "dfree",
					    "dmark", "dsize", "initialize", "_init"};
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (strstr(n, parts[i]))
			return true;
	return false;
}

/* Does fi take the guard (itself or through every caller)? */
static bool takes_guard(struct ostate *os, uint32_t fi, const struct guard *g, int depth)
{
	const struct model *m = os->m;
	const struct mfunc *mf = &m->fns.v[fi];
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (g->kind == GUARD_MUTEX && (is_call(e, "rb_mutex_lock") || is_call(e, "rb_mutex_synchronize")) &&
		    e->u.call->nargs >= 1) {
			const char *lf = last_field(&e->u.call->args[0]);
			if ((g->field && str_eq(lf, g->field)) || str_eq(e->u.call->args[0].text, g->what))
				return true;
		}
		if (g->kind == GUARD_FLAG && e->kind == EV_ACCESS) {
			const char *rec = NULL;
			char fld[128];
			if (object_field(os, mf, &e->u.access.ref, &rec, fld, sizeof(fld)) && str_eq(fld, g->field))
				return true;
		}
	}
	if (depth <= 0)
		return false;
	caller_vec cs = {0};
	callers_of(os, fi, &cs);
	bool ok = cs.n > 0;
	for (size_t i = 0; i < cs.n && ok; i++) {
		const struct event *ce = &m->fns.v[cs.v[i].fn].f->events[cs.v[i].ev];
		if (g->kind == GUARD_MUTEX && is_call(ce, "rb_mutex_synchronize") && ce->u.call->nargs >= 1 &&
		    ((g->field && str_eq(last_field(&ce->u.call->args[0]), g->field)) ||
		     str_eq(ce->u.call->args[0].text, g->what)))
			continue;
		/* registered as a method (rb_define_method(klass, "close", fn, 0)): an entry point */
		if (ce->kind == EV_CALL && str_starts(ce->u.call->name, "rb_define_")) {
			ok = false;
			break;
		}
		ok = takes_guard(os, cs.v[i].fn, g, depth - 1) || exempt_fn(m, cs.v[i].fn);
	}
	vec_free(&cs);
	return ok;
}

/* Does fi touch field fld of record rec? Returns the event, or NULL. */
static const struct event *touches(const struct ostate *os, uint32_t fi, const char *rec, const char *fld)
{
	const struct mfunc *mf = &os->m->fns.v[fi];
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		const struct ref *r = NULL;
		if (e->kind == EV_ACCESS)
			r = &e->u.access.ref;
		else if (e->kind == EV_ASSIGN)
			r = &e->u.assign->lhs;
		if (!r)
			continue;
		const char *r2 = NULL;
		char f2[128];
		if (object_field(os, mf, r, &r2, f2, sizeof(f2)) && str_eq(r2, rec) && str_eq(f2, fld))
			return e;
	}
	return NULL;
}

/* ---- the checker ---- */

struct ofield {
	const char *rec;
	char field[128];
	const char *text; /* as written in the callback */
	struct loc loc;
	uint32_t fn;
};

void gate_check_object_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g)
{
	struct ostate os = {.m = m};
	find_records(&os);
	if (!os.nrecords)
		return;
	/* an object still being created is private to its creator */
	if (exempt_fn(m, s->data_fn))
		return;
	struct ofield fields[MAX_FIELDS];
	unsigned nf = 0;
	for (uint32_t i = 0; i < rs->n && nf < MAX_FIELDS; i++) {
		const struct mfunc *mf = &m->fns.v[rs->fns[i]];
		for (uint32_t ei = 0; ei < mf->f->nevents && nf < MAX_FIELDS; ei++) {
			const struct event *e = &mf->f->events[ei];
			const struct ref *r = e->kind == EV_ACCESS   ? &e->u.access.ref
					      : e->kind == EV_ASSIGN ? &e->u.assign->lhs
								     : NULL;
			const char *rec = NULL;
			char fld[128];
			if (!r || !object_field(&os, mf, r, &rec, fld, sizeof(fld)))
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
			of->fn = rs->fns[i];
		}
	}
	if (!nf)
		return;
	/* the guard, from the release upwards */
	struct guard gd = {0};
	uint32_t rel_fn = s->fn, rel_ev = s->ev;
	unsigned budget = 256;
	int64_t open_fn = -1;
	bool guarded = path_guarded(&os, rel_fn, rel_ev, UP_DEPTH, &budget, &gd, &open_fn) && gd.kind != GUARD_NONE;
	for (unsigned k = 0; k < nf; k++) {
		const struct ofield *of = &fields[k];
		const char *cb = m->fns.v[of->fn].f->name;
		if (!guarded && gd.kind != GUARD_NONE && open_fn >= 0) {
			struct gate_evidence *ev = gate_add(
				g, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
				"'%s' uses '%s' (field '%s' of %s, a Ruby object's C struct); %s '%s' guards some ways into "
				"the call but not the one through '%s': with RB_NOGVL_OFFLOAD_SAFE other fibers of the "
				"calling thread may use or close the object while the worker runs",
				cb, of->text ? of->text : of->field, of->field, of->rec,
				gd.kind == GUARD_MUTEX ? "the mutex" : "the in-progress flag", gd.what,
				m->fns.v[open_fn].f->name);
			gate_note_add(ev, &gd.loc, "the guard is taken here");
			gate_note_add(ev, &m->fns.v[open_fn].f->loc, "'%s' reaches the call without it",
				      m->fns.v[open_fn].f->name);
			/* and below, the other functions that skip it (close, end ...) */
		} else if (!guarded) {
			/* one piece of evidence per object struct: its first field, and how
			 * many more the callback uses */
			bool seen = false;
			unsigned more = 0;
			for (unsigned j = 0; j < nf; j++) {
				if (!str_eq(fields[j].rec, of->rec))
					continue;
				if (j < k)
					seen = true;
				else if (j > k)
					more++;
			}
			if (seen)
				continue;
			char extra[64] = "";
			if (more)
				snprintf(extra, sizeof(extra), " and %u more field%s", more, more == 1 ? "" : "s");
			gate_add(g, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
				 "'%s' uses '%s'%s of %s, a Ruby object's C struct, with no in-progress flag or mutex held "
				 "across the call: with RB_NOGVL_OFFLOAD_SAFE other fibers of the calling thread keep running "
				 "and may use or close the object while the worker runs",
				 cb, of->text ? of->text : of->field, extra, of->rec);
			continue;
		}
		/* every other function touching the field must take the guard */
		bool bad = false;
		for (uint32_t fi = 0; fi < m->fns.n && !bad; fi++) {
			if (rs->by_fn[fi].reached || fi == rel_fn || exempt_fn(m, fi))
				continue;
			const struct event *te = touches(&os, fi, of->rec, of->field);
			if (!te || takes_guard(&os, fi, &gd, UP_DEPTH))
				continue;
			struct gate_evidence *ev = gate_add(
				g, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
				"'%s' uses '%s' (field '%s' of %s) under %s '%s', but '%s' touches the same field without it: "
				"with RB_NOGVL_OFFLOAD_SAFE another fiber may call it while the worker runs",
				cb, of->text ? of->text : of->field, of->field, of->rec,
				gd.kind == GUARD_MUTEX ? "the mutex" : "the in-progress flag", gd.what,
				m->fns.v[fi].f->name);
			gate_note_add(ev, &te->loc, "'%s' touches '%s' here without %s", m->fns.v[fi].f->name, of->field,
				      gd.kind == GUARD_MUTEX ? "the mutex" : "checking the flag");
			gate_note_add(ev, &gd.loc, "the guard is taken here");
			bad = true;
		}
	}
	free_fnargs(&os);
}
