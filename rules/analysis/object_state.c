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
	/* function USR -> enum fn_role bits (rb_define_method ...), built on first use */
	struct hmap roles;
	bool roles_built;
	/* per function index: its role bits + 1 (0: not looked up yet), and
	 * whether it is exempt + 1 (exempt_fn), filled on first use */
	uint8_t *role_by_fn, *exempt_by_fn;
	/* why the last guard-like shape was not a guard (for the evidence) */
	char why[320];
	struct loc why_loc;
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

static bool is_call(const struct event *e, const char *name)
{
	return e->kind == EV_CALL && !e->u.call->indirect && str_eq(e->u.call->name, name);
}

/* ---- roles: what registers a function ---- */

enum fn_role {
	ROLE_NONE = 0,
	ROLE_METHOD = 1,
	ROLE_INIT = 2,
	ROLE_ALLOC = 4
};

static int role_lookup(struct ostate *os, uint32_t fi)
{
	const struct model *m = os->m;
	const char *usr = m->fns.v[fi].f->usr;
	if (!usr)
		return ROLE_NONE;
	if (!os->roles_built) {
		os->roles_built = true;
		for (uint32_t k = 0; k < m->fns.n; k++) {
			const struct func *f = m->fns.v[k].f;
			for (uint32_t ei = 0; ei < f->nevents; ei++) {
				const struct event *e = &f->events[ei];
				if (e->kind != EV_CALL)
					continue;
				const struct call *c = e->u.call;
				/* Ruby 3's rb_define_method is a macro dispatching on the arity:
				 * an indirect call named by its whole text */
				if (!c->name || !str_starts(c->name, "rb_define_"))
					continue;
				bool alloc = str_starts(c->name, "rb_define_alloc_func");
				bool init = c->nargs >= 2 &&
					    ((c->args[1].text && strstr(c->args[1].text, "\"initialize\"")) ||
					     strstr(c->name, "\"initialize\""));
				for (uint32_t a = 0; a < c->nargs; a++) {
					if (c->args[a].kind != EX_FUNC || !c->args[a].func_usr)
						continue;
					uintptr_t r = (uintptr_t)hmap_get(&os->roles, c->args[a].func_usr);
					r |= alloc ? ROLE_ALLOC : init ? ROLE_INIT : ROLE_METHOD;
					hmap_put(&os->roles, c->args[a].func_usr, (void *)r);
				}
			}
		}
	}
	return (int)(uintptr_t)hmap_get(&os->roles, usr);
}

static int role_of(struct ostate *os, uint32_t fi)
{
	if (!os->role_by_fn)
		os->role_by_fn = xcalloc(os->m->fns.n + 1, 1);
	if (!os->role_by_fn[fi])
		os->role_by_fn[fi] = (uint8_t)(role_lookup(os, fi) + 1);
	return os->role_by_fn[fi] - 1;
}

/* Functions that see the object before anyone else can (its allocator, the
 * method registered as initialize) or after everyone (the GC's callbacks:
 * free, mark, memsize, compact, by name, unless Ruby code can call them as a
 * method: a #free method is not exempt). */
static bool makes_object(const struct func *f)
{
	static const char *const makers[] = {"rb_data_typed_object_zalloc", "rb_data_typed_object_wrap",
					     "rb_data_object_zalloc",       "rb_data_object_wrap",
					     "rb_data_typed_object_make",   "rb_data_object_make"};
	for (uint32_t ei = 0; ei < f->nevents; ei++)
		for (size_t i = 0; i < ARRAY_SIZE(makers); i++)
			if (is_call(&f->events[ei], makers[i]))
				return true;
	return false;
}

static bool exempt_lookup(struct ostate *os, uint32_t fi)
{
	int role = role_of(os, fi);
	if (role & (ROLE_ALLOC | ROLE_INIT))
		return !(role & ROLE_METHOD);
	if (role & ROLE_METHOD)
		return false;
	/* a helper that makes the object (TypedData_Make_Struct) and fills it */
	if (makes_object(os->m->fns.v[fi].f))
		return true;
	/* the GC's callbacks by name, when nothing in the gem calls them: a
	 * helper named buf_realloc that a method calls is that method's work */
	const struct mfunc *mf = &os->m->fns.v[fi];
	if (mf->in_end != mf->in_begin)
		return false;
	const char *n = mf->f->name;
	static const char *const parts[] = {"free", "mark", "memsize", "compact", "alloc", "dfree", "dmark", "dsize"};
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (strstr(n, parts[i]))
			return true;
	return false;
}

static bool exempt_fn(struct ostate *os, uint32_t fi)
{
	if (!os->exempt_by_fn)
		os->exempt_by_fn = xcalloc(os->m->fns.n + 1, 1);
	if (!os->exempt_by_fn[fi])
		os->exempt_by_fn[fi] = (uint8_t)(exempt_lookup(os, fi) + 1);
	return os->exempt_by_fn[fi] - 1;
}

/* ---- guards ---- */

enum guard_kind {
	GUARD_NONE = 0,
	GUARD_MUTEX,
	GUARD_FLAG
};

struct guard {
	int kind;
	const char *what;  /* mutex argument text, or flag field */
	const char *field; /* the mutex's (or flag's) member name, to find it in other functions */
	const char *rec;   /* the flag's object struct (NULL for a mutex) */
	const char *mrec;  /* a mutex kept in an object struct: that struct (NULL: a global or local mutex) */
	const char *bit;   /* a bit flag (flags |= BIT): the bit's spelling */
	struct loc loc;
	char buf[128];
};

static const char *last_field(const struct expr *x)
{
	if (x->kind == EX_REF && x->ref.field)
		return x->ref.field;
	return NULL;
}

/* Does the object var (a pointer to an object struct in fi) reach the call at
 * ev: passed as an argument, or stored in a local the call is given
 * (args.conn = c; rb_nogvl(fn, &args ...))? A guard on one object says
 * nothing about another one's state. */
static bool expr_feeds(const struct ostate *os, uint32_t fi, uint32_t ev, const struct expr *x, int32_t var)
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

static bool feeds(const struct ostate *os, uint32_t fi, uint32_t ev, int32_t var)
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
static int32_t mutex_owner(const struct ostate *os, const struct mfunc *mf, const struct expr *x)
{
	if (x->kind != EX_REF || x->ref.var < 0 || !x->ref.deref)
		return -1;
	return is_object_record(os, var_record(mf, x->ref.var)) ? x->ref.var : -1;
}

static bool is_clear_value(const struct expr *x)
{
	return x->kind == EX_NULL || (x->has_ival && x->ival == 0) ||
	       (x->text && (str_eq(x->text, "Qnil") || str_eq(x->text, "Qfalse")));
}

/* A write of the flag: a set (= 1, = the fiber, |= BIT) or a clear (= 0,
 * = Qnil, &= ~BIT). Compound assignments are told apart by the spelling of
 * their operand (no operator in the facts): "~..." clears a bit. */
static bool is_flag_clear(const struct assign *a)
{
	if (a->compound)
		return a->rhs.text && a->rhs.text[0] == '~';
	return is_clear_value(&a->rhs);
}

/* Does clear c undo set s (the same bit, when both are bit operations)? */
static bool clear_undoes(const struct assign *c, const struct assign *s)
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
static bool flag_checked(const struct ostate *os, uint32_t fi, const char *rec, const char *fld, const char *bit,
			 uint32_t off)
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
static int64_t flag_written_by(const struct ostate *os, const struct reach_set *rs, const char *rec, const char *fld,
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
static void reject(struct ostate *os, const struct loc *loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
static void reject(struct ostate *os, const struct loc *loc, const char *fmt, ...)
{
	if (os->why[0])
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(os->why, sizeof(os->why), fmt, ap);
	va_end(ap);
	os->why_loc = *loc;
}

static void build_fnargs(struct ostate *os);

/* fi is the body of rb_ensure(fi, a, E, b) and E clears the flag. */
static bool ensure_clears(struct ostate *os, uint32_t fi, const char *rec, const char *fld, const struct assign *set)
{
	const char *usr = os->m->fns.v[fi].f->usr;
	if (!usr)
		return false;
	if (!os->fnargs_built)
		build_fnargs(os);
	const caller_vec *cv = hmap_get(&os->fnargs, usr);
	for (size_t i = 0; cv && i < cv->n; i++) {
		const struct event *ce = &os->m->fns.v[cv->v[i].fn].f->events[cv->v[i].ev];
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

/* A mutex or flag guard of object struct rec in function fi around its event
 * ev (the call that leads to the release). */
static bool guard_in(struct ostate *os, uint32_t fi, uint32_t ev, const char *rec, const struct reach_set *rs,
		     struct guard *g)
{
	const struct mfunc *mf = &os->m->fns.v[fi];
	const struct func *f = mf->f;
	/* rb_mutex_lock(X) ... ev ... rb_mutex_unlock(X) */
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
	/* obj->F = nonzero before ev, obj->F = 0 after, F read in a condition */
	for (uint32_t i = 0; i < ev && i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_ASSIGN)
			continue;
		const struct assign *a = e->u.assign;
		const char *frec = NULL;
		char fld[128];
		/* set: anything but the value it is cleared to (1, true, the current
		 * fiber ...); cleared: a constant (0, NULL, Qnil, Qfalse) */
		/* a flag is a member of its own (busy, flags, active_fiber), not a
		 * member of an embedded struct (stream.avail_out) */
		if (!object_field(os, mf, &a->lhs, &frec, fld, sizeof(fld)) || is_flag_clear(a) ||
		    a->lhs.path[strcspn(a->lhs.path, ".[")])
			continue;
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
			continue;
		}
		if (!feeds(os, fi, ev, a->lhs.var)) {
			if (flaglike)
				reject(os, &e->loc,
				       "the flag '%s' set here belongs to another object than the one the callback "
				       "uses",
				       fld);
			continue;
		}
		bool cleared = false;
		for (uint32_t k = ev + 1; k < f->nevents && !cleared; k++) {
			const struct event *u = &f->events[k];
			char f2[128];
			const char *r2 = NULL;
			cleared = u->kind == EV_ASSIGN &&
				  object_field(os, mf, &u->u.assign->lhs, &r2, f2, sizeof(f2)) && str_eq(r2, rec) &&
				  str_eq(f2, fld) && clear_undoes(u->u.assign, a);
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
			continue;
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
			continue;
		/* nor by the callback while the worker runs */
		struct loc wl;
		int64_t wfn = flag_written_by(os, rs, rec, fld, a, &wl);
		if (wfn >= 0) {
			if (flaglike)
				reject(os, &wl,
				       "the flag '%s' is cleared by '%s' on the worker, before the call returns", fld,
				       os->m->fns.v[wfn].f->name);
			continue;
		}
		/* checked on the way in: a condition before the set reads the flag */
		if (!flag_checked(os, fi, rec, fld, bit, e->loc.off)) {
			reject(os, &e->loc,
			       "the flag '%s' is set here but not checked before: a second caller sets it again", fld);
			continue;
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
	/* checked but set elsewhere: the flag is set by another method (a query
	 * sends, a later call reads the result), only read here and cleared after
	 * the call, so a second fiber calling this method passes the same check */
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
			for (uint32_t ofi = 0; ofi < os->m->fns.n; ofi++) {
				if (ofi == fi)
					continue;
				const struct mfunc *om = &os->m->fns.v[ofi];
				for (uint32_t ei = 0; ei < om->f->nevents; ei++) {
					const struct event *e = &om->f->events[ei];
					const char *r2 = NULL;
					char f2[128];
					if (e->kind == EV_ASSIGN &&
					    object_field(os, om, &e->u.assign->lhs, &r2, f2, sizeof(f2)) &&
					    str_eq(r2, rec) && str_eq(f2, f3) && !is_clear_value(&e->u.assign->rhs)) {
						reject(os, &rg->cond.loc,
						       "'%s' only reads the flag '%s', which '%s' sets: the flag says "
						       "the object is "
						       "in use, not by whom, so a second fiber calling '%s' passes the "
						       "same check",
						       f->name, f3, om->f->name, f->name);
						return false;
					}
				}
			}
		}
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
				const char *usr =
					e->u.call->args[a].kind == EX_FUNC ? e->u.call->args[a].func_usr : NULL;
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

static void free_ostate(struct ostate *os)
{
	hmap_foreach(&os->fnargs, e)
	{
		caller_vec *cv = e->val;
		vec_free(cv);
		free(cv);
	}
	hmap_free(&os->fnargs);
	hmap_free(&os->roles);
	free(os->role_by_fn);
	free(os->exempt_by_fn);
}

/* The tables above depend on the model alone: one offload_compute builds
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

/* Ruby functions that run the function they are given before they return:
 * its caller's guard (or privacy) holds while it runs. A function handed to
 * anything else (rb_thread_create, a registered callback) runs later, on its
 * own. */
static bool runs_now(const struct event *e)
{
	static const char *const runners[] = {"rb_ensure",     "rb_protect",           "rb_rescue",
					      "rb_rescue2",    "rb_mutex_synchronize", "rb_str_locktmp_ensure",
					      "rb_block_call", "rb_iterate",           "rb_catch",
					      "rb_catch_obj",  "rb_exec_recursive",    "rb_exec_recursive_paired"};
	for (size_t i = 0; i < ARRAY_SIZE(runners); i++)
		if (is_call(e, runners[i]))
			return true;
	return false;
}

/* The callers of fi: call-graph edges, and calls that run fi as a function
 * argument before they return (rb_ensure, rb_protect, rb_rescue,
 * rb_mutex_synchronize bodies). */
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
		if (!runs_now(&m->fns.v[cv->v[i].fn].f->events[cv->v[i].ev]))
			continue;
		bool dup = false;
		for (size_t j = 0; j < out->n && !dup; j++)
			dup = out->v[j].fn == cv->v[i].fn && out->v[j].ev == cv->v[i].ev;
		if (!dup)
			vec_push(out, cv->v[i]);
	}
}

/* Is fi private to the object's creator: its allocator, initialize, or a
 * helper only they call? */
static bool private_fn(struct ostate *os, uint32_t fi, int depth)
{
	if (exempt_fn(os, fi))
		return true;
	if (depth <= 0 || role_of(os, fi))
		return false;
	caller_vec cs = {0};
	callers_of(os, fi, &cs);
	bool ok = cs.n > 0;
	for (size_t i = 0; i < cs.n && ok; i++) {
		const struct event *ce = &os->m->fns.v[cs.v[i].fn].f->events[cs.v[i].ev];
		ok = ce->kind == EV_CALL && !str_starts(ce->u.call->name, "rb_define_") &&
		     private_fn(os, cs.v[i].fn, depth - 1);
	}
	vec_free(&cs);
	return ok;
}

/* Is every way into (fi, ev) guarded? fi itself takes the guard around ev,
 * or fi is the body of rb_mutex_synchronize, or every caller is guarded on
 * its way in (an entry point with no caller is not). budget bounds the walk. */
static bool path_guarded(struct ostate *os, uint32_t fi, uint32_t ev, const char *rec, const struct reach_set *rs,
			 int depth, unsigned *budget, struct guard *g, int64_t *open_fn)
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
static bool same_mutex(const struct ostate *os, const struct mfunc *mf, const struct expr *x, const struct guard *g)
{
	int32_t owner = mutex_owner(os, mf, x);
	if (g->mrec)
		return owner >= 0 && g->field && str_eq(last_field(x), g->field) &&
		       str_eq(var_record(mf, owner), g->mrec);
	return owner < 0 && str_eq(x->text, g->what);
}

/* Does fi take the guard (itself or through every caller)? A flag counts when
 * fi checks it (reads it in a condition). */
static bool takes_guard(struct ostate *os, uint32_t fi, const struct guard *g, int depth)
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

/* Does fi touch field fld of record rec (any field when fld is NULL; only
 * writes when writes_only)? Returns the event, or NULL. */
static const struct event *touches(const struct ostate *os, uint32_t fi, const char *rec, const char *fld,
				   bool writes_only, const char *skip)
{
	const struct mfunc *mf = &os->m->fns.v[fi];
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		const struct ref *r = NULL;
		if (e->kind == EV_ACCESS && !writes_only)
			r = &e->u.access.ref;
		else if (e->kind == EV_ASSIGN)
			r = &e->u.assign->lhs;
		if (!r)
			continue;
		const char *r2 = NULL;
		char f2[128];
		if (object_field(os, mf, r, &r2, f2, sizeof(f2)) && str_eq(r2, rec) && (!fld || str_eq(f2, fld)) &&
		    !(skip && str_eq(f2, skip)))
			return e;
	}
	return NULL;
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
				const struct ref *r = e->kind == EV_ACCESS ? &e->u.access.ref : &e->u.assign->lhs;
				if (object_field(os, mf, r, &r2, f2, sizeof(f2)))
					return NULL;
				continue;
			} else if (e->kind == EV_ACCESS)
				object_field(os, mf, &e->u.access.ref, &rec, fld, sizeof(fld));
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
};

static const char *ofield_user(const struct model *m, const struct msite *s, const struct ofield *of)
{
	return of->fn >= 0 ? m->fns.v[of->fn].f->name : io_callback_name(m, s);
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
	unsigned ncb = nf;
	/* object state the inputs gate followed into the callback's data (a
	 * handle stored in the object, `this->pgconn`): judged the same way */
	for (size_t i = from; i < inputs_ev && nf < MAX_FIELDS; i++) {
		const struct gate_evidence *ge = &g->ev.v[i];
		if (ge->gate != GATE_INPUTS || ge->state != GATE_UNKNOWN || !ge->object_owned || !ge->obj_rec ||
		    !ge->obj_field || !is_object_record(os, ge->obj_rec))
			continue;
		bool dup = false;
		for (unsigned k = 0; k < nf && !dup; k++)
			dup = str_eq(fields[k].rec, ge->obj_rec) && str_eq(fields[k].field, ge->obj_field);
		if (dup)
			continue;
		struct ofield *of = &fields[nf++];
		of->rec = ge->obj_rec;
		snprintf(of->field, sizeof(of->field), "%s", ge->obj_field);
		of->text = ge->fact_name ? arena_printf(&m->fns.v[s->fn].tu->arena, "%s", ge->fact_name) : NULL;
		of->loc = ge->loc;
		of->fn = ge->fn;
		of->cb = false;
	}
	if (!nf || (post && nf == ncb)) {
		free_ostate(&local);
		return;
	}
	uint32_t rel_fn = s->fn, rel_ev = s->ev;
	const char *settled[MAX_FIELDS];
	unsigned nsettled = 0;
	bool all_settled = true;
	/* one object struct at a time: its guard, then every other function
	 * touching its state */
	for (unsigned k = 0; k < nf; k++) {
		const struct ofield *of = &fields[k];
		bool first = true;
		for (unsigned j = 0; j < k && first; j++)
			first = !str_eq(fields[j].rec, of->rec);
		if (!first)
			continue;
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
			struct gate_evidence *ev = gate_add(
				og, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
				"'%s' uses '%s' (field '%s' of %s, a Ruby object's C struct); %s '%s' guards some ways "
				"into "
				"the call but not the one through '%s': with RB_NOGVL_OFFLOAD_SAFE other fibers of the "
				"calling thread may use or close the object while the worker runs",
				cb, of->text ? of->text : of->field, of->field, of->rec,
				gd.kind == GUARD_MUTEX ? "the mutex" : "the in-progress flag", gd.what,
				m->fns.v[open_fn].f->name);
			gate_note_add(ev, &gd.loc, "the guard is taken here");
			gate_note_add(ev, &m->fns.v[open_fn].f->loc, "'%s' reaches the call without it",
				      m->fns.v[open_fn].f->name);
			gate_result_free(&scratch);
			all_settled = false;
			continue;
		}
		if (!guarded) {
			/* one piece of evidence per object struct: its first field, and how
			 * many more the callback uses */
			unsigned more = 0;
			for (unsigned j = k + 1; j < nf; j++)
				more += str_eq(fields[j].rec, of->rec);
			char extra[64] = "", why[sizeof(os->why) + 4] = "";
			if (more)
				snprintf(extra, sizeof(extra), " and %u more field%s", more, more == 1 ? "" : "s");
			if (os->why[0])
				snprintf(why, sizeof(why), " (%s)", os->why);
			struct gate_evidence *ev = gate_add(
				og, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
				"'%s' uses '%s'%s of %s, a Ruby object's C struct, with no in-progress flag or mutex "
				"held across the call%s: with RB_NOGVL_OFFLOAD_SAFE other fibers of the calling "
				"thread keep running and may use or close the object while the worker runs",
				cb, of->text ? of->text : of->field, extra, of->rec, why);
			if (os->why[0])
				gate_note_add(ev, &os->why_loc, "%s", os->why);
			gate_result_free(&scratch);
			all_settled = false;
			continue;
		}
		/* every other function touching a field the callback uses must take
		 * the guard; one using another field of the object without it leaves
		 * the verdict open (the callback may reach that field's memory through
		 * a pointer the gate does not follow) */
		bool bad = false, open = false;
		struct gate_evidence *bev = NULL;
		uint32_t bad_fi = 0;
		const struct event *bad_te = NULL;
		const struct ofield *bad_tf = NULL;
		char others[256] = "";
		unsigned nothers = 0;
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
			if (!te && gd.kind == GUARD_FLAG)
				te = touches(os, fi, of->rec, gd.field, true, NULL); /* clears the flag */
			/* any other use of the object (memset(s->buf ...) writes through a
			 * field it only reads) leaves the verdict open */
			const struct event *we = te ? NULL : touches(os, fi, of->rec, NULL, false, gd.field);
			if ((!te && !we) || takes_guard(os, fi, &gd, UP_DEPTH))
				continue;
			if (!te) {
				open = true;
				continue;
			}
			if (bad) {
				size_t len = strlen(others);
				if (nothers < 8 && len + strlen(m->fns.v[fi].f->name) + 8 < sizeof(others))
					snprintf(others + len, sizeof(others) - len, "%s'%s'", nothers ? ", " : "",
						 m->fns.v[fi].f->name);
				nothers++;
				continue;
			}
			bad_fi = fi, bad_te = te, bad_tf = tf;
			bad = true;
		}
		if (bad) {
			const char *tfld = bad_tf ? bad_tf->field : gd.field;
			char more[300] = "";
			if (nothers)
				snprintf(more, sizeof(more), " (and %u more function%s: %s%s)", nothers,
					 nothers == 1 ? "" : "s", others, nothers > 8 ? " ..." : "");
			bev = gate_add(
				og, GATE_INPUTS, GATE_FAIL, &of->loc, (int32_t)of->fn,
				"'%s' uses '%s' (field '%s' of %s) under %s '%s', but '%s'%s touches %s without it: "
				"with RB_NOGVL_OFFLOAD_SAFE another fiber may call it while the worker runs",
				cb,
				bad_tf && bad_tf->text ? bad_tf->text
				: of->text             ? of->text
						       : of->field,
				tfld, of->rec, gd.kind == GUARD_MUTEX ? "the mutex" : "the in-progress flag", gd.what,
				m->fns.v[bad_fi].f->name, more, bad_tf ? "the same field" : "the flag");
			gate_note_add(bev, &bad_te->loc, "'%s' touches '%s' here without %s", m->fns.v[bad_fi].f->name,
				      tfld, gd.kind == GUARD_MUTEX ? "the mutex" : "checking the flag");
			gate_note_add(bev, &gd.loc, "the guard is taken here");
		}
		gate_result_free(&scratch);
		if (bad || open)
			all_settled = false;
		else
			settled[nsettled++] = of->rec;
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
