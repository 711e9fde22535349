/* state_gates_locks.c: the locks a site holds: a project's own lock functions,
 * the lock operations of each function, and GATE_LOCK (lock-across-boundary)
 * (state_ctx.h). */
#include "state_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "process_state.h"
#include "rule.h"
#include "state_knowledge.h"

/* ---- a project's own locks ----
 *
 * A gem (or the event library it bundles) often builds its own spinlock:
 *
 *   int my_trylock(lock_t *l) { return __atomic_exchange_n(l, 1, ...); }
 *   void my_lock(lock_t *l)   { while (my_trylock(l)) sched_yield(); }
 *   void my_unlock(lock_t *l) { __atomic_store_n(l, 0, ...); }
 *
 * A function is an acquire on its parameter p when, inside a loop, it sets
 * *p atomically to a non-zero value (exchange, test-and-set, compare-and-swap)
 * or calls an acquire or such a "try" function on p; or when it calls a known
 * acquire (pthread_mutex_lock, pthread_spin_lock ...) on p or a member of p.
 * A function is a release on p when it atomically sets *p to 0 (exchange,
 * store, clear) or calls a release on p. A single atomic set outside a loop
 * (a flag set once, a trylock) is not an acquire by itself. */

enum {
	OWN_NONE = 0,
	OWN_TRY = 3
}; /* with LOCK_ACQUIRE / LOCK_RELEASE */

/* The value an atomic builtin stores (and the pointer argument): 1 known
 * non-zero, 0 zero, -1 not a store of a known value / not such a builtin. */
static int atomic_store_value(const struct call *c)
{
	static const struct {
		const char *name;
		int value_arg; /* -1: fixed value below */
		int fixed;
	} fns[] = {
		{"__atomic_exchange_n", 1, 0},
		{"__atomic_store_n", 1, 0},
		{"__sync_lock_test_and_set", 1, 0},
		{"__sync_val_compare_and_swap", 2, 0},
		{"__sync_bool_compare_and_swap", 2, 0},
		{"__atomic_compare_exchange_n", 2, 0},
		{"__atomic_test_and_set", -1, 1},
		{"__atomic_clear", -1, 0},
		{"__sync_lock_release", -1, 0},
		{"atomic_exchange", 1, 0},
		{"atomic_exchange_explicit", 1, 0},
		{"atomic_store", 1, 0},
		{"atomic_store_explicit", 1, 0},
		{"atomic_flag_test_and_set", -1, 1},
		{"atomic_flag_test_and_set_explicit", -1, 1},
		{"atomic_flag_clear", -1, 0},
		{"atomic_flag_clear_explicit", -1, 0},
		{"__c11_atomic_exchange", 1, 0},
		{"__c11_atomic_store", 1, 0},
	};
	if (!c->name || c->indirect)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(fns); i++) {
		if (strcmp(c->name, fns[i].name) != 0)
			continue;
		if (fns[i].value_arg < 0)
			return fns[i].fixed;
		if ((uint32_t)fns[i].value_arg >= c->nargs || !c->args[fns[i].value_arg].has_ival)
			return -1;
		return c->args[fns[i].value_arg].ival != 0;
	}
	return -1;
}

/* Which parameter of mf the expression is based on (p, &p->mu, p->mu), -1. */
static int param_of(const struct mfunc *mf, const struct expr *a)
{
	if (!a || a->kind != EX_REF || a->ref.var < 0)
		return -1;
	for (uint32_t i = 0; i < mf->f->nparams && i < 127; i++)
		if (mf->f->params[i] == a->ref.var)
			return (int)i;
	return -1;
}

static bool in_loop(const struct func *f, int32_t region)
{
	for (int guard = 0; region >= 0 && (uint32_t)region < f->nregions && guard < 256; guard++) {
		if (f->regions[region].kind == RG_LOOP)
			return true;
		region = f->regions[region].parent;
	}
	return false;
}

static int own_lock_op(struct state_ctx *c, uint32_t fn, int *param);

/* The lock operation a call makes on a parameter of mf: OWN_* or LOCK_*. */
static int call_lock_op(struct state_ctx *c, const struct mfunc *mf, const struct event *e, int *param)
{
	const struct call *call = e->u.call;
	int v = atomic_store_value(call);
	if (v >= 0) {
		*param = call->nargs ? param_of(mf, &call->args[0]) : -1;
		if (*param < 0)
			return OWN_NONE;
		return v ? OWN_TRY : LOCK_RELEASE;
	}
	if (call->indirect)
		return OWN_NONE;
	const struct mfunc *callee = model_func_by_usr(c->m, call->usr);
	int op = OWN_NONE, arg = 0;
	if (callee) {
		op = own_lock_op(c, callee->id, &arg);
	} else {
		const struct lock_fn *lf = lock_fn_find(call->name);
		if (lf && (lf->op == LOCK_ACQUIRE || lf->op == LOCK_RELEASE)) {
			op = lf->op;
			arg = lf->arg;
		}
	}
	if (op == OWN_NONE || arg < 0 || (uint32_t)arg >= call->nargs)
		return OWN_NONE;
	*param = param_of(mf, &call->args[arg]);
	return *param < 0 ? OWN_NONE : op;
}

/* LOCK_ACQUIRE / LOCK_RELEASE / OWN_TRY when fn is one of the project's own
 * lock functions (on parameter *param), else OWN_NONE. */
static int own_lock_op(struct state_ctx *c, uint32_t fn, int *param)
{
	if (c->own_state[fn] == 2) {
		*param = c->own_param[fn];
		return c->own_op[fn];
	}
	if (c->own_state[fn] == 1)
		return OWN_NONE; /* recursion */
	c->own_state[fn] = 1;
	const struct mfunc *mf = &c->m->fns.v[fn];
	int op = OWN_NONE, p = -1;
	bool conflict = false;
	if (!(mf->f->flags & FN_TRUNCATED) && mf->f->nparams >= 1) {
		struct call_walk w;
		for (call_walk_init(&w, c->m, (int32_t)fn, CALLS_UNGUARDED); !conflict && call_walk_next(&w);) {
			const struct event *e = w.e;
			int cp = -1;
			int o = call_lock_op(c, mf, e, &cp);
			if (o == OWN_NONE)
				continue;
			/* a try in a loop (spinning until it succeeds) is an acquire */
			if (o == OWN_TRY && in_loop(mf->f, e->region))
				o = LOCK_ACQUIRE;
			/* the strongest op wins; two different parameters or an acquire
			 * and a release together (a "lock then unlock" helper) are not a
			 * lock function */
			if (op == OWN_NONE || (op == OWN_TRY && o == LOCK_ACQUIRE && p == cp)) {
				op = o;
				p = cp;
			} else if (o == OWN_TRY && op == LOCK_ACQUIRE && p == cp) {
				/* the try inside the acquiring loop */
			} else if (o != op || cp != p) {
				conflict = true;
			}
		}
	}
	if (conflict)
		op = OWN_NONE;
	c->own_state[fn] = 2;
	c->own_op[fn] = (int8_t)op;
	c->own_param[fn] = (int8_t)p;
	*param = p;
	return op;
}

static const lockop_vec *fn_locks(struct state_ctx *c, uint32_t fn)
{
	if (c->locks_done[fn])
		return &c->locks[fn];
	c->locks_done[fn] = 1;
	const struct mfunc *mf = &c->m->fns.v[fn];
	struct call_walk w;
	for (call_walk_init(&w, c->m, (int32_t)fn, CALLS_UNGUARDED | CALLS_DIRECT); call_walk_next(&w);) {
		const struct event *e = w.e;
		uint32_t ei = w.ei;
		const char *texts[3] = {NULL, NULL, NULL};
		for (uint32_t a = 0; a < e->u.call->nargs && a < 3; a++)
			texts[a] = e->u.call->args[a].text;
		struct lock_fn buf;
		const struct mfunc *callee = project_callee(c->m, e->u.call);
		const struct lock_fn *lf = callee ? NULL
						  : lock_fn_classify(e->u.call->name, texts,
								     e->u.call->nargs < 3 ? e->u.call->nargs : 3, &buf);
		if (callee) {
			/* the project's own lock and unlock functions */
			int p = -1;
			int o = own_lock_op(c, callee->id, &p);
			if ((o == LOCK_ACQUIRE || o == LOCK_RELEASE) && p >= 0) {
				buf.name = e->u.call->name;
				buf.op = o;
				buf.arg = p;
				buf.source = "the project's own lock function";
				lf = &buf;
			}
		}
		if (!lf || (uint32_t)lf->arg >= e->u.call->nargs)
			continue;
		const struct expr *a = &e->u.call->args[lf->arg];
		struct lockop op = {ei,
				    lf->op,
				    mutex_key(c, mf, a),
				    strip_amp(c, a->text),
				    returning_region(mf->f, e->region),
				    callee != NULL};
		vec_push(&c->locks[fn], op);
	}
	return &c->locks[fn];
}

static bool op_applies(const struct func *f, const struct lockop *op, uint32_t at)
{
	return op->ev < at && (op->scope < 0 || region_within(f, f->events[at].region, op->scope));
}

/* Locks held just before event `at` of fn (any mutex when key is NULL). */
int held_before(struct state_ctx *c, uint32_t fn, uint32_t at, const char *key)
{
	const lockop_vec *ops = fn_locks(c, fn);
	const struct func *f = c->m->fns.v[fn].f;
	int n = 0;
	for (size_t i = 0; i < ops->n; i++) {
		const struct lockop *op = &ops->v[i];
		if (key && op->key != key)
			continue;
		if (!op_applies(f, op, at))
			continue;
		if (op->op == LOCK_ACQUIRE)
			n++;
		else if (op->op == LOCK_RELEASE && n > 0)
			n--;
	}
	return n;
}

/* The site and the wrapper sites inside it: each (function, event) that
 * makes the release call, outermost first. */
uint32_t site_callers(const struct model *m, const struct msite *s, const struct msite **out, uint32_t max)
{
	uint32_t n = 0;
	for (const struct msite *cur = s; cur && n < max; cur = cur->inner >= 0 ? &m->sites.v[cur->inner] : NULL)
		out[n++] = cur;
	return n;
}

/* The first event after s->ev in s's function that is another release call. */
uint32_t next_site_event(const struct model *m, const struct msite *s)
{
	uint32_t end = m->fns.v[s->fn].f->nevents;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *o = &m->sites.v[i];
		if (o->fn == s->fn && o->ev > s->ev && o->ev < end)
			end = o->ev;
	}
	return end;
}

/* ---- GATE_LOCK ---- */

struct key_ops {
	const char *key;
	int acquires, releases, waits;
	const struct lockop *first_acquire, *first_release, *first_wait;
	uint32_t acq_fn, rel_fn, wait_fn;
};

typedef VEC(struct key_ops) key_ops_vec;

static struct key_ops *key_ops_get(key_ops_vec *v, const char *key)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].key == key)
			return &v->v[i];
	struct key_ops k = {0};
	k.key = key;
	vec_push(v, k);
	return &v->v[v->n - 1];
}

/* A lock operation on key outside the reach set (the other side), for the
 * note: the first one found in a function the callback does not reach. */
static bool lock_elsewhere(struct state_ctx *c, const struct reach_set *rs, const char *key, int op, uint32_t *pfn,
			   const struct lockop **pop)
{
	for (uint32_t fi = 0; fi < c->m->fns.n; fi++) {
		if (in_reach(rs, fi))
			continue;
		const lockop_vec *ops = fn_locks(c, fi);
		for (size_t i = 0; i < ops->n; i++)
			if (ops->v[i].key == key && ops->v[i].op == op) {
				*pfn = fi;
				*pop = &ops->v[i];
				return true;
			}
	}
	return false;
}

/* The lock operations of the functions a callback reaches, by mutex. */
static void collect_key_ops(struct state_ctx *c, const struct reach_set *rs, key_ops_vec *keys)
{
	for (uint32_t i = 0; i < rs->n; i++) {
		uint32_t fi = rs->fns[i];
		const lockop_vec *ops = fn_locks(c, fi);
		for (size_t k = 0; k < ops->n; k++) {
			const struct lockop *op = &ops->v[k];
			/* a helper's own lock calls: the helper is in the reach set too */
			if (!op->key || op->own)
				continue;
			struct key_ops *ko = key_ops_get(keys, op->key);
			if (op->op == LOCK_ACQUIRE) {
				if (!ko->acquires++) {
					ko->first_acquire = op;
					ko->acq_fn = fi;
				}
			} else if (op->op == LOCK_RELEASE) {
				if (!ko->releases++) {
					ko->first_release = op;
					ko->rel_fn = fi;
				}
			} else if (!ko->waits++) {
				ko->first_wait = op;
				ko->wait_fn = fi;
			}
		}
	}
}

/* Mutexes reached through pointers (a helper's parameter): only an unlock in a
 * callback that locks nothing at all is certain. */
static void wild_unlock(const struct model *m, struct gate_result *g, const struct key_ops *ko, bool any_acquire,
			const char *cb)
{
	if (any_acquire || !ko->first_release)
		return;
	const struct mfunc *rf = &m->fns.v[ko->rel_fn];
	struct gate_evidence *ev =
		gate_add(g, GATE_LOCK, GATE_FAIL, &rf->f->events[ko->first_release->ev].loc, (int32_t)ko->rel_fn,
			 "'%s' unlocks mutex '%s', which the callback does not lock itself: with "
			 "RB_NOGVL_OFFLOAD_SAFE '%s' may run on another thread than the one that locked it; "
			 "lock "
			 "and unlock on the same side of the call",
			 rf->f->name, ko->first_release->text, cb);
	ev->rule = "lock-across-boundary";
	ev->ev = (int32_t)ko->first_release->ev;
	return;
}

/* What the callers of a site do with a mutex: hold it across the call, or
 * unlock it after. */
struct caller_locks {
	const struct lockop *held, *after;
	uint32_t held_fn, after_fn;
};

static void caller_side(struct state_ctx *c, const struct msite *s, const struct msite *const *callers, uint32_t nc,
			const struct key_ops *ko, struct caller_locks *cl)
{
	const struct model *m = c->m;
	for (uint32_t ci = 0; ci < nc; ci++) {
		const struct msite *cs = callers[ci];
		const lockop_vec *ops = fn_locks(c, cs->fn);
		const struct func *f = m->fns.v[cs->fn].f;
		if (!cl->held && held_before(c, cs->fn, cs->ev, ko->key) > 0) {
			for (size_t k = 0; k < ops->n; k++)
				if (ops->v[k].key == ko->key && ops->v[k].op == LOCK_ACQUIRE &&
				    op_applies(f, &ops->v[k], cs->ev))
					cl->held = &ops->v[k];
			cl->held_fn = cs->fn;
		}
		if (!cl->after) {
			uint32_t end = cs == s ? next_site_event(m, cs) : f->nevents;
			int relocked = 0;
			for (size_t k = 0; k < ops->n; k++) {
				const struct lockop *op = &ops->v[k];
				if (op->key != ko->key || op->ev <= cs->ev || op->ev >= end)
					continue;
				if (op->op == LOCK_ACQUIRE)
					relocked++;
				else if (op->op == LOCK_RELEASE && !relocked) {
					cl->after = op;
					cl->after_fn = cs->fn;
					break;
				} else if (op->op == LOCK_RELEASE)
					relocked--;
			}
		}
	}
}

/* Releases (and condition waits) of a mutex the callback does not lock. */
static void release_crossing(struct state_ctx *c, const struct reach_set *rs, struct gate_result *g,
			     const struct key_ops *ko, const struct caller_locks *cl, const char *cb)
{
	const struct model *m = c->m;
	const struct lockop *rel = ko->first_release ? ko->first_release : NULL;
	uint32_t rel_fn = ko->rel_fn;
	const char *verb = "unlocks";
	if (!rel && ko->first_wait) {
		rel = ko->first_wait;
		rel_fn = ko->wait_fn;
		verb = "waits on a condition with";
	}
	/* with the caller holding it, a release not preceded by an acquire in
	 * its own function (unlock, work, re-lock) crosses too */
	if (rel && cl->held && ko->acquires) {
		const struct lockop *ops = fn_locks(c, rel_fn)->v;
		size_t nops = fn_locks(c, rel_fn)->n;
		bool own = false;
		for (size_t k = 0; k < nops && ops[k].ev < rel->ev; k++)
			if (ops[k].key == ko->key && ops[k].op == LOCK_ACQUIRE)
				own = true;
		if (own)
			rel = NULL;
	}
	if (rel && (cl->held || !ko->acquires)) {
		const struct mfunc *rf = &m->fns.v[rel_fn];
		const struct event *re = &rf->f->events[rel->ev];
		uint32_t ofn = 0;
		const struct lockop *other = NULL;
		if (cl->held) {
			other = cl->held;
			ofn = cl->held_fn;
		} else if (!lock_elsewhere(c, rs, ko->key, LOCK_ACQUIRE, &ofn, &other)) {
			other = NULL;
		}
		struct gate_evidence *ev;
		if (cl->held)
			ev = gate_add(g, GATE_LOCK, GATE_FAIL, &re->loc, (int32_t)rel_fn,
				      "'%s' %s mutex '%s' that the caller locked before the GVL was released: "
				      "with RB_NOGVL_OFFLOAD_SAFE '%s' may run on another thread, which does not "
				      "own it; lock and unlock on the same side of the call",
				      rf->f->name, verb, rel->text, cb);
		else
			ev = gate_add(g, GATE_LOCK, GATE_FAIL, &re->loc, (int32_t)rel_fn,
				      "'%s' %s mutex '%s', which the callback does not lock itself: with "
				      "RB_NOGVL_OFFLOAD_SAFE '%s' may run on another thread than the one that "
				      "locked it; lock and unlock on the same side of the call",
				      rf->f->name, verb, rel->text, cb);
		ev->rule = "lock-across-boundary";
		ev->ev = (int32_t)rel->ev;
		if (other) {
			const struct mfunc *of = &m->fns.v[ofn];
			gate_note_add(ev, &of->f->events[other->ev].loc, "'%s' is locked here, in '%s'", other->text,
				      of->f->name);
		}
	}
}

/* Acquisitions the callback leaves for someone else to release. */
static void acquire_left(struct state_ctx *c, const struct reach_set *rs, struct gate_result *g,
			 const struct key_ops *ko, const struct caller_locks *cl, const char *cb)
{
	const struct model *m = c->m;
	if (ko->first_acquire && !ko->releases) {
		uint32_t ofn = 0;
		const struct lockop *other = cl->after;
		if (other)
			ofn = cl->after_fn;
		else if (!lock_elsewhere(c, rs, ko->key, LOCK_RELEASE, &ofn, &other))
			other = NULL;
		if (!other)
			return; /* never unlocked anywhere: not a boundary problem */
		const struct mfunc *af = &m->fns.v[ko->acq_fn];
		const struct event *ae = &af->f->events[ko->first_acquire->ev];
		struct gate_evidence *ev =
			gate_add(g, GATE_LOCK, GATE_FAIL, &ae->loc, (int32_t)ko->acq_fn,
				 "'%s' locks mutex '%s' and leaves it locked for %s to unlock: with "
				 "RB_NOGVL_OFFLOAD_SAFE "
				 "'%s' may run on another thread, so the unlock would come from a thread that "
				 "does not own "
				 "it; lock and unlock on the same side of the call",
				 af->f->name, ko->first_acquire->text, cl->after ? "the caller" : "other code", cb);
		ev->rule = "lock-across-boundary";
		ev->ev = (int32_t)ko->first_acquire->ev;
		const struct mfunc *of = &m->fns.v[ofn];
		gate_note_add(ev, &of->f->events[other->ev].loc, "'%s' is unlocked here, in '%s'", other->text,
			      of->f->name);
	}
}

void gate_check_locks(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	struct state_ctx c;
	ctx_init(&c, m);
	key_ops_vec keys = {0};
	collect_key_ops(&c, rs, &keys);
	const struct msite *callers[8];
	uint32_t nc = site_callers(m, s, callers, 8);
	const char *cb = cb_name(m, s);
	bool any_acquire = false;
	for (size_t i = 0; i < keys.n; i++)
		if (keys.v[i].acquires)
			any_acquire = true;
	const char *wild = intern(&c.pool, "?");
	for (size_t i = 0; i < keys.n; i++) {
		struct key_ops *ko = &keys.v[i];
		if (ko->key == wild) {
			wild_unlock(m, g, ko, any_acquire, cb);
			continue;
		}
		struct caller_locks cl = {0};
		caller_side(&c, s, callers, nc, ko, &cl);
		release_crossing(&c, rs, g, ko, &cl, cb);
		acquire_left(&c, rs, g, ko, &cl, cb);
	}
	vec_free(&keys);
	ctx_free(&c);
}
