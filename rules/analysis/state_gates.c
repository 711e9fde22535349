/* state_gates.c: the shared and thread state gates of the offload check
 * (gates.h) and the evidence the four state rules report:
 *
 *   GATE_SHARED_STATE  -> shared-mutable-state, mt-unsafe-call
 *   GATE_THREAD_STATE  -> thread-local-state (offload only)
 *   GATE_ERROR_CHANNEL -> thread-local-state (offload only)
 *   GATE_LOCK          -> lock-across-boundary (offload only)
 *
 * Every checker looks at one release site: the functions its callback
 * reaches without the GVL (a reach set) and, for the error channel and the
 * locks, the caller's events around the call. Sources: gvl-semantics.md 2.4
 * (only errno is carried back), 2.7 (the calling thread's state is not
 * visible to an offloaded callback), rules 13; design.md section 5;
 * real-world.md (a TLS seed set and cleared inside one callback is fine;
 * locks released in a later callback are not; error queues read after the
 * call are not).
 */
#include <stdlib.h>
#include <string.h>

#include "gates.h"
#include "libmodel.h"
#include "process_state.h"
#include "rule.h"
#include "state_knowledge.h"
#include "state_rules.h"

/* ---- small helpers ---- */

static bool static_storage(const struct var *v)
{
	return v && (v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC || v->kind == VK_LOCAL_STATIC);
}

/* Flags of a global, merged with its linked definition (an extern
 * declaration may not say _Atomic or const the way the definition does). */
static uint32_t var_flags(const struct model *m, const struct var *v)
{
	uint32_t f = v->flags;
	if (v->usr && (v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC)) {
		const struct var *g = hmap_get(&m->globals, v->usr);
		if (g)
			f |= g->flags & (VF_CONST | VF_ATOMIC | VF_TLS | VF_MUTEX);
	}
	return f;
}

static const char *storage_text(const struct var *v)
{
	switch (v->kind) {
	case VK_GLOBAL:
		return "global";
	case VK_FILE_STATIC:
		return "static";
	case VK_LOCAL_STATIC:
		return "static local";
	default:
		return "variable";
	}
}

static bool plain_path(const struct ref *r)
{
	return !r->path || !*r->path;
}

static const struct mfunc *project_callee(const struct model *m, const struct call *c)
{
	return c->indirect ? NULL : model_func_by_usr(m, c->usr);
}

/* A call of a library function (no body in the project, not through a pointer). */
static bool library_call(const struct model *m, const struct event *e)
{
	return e->kind == EV_CALL && !e->u.call->indirect && e->u.call->name && !model_func_by_usr(m, e->u.call->usr);
}

/* The name to show for a call: the macro the user wrote (memcpy, MEMCPY)
 * when the call is that macro's expansion, else the callee. */
static const char *call_display(const struct event *e)
{
	if (e->macro && !e->in_macro_arg)
		return e->macro;
	return e->u.call->name;
}

static bool in_reach(const struct reach_set *rs, uint32_t fn)
{
	return rs->by_fn[fn].reached != 0;
}

static bool region_within(const struct func *f, int32_t r, int32_t anc)
{
	for (unsigned guard = 0; r >= 0 && guard < 4096; guard++) {
		if (r == anc)
			return true;
		r = f->regions[r].parent;
	}
	return false;
}

/* The innermost region around r (itself included, the body excluded) that
 * ends by returning: what happens there does not carry on after it. */
static int32_t returning_region(const struct func *f, int32_t r)
{
	for (unsigned guard = 0; r >= 0 && guard < 4096; guard++) {
		if (f->regions[r].kind == RG_BODY)
			return -1;
		if (f->regions[r].ends_with_return)
			return r;
		r = f->regions[r].parent;
	}
	return -1;
}

static const char *cb_name(const struct model *m, const struct msite *s)
{
	if (s->cb.ntargets)
		return m->fns.v[s->cb.targets[0]].f->name;
	if (s->cb.nexternal)
		return s->cb.external[0];
	return s->cb.text ? s->cb.text : "the callback";
}

/* ---- mutexes ---- */

struct lockop {
	uint32_t ev;
	int op;           /* enum lock_op */
	const char *key;  /* interned identity, NULL when unknown */
	const char *text; /* as written, without a leading '&' */
	int32_t scope;    /* returning region the op is confined to, -1 */
	uint8_t own;      /* a call of the project's own lock function (its body's
			      operations are seen where it is reached) */
};
typedef VEC(struct lockop) lockop_vec;

struct state_ctx {
	const struct model *m;
	struct strpool pool;
	lockop_vec *locks; /* by mfunc id, filled on demand */
	uint8_t *locks_done;
	/* static-only pointer analysis: per TU, per var: 0 unknown, 1 busy, 2 yes, 3 no */
	uint8_t **so_memo;
	const struct var ***so_witness;
	struct hmap defs; /* global USR -> its definition (not an extern declaration) */
	bool defs_done;
	struct hmap first_write; /* "fn:var" -> index + 1 of the reported write in the gate result */
	/* a project's own lock functions (own_lock_op): per mfunc id, 0 not yet
	 * known, 1 being computed, 2 known; the op (0 none) and its parameter */
	uint8_t *own_state;
	int8_t *own_op;
	int8_t *own_param;
	struct hmap life; /* lifecycle_scan */
	bool life_done;
};

static void ctx_init(struct state_ctx *c, const struct model *m)
{
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->locks = xcalloc(m->fns.n + 1, sizeof(lockop_vec));
	c->locks_done = xcalloc(m->fns.n + 1, 1);
	c->own_state = xcalloc(m->fns.n + 1, 1);
	c->own_op = xcalloc(m->fns.n + 1, 1);
	c->own_param = xcalloc(m->fns.n + 1, 1);
	c->so_memo = xcalloc(m->ntus + 1, sizeof(uint8_t *));
	c->so_witness = xcalloc(m->ntus + 1, sizeof(const struct var **));
}

static void ctx_free(struct state_ctx *c)
{
	for (size_t i = 0; i < c->m->fns.n; i++)
		vec_free(&c->locks[i]);
	free(c->locks);
	free(c->locks_done);
	free(c->own_state);
	free(c->own_op);
	free(c->own_param);
	for (size_t i = 0; i < c->m->ntus; i++) {
		free(c->so_memo[i]);
		free(c->so_witness[i]);
	}
	free(c->so_memo);
	free(c->so_witness);
	hmap_free(&c->defs);
	hmap_free(&c->first_write);
	hmap_free(&c->life);
	strpool_free(&c->pool);
}

/* Where to point "declared here": the definition of a global rather than an
 * extern declaration in a header. */
static const struct var *def_var(struct state_ctx *c, const struct var *v)
{
	if (!v->usr || !(v->flags & VF_EXTERN_DECL))
		return v;
	if (!c->defs_done) {
		c->defs_done = true;
		for (size_t t = 0; t < c->m->ntus; t++) {
			const struct tu_facts *tu = c->m->tus[t];
			for (size_t i = 0; i < tu->vars.n; i++) {
				const struct var *d = &tu->vars.v[i];
				if (d->usr && (d->kind == VK_GLOBAL || d->kind == VK_FILE_STATIC) &&
				    !(d->flags & VF_EXTERN_DECL) && !hmap_has(&c->defs, d->usr))
					hmap_put(&c->defs, d->usr, (void *)d);
			}
		}
	}
	const struct var *d = hmap_get(&c->defs, v->usr);
	return d ? d : v;
}

/* Identity of the mutex an argument names, comparable across functions:
 * a global/static object by its USR and member path, a struct member by
 * record and field (&conn->lock and &c->lock are the same lock), a local or
 * parameter by function and variable. NULL when it cannot be told. */
static const char *mutex_key(struct state_ctx *c, const struct mfunc *mf, const struct expr *a)
{
	if (!a || a->kind != EX_REF)
		return NULL;
	const struct var *v = mf_var(mf, a->ref.var);
	if (!v)
		return NULL;
	const char *path = a->ref.path ? a->ref.path : "";
	char *k = NULL;
	if (static_storage(v) && !a->ref.ptr_deref)
		k = xasprintf("g:%s:%s", v->usr ? v->usr : v->name, path);
	else if (a->ref.field && a->ref.record)
		k = xasprintf("m:%s.%s", a->ref.record, a->ref.field);
	else if (!*path && !a->ref.addr && (v->kind == VK_PARAM || (v->flags & VF_POINTER)))
		return intern(&c->pool, "?"); /* a mutex pointer: which mutex is not known here */
	else if (!*path)
		k = xasprintf("v:%u:%d", mf->id, a->ref.var);
	if (!k)
		return NULL;
	const char *r = intern(&c->pool, k);
	free(k);
	return r;
}

static const char *strip_amp(struct state_ctx *c, const char *t)
{
	if (!t)
		return "?";
	while (*t == '&' || *t == ' ')
		t++;
	return intern(&c->pool, t);
}

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
		for (uint32_t ei = 0; ei < mf->f->nevents && !conflict; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || e->gvl_guard)
				continue;
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
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (e->kind != EV_CALL || e->gvl_guard || e->u.call->indirect)
			continue;
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
static int held_before(struct state_ctx *c, uint32_t fn, uint32_t at, const char *key)
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
static uint32_t site_callers(const struct model *m, const struct msite *s, const struct msite **out, uint32_t max)
{
	uint32_t n = 0;
	for (const struct msite *cur = s; cur && n < max; cur = cur->inner >= 0 ? &m->sites.v[cur->inner] : NULL)
		out[n++] = cur;
	return n;
}

/* The first event after s->ev in s's function that is another release call. */
static uint32_t next_site_event(const struct model *m, const struct msite *s)
{
	uint32_t end = m->fns.v[s->fn].f->nevents;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *o = &m->sites.v[i];
		if (o->fn == s->fn && o->ev > s->ev && o->ev < end)
			end = o->ev;
	}
	return end;
}

/* ---- static-only pointers ----
 *
 * A pointer "can only point at statics" when every value it can hold is the
 * address of a global or static object (or a pointer into one):
 *   - a local pointer: every assignment to it (initialiser included) stores
 *     such an address, or moves it with += / ++; its own address is never
 *     taken;
 *   - a parameter: every call that reaches the function (direct, through a
 *     resolved pointer, as a release site's callback with its data1, or from
 *     rb_thread_call_with_gvl) passes such an address in that position, and
 *     no library is handed the function (it could call it with anything).
 * Static pointer variables are not static-only: what they point at is not
 * known (writes through them are "cannot verify" for the gate). */

static size_t tu_index(const struct model *m, const struct tu_facts *tu)
{
	for (size_t i = 0; i < m->ntus; i++)
		if (m->tus[i] == tu)
			return i;
	return 0;
}

static bool so_var(struct state_ctx *c, const struct mfunc *mf, int32_t var, const struct var **witness);

/* Whether expression e, evaluated in mf, is the address of static storage
 * (witness: that static). */
static bool so_expr(struct state_ctx *c, const struct mfunc *mf, const struct expr *e, const struct var **witness)
{
	if (!e)
		return false;
	if (e->kind == EX_OTHER && e->nreads >= 1 && e->text) {
		/* pointer arithmetic: buf + n, p - 1 */
		const struct var *v = mf_var(mf, e->reads[0].var);
		if (!v || !plain_path(&e->reads[0]))
			return false;
		size_t n = strlen(v->name);
		const char *t = e->text;
		while (*t == '(')
			t++;
		if (strncmp(t, v->name, n) != 0)
			return false;
		t += n;
		while (*t == ' ')
			t++;
		if (*t != '+' && *t != '-')
			return false;
		struct expr tmp = {0};
		tmp.kind = EX_REF;
		tmp.ref = e->reads[0];
		return so_expr(c, mf, &tmp, witness);
	}
	if (e->kind != EX_REF)
		return false;
	const struct var *v = mf_var(mf, e->ref.var);
	if (!v)
		return false;
	if (static_storage(v)) {
		uint32_t fl = var_flags(c->m, v);
		if (fl & (VF_TLS | VF_CONST | VF_RUBY_HEADER | VF_SYSTEM_HEADER))
			return false;
		/* &g, an array g, or the value of a pointer g: a copy of the one
		 * pointer every thread reads points at the one shared object */
		bool ok = (e->ref.addr && !e->ref.ptr_deref) ||
			  (!e->ref.addr && !e->ref.deref && (fl & (VF_ARRAY | VF_POINTER)) && plain_path(&e->ref));
		if (ok)
			*witness = v;
		return ok;
	}
	if (v->kind != VK_LOCAL && v->kind != VK_PARAM)
		return false;
	if (!e->ref.addr && !e->ref.deref && plain_path(&e->ref))
		return so_var(c, mf, e->ref.var, witness);
	if (e->ref.addr && e->ref.ptr_deref) /* &p->f, &p[i] */
		return so_var(c, mf, e->ref.var, witness);
	return false;
}

static bool fn_handed_to_library(const struct model *m, const struct mfunc *mf)
{
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++)
		if (m->edges.v[m->in_edges.v[k]].kind == EDGE_FNARG)
			return true;
	return false;
}

static bool so_param(struct state_ctx *c, const struct mfunc *mf, const struct var *v, const struct var **witness)
{
	const struct model *m = c->m;
	if (fn_handed_to_library(m, mf))
		return false;
	unsigned sources = 0;
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *ed = &m->edges.v[m->in_edges.v[k]];
		const struct mfunc *caller = &m->fns.v[ed->from];
		const struct call *call = caller->f->events[ed->ev].u.call;
		if ((uint32_t)v->param_index >= call->nargs)
			return false;
		if (!so_expr(c, caller, &call->args[v->param_index], witness))
			return false;
		sources++;
	}
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template)
			continue;
		for (uint32_t t = 0; t < s->cb.ntargets; t++) {
			if (s->cb.targets[t] != mf->id)
				continue;
			if (v->param_index != 0 || !so_expr(c, &m->fns.v[s->data_fn], s->data1, witness))
				return false;
			sources++;
		}
		for (uint32_t t = 0; t < s->ubf.ntargets; t++) {
			if (s->ubf.targets[t] != mf->id)
				continue;
			if (v->param_index != 0 || !so_expr(c, &m->fns.v[s->data_fn], s->data2, witness))
				return false;
			sources++;
		}
	}
	for (size_t i = 0; i < m->withgvl.n; i++) {
		const struct withgvl_call *w = &m->withgvl.v[i];
		for (uint32_t t = 0; t < w->target.ntargets; t++) {
			if (w->target.targets[t] != mf->id)
				continue;
			const struct mfunc *caller = &m->fns.v[w->fn];
			const struct call *call = caller->f->events[w->ev].u.call;
			if (v->param_index != 0 || call->nargs < 2 || !so_expr(c, caller, &call->args[1], witness))
				return false;
			sources++;
		}
	}
	return sources > 0;
}

static bool so_local(struct state_ctx *c, const struct mfunc *mf, int32_t var, const struct var **witness)
{
	unsigned assigns = 0;
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (e->kind == EV_ACCESS && e->u.access.ref.var == var && (e->u.access.mode & ACC_ADDR) &&
		    plain_path(&e->u.access.ref))
			return false; /* &p: may be set anywhere */
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var || !plain_path(&e->u.assign->lhs) ||
		    e->u.assign->lhs.deref)
			continue;
		if (e->u.assign->compound)
			continue; /* p += n stays inside the same object */
		if (!so_expr(c, mf, &e->u.assign->rhs, witness))
			return false;
		assigns++;
	}
	return assigns > 0;
}

static bool so_var(struct state_ctx *c, const struct mfunc *mf, int32_t var, const struct var **witness)
{
	const struct var *v = mf_var(mf, var);
	if (!v || !(v->flags & VF_POINTER))
		return false;
	size_t ti = tu_index(c->m, mf->tu);
	if (!c->so_memo[ti]) {
		c->so_memo[ti] = xcalloc(mf->tu->vars.n + 1, 1);
		c->so_witness[ti] = xcalloc(mf->tu->vars.n + 1, sizeof(const struct var *));
	}
	uint8_t *memo = &c->so_memo[ti][var];
	if (*memo == 2) {
		*witness = c->so_witness[ti][var];
		return true;
	}
	if (*memo)
		return false; /* no, or a cycle: stay silent */
	*memo = 1;
	const struct var *w = NULL;
	bool ok = false;
	if (v->kind == VK_LOCAL)
		ok = so_local(c, mf, var, &w);
	else if (v->kind == VK_PARAM && v->fn == (int32_t)(mf->f - mf->tu->funcs.v))
		ok = so_param(c, mf, v, &w);
	c->so_memo[ti][var] = ok ? 2 : 3;
	if (ok) {
		c->so_witness[ti][var] = w;
		*witness = w;
	}
	return ok;
}

/* ---- fork children ----
 *
 * After fork() returns 0 the child process has one thread, the one that
 * called fork: the code of a child branch (`if (pid == 0) {...}`, the else
 * of `if (pid) ... else {...}`) runs alone, whatever other threads of the
 * parent do. The parent branch and the code after the if are concurrent as
 * usual. The pid must come from fork()/vfork() (or a project function whose
 * body returns fork()'s result) and from nothing else. */

static bool fork_name(const char *n)
{
	return str_eq(n, "fork") || str_eq(n, "vfork") || str_eq(n, "__fork") || str_eq(n, "__libc_fork");
}

/* A call that returns a fork() result: fork itself, or a project function
 * every return of which is `return fork();`. */
static bool fork_call(const struct model *m, const struct call *c)
{
	if (!c || c->indirect || !c->name)
		return false;
	if (fork_name(c->name))
		return !model_func_by_usr(m, c->usr);
	const struct mfunc *mf = project_callee(m, c);
	if (!mf)
		return false;
	const struct func *f = mf->f;
	bool any = false;
	for (uint32_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_RETURN)
			continue;
		const struct expr *r = e->u.ret;
		if (r->kind != EX_CALL || r->call < 0 || (uint32_t)r->call >= f->nevents ||
		    f->events[r->call].kind != EV_CALL || f->events[r->call].u.call->indirect ||
		    !fork_name(f->events[r->call].u.call->name))
			return false;
		any = true;
	}
	return any;
}

/* Local var of f holds a fork() result: it is stored from a fork call and
 * from nothing else (no other assignment, no address taken). */
static bool fork_pid_var(const struct model *m, const struct func *f, int32_t var)
{
	bool from_fork = false;
	for (uint32_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind == EV_CALL && e->u.call->result.var == var && plain_path(&e->u.call->result)) {
			if (!fork_call(m, e->u.call))
				return false;
			from_fork = true;
		} else if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == var) {
			const struct expr *r = &e->u.assign->rhs;
			if (r->kind != EX_CALL || r->call < 0 || (uint32_t)r->call >= f->nevents ||
			    f->events[r->call].kind != EV_CALL || !fork_call(m, f->events[r->call].u.call))
				return false;
		} else if (e->kind == EV_ACCESS && e->u.access.ref.var == var &&
			   (e->u.access.ref.addr || (e->u.access.mode & ACC_ADDR))) {
			return false;
		}
	}
	return from_fork;
}

/* The condition text, with the variable's name removed, tests it against
 * zero: "" (plain `v`), "== 0", "!= 0" (and the mirrored forms). Returns 1
 * when true means v != 0, -1 when true means v == 0, 0 when unknown. */
static int zero_test(const char *text, const char *name)
{
	size_t n = strlen(name);
	if (str_eq(text, name))
		return 1;
	if (strncmp(text, name, n) == 0) {
		const char *r = text + n;
		if (str_eq(r, " != 0") || str_eq(r, "!=0"))
			return 1;
		if (str_eq(r, " == 0") || str_eq(r, "==0"))
			return -1;
		return 0;
	}
	const char *t = text;
	int sign = 0;
	if (strncmp(t, "0 != ", 5) == 0)
		sign = 1;
	else if (strncmp(t, "0 == ", 5) == 0)
		sign = -1;
	return sign && str_eq(t + 5, name) ? sign : 0;
}

/* Event ei of f runs only in a fork child: some region around it is taken
 * only when a fork pid variable is 0. */
static bool in_fork_child(const struct model *m, const struct mfunc *mf, uint32_t ei)
{
	const struct func *f = mf->f;
	int32_t r = f->events[ei].region;
	for (unsigned guard = 0; r >= 0 && (uint32_t)r < f->nregions && guard < 4096; guard++) {
		const struct region *rg = &f->regions[r];
		if ((rg->kind == RG_THEN || rg->kind == RG_ELSE) && rg->cond.nreads == 1 && rg->cond.ncalls == 0 &&
		    rg->cond.text && plain_path(&rg->cond.reads[0]) && !rg->cond.reads[0].deref) {
			const struct var *v = mf_var(mf, rg->cond.reads[0].var);
			const char *text = rg->cond.text;
			if (rg->negated) /* `!v`: the text keeps the '!' */
				text += strspn(text, "! (");
			int t = v && v->kind == VK_LOCAL ? zero_test(text, v->name) : 0;
			if (rg->negated)
				t = -t;
			/* then-branch of a "v == 0" test, else-branch of a "v != 0" one */
			if (((rg->kind == RG_THEN && t < 0) || (rg->kind == RG_ELSE && t > 0)) &&
			    fork_pid_var(m, f, rg->cond.reads[0].var))
				return true;
		}
		r = rg->parent;
	}
	return false;
}

/* ---- GATE_SHARED_STATE ---- */

static bool is_once_call(const char *name)
{
	return str_eq(name, "pthread_once") || str_eq(name, "call_once") || str_eq(name, "InitOnceExecuteOnce");
}

/* ---- lifecycle callbacks ----
 *
 * A function registered for a once-per-process event of the gem's own
 * event table (`on_state(ON_START, fn)`, `callback_add(AT_EXIT, fn, arg)`)
 * runs once, at that point of the process's life: it is not concurrent with
 * itself, whatever thread dispatches it. Recognised when every place its
 * address is taken is an argument of a call (outside any loop) that also
 * passes a constant named for such an event, and never one named for a
 * repeating event (idle, tick, a crash or fork that happens per worker).
 * An assignment, a field binding or another call that takes its address
 * makes it an ordinary callback. */

static bool lifecycle_token(const char *t, size_t n, bool *veto)
{
	static const char *const once[] = {"INIT",   "INITIALIZE", "INITIALIZED", "START",    "STARTUP", "SHUTDOWN",
					   "FINISH", "EXIT",       "STOP",        "TEARDOWN", "CLEANUP", "CHILD"};
	static const char *const again[] = {"IDLE",  "TICK",    "TIMER",  "CRASH",   "CRUSH",   "EACH", "EVERY",
					    "FORK",  "MASTER",  "PARENT", "REQUEST", "MESSAGE", "DATA", "READ",
					    "WRITE", "CONNECT", "CLOSE",  "NEVER",   "ALWAYS",  "LOOP", "CYCLE"};
	for (size_t i = 0; i < ARRAY_SIZE(again); i++)
		if (strlen(again[i]) == n && strncmp(again[i], t, n) == 0)
			*veto = true;
	for (size_t i = 0; i < ARRAY_SIZE(once); i++)
		if (strlen(once[i]) == n && strncmp(once[i], t, n) == 0)
			return true;
	return false;
}

/* An argument spelled as an upper-case constant (an enumerator or a macro)
 * naming a once-per-process event. */
static bool lifecycle_constant(const struct expr *a)
{
	const char *t = a->text;
	if (!t || !*t || a->kind == EX_REF || a->kind == EX_CALL || a->kind == EX_FUNC)
		return false;
	for (const char *p = t; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	bool once = false, veto = false;
	for (const char *p = t; *p;) {
		size_t n = strcspn(p, "_");
		if (n && lifecycle_token(p, n, &veto))
			once = true;
		p += n;
		p += *p == '_';
	}
	return once && !veto;
}

static bool in_any_loop(const struct func *f, int32_t r)
{
	for (unsigned guard = 0; r >= 0 && (uint32_t)r < f->nregions && guard < 4096; guard++) {
		if (f->regions[r].kind == RG_LOOP)
			return true;
		r = f->regions[r].parent;
	}
	return false;
}

/* usr -> 1: only ever registered for once-per-process events; 2: used
 * otherwise too. */
static void lifecycle_scan(const struct model *m, struct hmap *out)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct func *f = m->fns.v[fi].f;
		for (uint32_t ei = 0; ei < f->nevents; ei++) {
			const struct event *e = &f->events[ei];
			if (e->kind == EV_CALL) {
				const struct call *c = e->u.call;
				bool life = false;
				for (uint32_t k = 0; k < c->nargs && !life; k++)
					life = lifecycle_constant(&c->args[k]);
				life = life && !in_any_loop(f, e->region);
				for (uint32_t k = 0; k < c->nargs; k++) {
					const struct expr *a = &c->args[k];
					if (a->kind != EX_FUNC || !a->func_usr)
						continue;
					uintptr_t was = (uintptr_t)hmap_get(out, a->func_usr);
					hmap_put(out, a->func_usr, (void *)(uintptr_t)(life && was != 2 ? 1 : 2));
				}
			} else if (e->kind == EV_ASSIGN && e->u.assign->rhs.kind == EX_FUNC &&
				   e->u.assign->rhs.func_usr) {
				hmap_put(out, e->u.assign->rhs.func_usr, (void *)(uintptr_t)2);
			}
		}
	}
	for (size_t t = 0; t < m->ntus; t++)
		for (size_t i = 0; i < m->tus[t]->bindings.n; i++)
			if (m->tus[t]->bindings.v[i].fn_usr)
				hmap_put(out, m->tus[t]->bindings.v[i].fn_usr, (void *)(uintptr_t)2);
}

static bool lifecycle_fn(struct state_ctx *c, uint32_t fn)
{
	if (!c->life_done) {
		lifecycle_scan(c->m, &c->life);
		c->life_done = true;
	}
	const char *usr = c->m->fns.v[fn].f->usr;
	return usr && (uintptr_t)hmap_get(&c->life, usr) == 1;
}

/* prot[fn] = every path from the release site to fn runs under a lock (taken
 * in the callback, or held by the caller across the call), or inside
 * pthread_once. Greatest fixpoint over the reach set. */
static uint8_t *protected_fns(struct state_ctx *c, const struct msite *s, const struct reach_set *rs, bool life)
{
	const struct model *m = c->m;
	uint8_t *prot = xcalloc(m->fns.n + 1, 1);
	const struct msite *callers[8];
	uint32_t nc = site_callers(m, s, callers, 8);
	bool caller_locked = false;
	for (uint32_t i = 0; i < nc; i++)
		if (held_before(c, callers[i]->fn, callers[i]->ev, NULL) > 0)
			caller_locked = true;
	for (uint32_t i = 0; i < rs->n; i++)
		prot[rs->fns[i]] = 1;
	for (uint32_t t = 0; t < s->cb.ntargets; t++)
		if (!caller_locked)
			prot[s->cb.targets[t]] = 0;
	bool changed = true;
	for (unsigned round = 0; changed && round < 64; round++) {
		changed = false;
		for (uint32_t i = 0; i < rs->n; i++) {
			uint32_t f = rs->fns[i];
			if (!prot[f])
				continue;
			const struct mfunc *mf = &m->fns.v[f];
			for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
				const struct edge *ed = &m->edges.v[m->in_edges.v[k]];
				if (!in_reach(rs, ed->from))
					continue;
				const struct event *ce = &m->fns.v[ed->from].f->events[ed->ev];
				if (ce->gvl_guard)
					continue;
				if (prot[ed->from] || held_before(c, ed->from, ed->ev, NULL) > 0 ||
				    (ed->kind == EDGE_FNARG && is_once_call(ce->u.call->name)) ||
				    in_fork_child(m, &m->fns.v[ed->from], ed->ev) ||
				    (life && ed->kind != EDGE_DIRECT && lifecycle_fn(c, f)))
					continue;
				prot[f] = 0;
				changed = true;
				break;
			}
		}
	}
	return prot;
}

/* The static-local declaration itself (`static char buf[64];`, `static int n
 * = 0;`): initialised once at start-up, not a write when the code runs. */
static bool static_local_decl(const struct mfunc *mf, uint32_t ei, const struct var *v)
{
	if (v->kind != VK_LOCAL_STATIC)
		return false;
	const struct event *e = &mf->f->events[ei];
	if (e->kind == EV_ASSIGN)
		return e->u.assign->is_init;
	if (e->loc.file == v->loc.file && e->loc.off == v->loc.off)
		return true;
	if (ei + 1 < mf->f->nevents) {
		const struct event *n = &mf->f->events[ei + 1];
		return n->kind == EV_ASSIGN && n->u.assign->is_init && n->u.assign->lhs.var == e->u.access.ref.var;
	}
	return false;
}

/* Idempotent lazy initialisation of a scalar static:
 *
 *   static uint64_t h;
 *   if (!h)
 *       h = hash_of("content-length", 14);
 *
 * Two threads racing here store the same value computed from constants: not
 * a finding. The value must be a whole non-pointer variable (a pointer from
 * malloc would differ per thread), the branch taken only while it is zero,
 * and the stored expression read no variable at all. */
static bool lazy_constant_init(const struct mfunc *mf, uint32_t ei, const struct var *v)
{
	const struct func *f = mf->f;
	const struct event *e = &f->events[ei];
	const struct ref *r = &e->u.access.ref;
	if (!plain_path(r) || r->deref || (v->flags & (VF_POINTER | VF_ARRAY | VF_RECORD | VF_FNPTR)))
		return false;
	const struct assign *as = NULL;
	for (uint32_t k = ei > 2 ? ei - 2 : 0; k < f->nevents && k <= ei + 2; k++) {
		const struct event *a = &f->events[k];
		if (a->kind == EV_ASSIGN && !a->u.assign->compound && a->u.assign->lhs.var == r->var &&
		    plain_path(&a->u.assign->lhs) && a->loc.off == e->loc.off && a->loc.file == e->loc.file)
			as = a->u.assign;
	}
	if (!as || as->rhs.nreads != 0)
		return false;
	for (uint32_t k = 0; k < as->rhs.ncalls; k++) {
		int32_t ci = as->rhs.calls[k];
		if (ci < 0 || (uint32_t)ci >= f->nevents || f->events[ci].kind != EV_CALL ||
		    f->events[ci].u.call->indirect)
			return false;
	}
	if (e->region < 0 || (uint32_t)e->region >= f->nregions)
		return false;
	const struct region *rg = &f->regions[e->region];
	/* `if (!v)`: the condition reads v alone and calls nothing */
	return rg->kind == RG_THEN && rg->negated && rg->cond.ncalls == 0 && rg->cond.nreads == 1 &&
	       rg->cond.reads[0].var == r->var && plain_path(&rg->cond.reads[0]) && !rg->cond.reads[0].deref;
}

/* The pointer's target type is atomic (`_Atomic long *`, `atomic_int *`):
 * a plain store through it is an atomic store. */
static bool pointee_atomic(const struct var *v)
{
	return v->type && (strstr(v->type, "_Atomic") || strstr(v->type, "atomic_"));
}

/* Records an unlocked write of static w at event ei of fi. The first
 * unlocked write in a function is what shared-mutable-state reports; later
 * ones in the same function (of w or of other statics) become notes on it
 * (each still fails the gate). `via`: the
 * pointer written through, or NULL; `with`: the library call, or NULL. */
static void shared_fail(struct state_ctx *c, struct gate_result *g, uint32_t fi, uint32_t ei, const struct var *w,
			const struct var *via, const char *with, bool pointee)
{
	const struct mfunc *mf = &c->m->fns.v[fi];
	const struct event *e = &mf->f->events[ei];
	char what[512];
	if (pointee)
		snprintf(what, sizeof(what),
			 "writes through %s pointer '%s' (one pointer, so one object for every thread)",
			 storage_text(w), w->name);
	else if (via && via != w && with)
		snprintf(what, sizeof(what), "writes %s '%s' through '%s' with '%s'", storage_text(w), w->name,
			 via->name, with);
	else if (via && via != w)
		snprintf(what, sizeof(what), "writes %s '%s' through '%s'", storage_text(w), w->name, via->name);
	else if (with)
		snprintf(what, sizeof(what), "writes %s '%s' with '%s'", storage_text(w), w->name, with);
	else
		snprintf(what, sizeof(what), "writes %s '%s'", storage_text(w), w->name);
	/* one finding per function: its other unlocked writes (of this or other
	 * statics) are notes on the first */
	char *k = xasprintf("%u", fi);
	const char *key = intern(&c->pool, k);
	free(k);
	uintptr_t first = (uintptr_t)hmap_get(&c->first_write, key);
	struct gate_evidence *ev = gate_add(
		g, GATE_SHARED_STATE, GATE_FAIL, &e->loc, (int32_t)fi,
		"'%s' %s without a lock while the GVL is released: other threads may run it at the same time; keep "
		"the state in the callback's data (a per-call buffer), make it atomic, or take a mutex",
		mf->f->name, what);
	ev->ev = (int32_t)ei;
	if (first) {
		gate_note_add(&g->ev.v[first - 1], &e->loc, "'%s' also %s here", mf->f->name, what);
		return;
	}
	ev->rule = "shared-mutable-state";
	if (via && via != w)
		gate_note_add(ev, &def_var(c, w)->loc, "'%s' only ever points at '%s', declared here", via->name,
			      w->name);
	else
		gate_note_add(ev, &def_var(c, w)->loc, "'%s' is declared here", w->name);
	hmap_put(&c->first_write, key, (void *)(uintptr_t)g->ev.n);
}

/* prot: the write is locked (or single-threaded); life: it is reached only
 * through a lifecycle callback (lifecycle_fn), which is no finding but, resting
 * on the names of the events, no proof for the offload gate either. */
static void shared_write(struct state_ctx *c, struct gate_result *g, uint32_t fi, uint32_t ei, bool prot, bool life)
{
	const struct model *m = c->m;
	const struct mfunc *mf = &m->fns.v[fi];
	const struct event *e = &mf->f->events[ei];
	const struct ref *r = &e->u.access.ref;
	const struct var *v = mf_var(mf, r->var);
	if (!v || e->u.access.atomic_op)
		return;
	if (static_storage(v)) {
		uint32_t fl = var_flags(m, v);
		if (fl & (VF_CONST | VF_ATOMIC | VF_TLS | VF_MUTEX | VF_RUBY_HEADER | VF_SYSTEM_HEADER))
			return;
		if (static_local_decl(mf, ei, v) || prot)
			return;
		if (life) {
			struct gate_evidence *ev = gate_add(g, GATE_SHARED_STATE, GATE_UNKNOWN, &e->loc, (int32_t)fi,
							    "'%s' writes %s '%s' without a lock, only from a callback "
							    "registered for a once-per-process "
							    "event (not concurrent with itself)",
							    mf->f->name, storage_text(v), v->name);
			ev->ev = (int32_t)ei;
			return;
		}
		if (lazy_constant_init(mf, ei, v)) {
			/* not a finding, but no proof of safety for the offload gate either */
			struct gate_evidence *ev =
				gate_add(g, GATE_SHARED_STATE, GATE_UNKNOWN, &e->loc, (int32_t)fi,
					 "'%s' initialises %s '%s' lazily without a lock (an idempotent race: every "
					 "thread stores the same value)",
					 mf->f->name, storage_text(v), v->name);
			ev->ev = (int32_t)ei;
			return;
		}
		if (!r->ptr_deref) {
			shared_fail(c, g, fi, ei, v, NULL, NULL, false);
		} else if (!(fl & (VF_FNPTR | VF_ARRAY)) && (!r->path || !strstr(r->path, "[]")) &&
			   !pointee_atomic(v)) {
			/* g->count = ..., *g = ...: whatever a global pointer points at,
			 * every thread reaches the same object through it. Not p[i] or
			 * p->slots[i]: an index can pick a slot per thread (or per
			 * connection, under the slot's own lock). */
			shared_fail(c, g, fi, ei, v, NULL, NULL, true);
		} else {
			struct gate_evidence *ev = gate_add(
				g, GATE_SHARED_STATE, GATE_UNKNOWN, &e->loc, (int32_t)fi,
				"'%s' writes through %s pointer '%s': cannot tell whether the memory it points "
				"at is shared",
				mf->f->name, storage_text(v), v->name);
			ev->ev = (int32_t)ei;
		}
		return;
	}
	if ((v->kind == VK_LOCAL || v->kind == VK_PARAM) && r->ptr_deref && !prot) {
		const struct var *w = NULL;
		if (!so_var(c, mf, r->var, &w) || !w)
			return;
		if (life) {
			struct gate_evidence *ev = gate_add(g, GATE_SHARED_STATE, GATE_UNKNOWN, &e->loc, (int32_t)fi,
							    "'%s' writes %s '%s' through '%s' without a lock, only "
							    "from a callback registered for a "
							    "once-per-process event (not concurrent with itself)",
							    mf->f->name, storage_text(w), w->name, v->name);
			ev->ev = (int32_t)ei;
			return;
		}
		shared_fail(c, g, fi, ei, w, v, NULL, false);
	}
}

static void library_writes(struct state_ctx *c, struct gate_result *g, uint32_t fi, uint32_t ei)
{
	const struct mfunc *mf = &c->m->fns.v[fi];
	const struct event *e = &mf->f->events[ei];
	const struct writer_fn *wf = writer_fn_find(e->u.call->name);
	if (!wf || (uint32_t)wf->arg >= e->u.call->nargs)
		return;
	const struct expr *a = &e->u.call->args[wf->arg];
	const struct var *w = NULL;
	if (!so_expr(c, mf, a, &w) || !w)
		return;
	const struct var *via = a->kind == EX_REF ? mf_var(mf, a->ref.var) : NULL;
	shared_fail(c, g, fi, ei, w, via, call_display(e), false);
}

/* bump(&counter), reset(stats_ptr): a helper of the gem that writes through
 * its pointer parameter, handed a static's address (or a static pointer's
 * value) here. When every caller passes a static, the write is reported in
 * the helper; when some caller passes its own memory, this call is the one
 * that shares. */
static void helper_writes(struct state_ctx *c, struct gate_result *g, uint32_t fi, uint32_t ei)
{
	const struct model *m = c->m;
	const struct mfunc *mf = &m->fns.v[fi];
	const struct event *e = &mf->f->events[ei];
	const struct call *call = e->u.call;
	if (call->indirect)
		return;
	const struct mfunc *callee = model_callee(m, call->usr, mf);
	if (!callee || callee == mf)
		return;
	for (uint32_t i = 0; i < callee->f->nparams && i < call->nargs; i++) {
		int32_t pvar = callee->f->params[i];
		const struct var *pv = mf_var(callee, pvar);
		if (!pv || !(pv->flags & VF_POINTER) || (pv->flags & VF_CONST))
			continue;
		const struct var *w = NULL;
		if (!so_expr(c, mf, &call->args[i], &w) || !w)
			continue;
		const struct var *w2 = NULL;
		if (so_var(c, callee, pvar, &w2))
			continue; /* reported in the helper */
		int32_t wev = -1;
		for (uint32_t k = 0; k < callee->f->nevents && wev < 0; k++) {
			const struct event *he = &callee->f->events[k];
			const struct ref *r = he->kind == EV_ACCESS && (he->u.access.mode & ACC_WRITE)
						      ? &he->u.access.ref
					      : he->kind == EV_ASSIGN ? &he->u.assign->lhs
								      : NULL;
			if (r && r->var == pvar && r->ptr_deref && !(he->kind == EV_ACCESS && he->u.access.atomic_op) &&
			    held_before(c, callee->id, k, NULL) == 0)
				wev = (int32_t)k;
		}
		if (wev < 0)
			continue;
		shared_fail(c, g, fi, ei, w, NULL, callee->f->name, false);
		return;
	}
}

static void mt_unsafe(struct state_ctx *c, struct gate_result *g, uint32_t fi, uint32_t ei)
{
	const struct mfunc *mf = &c->m->fns.v[fi];
	const struct event *e = &mf->f->events[ei];
	const struct lib_model *u = mt_unsafe_find(e->u.call->name);
	if (!u)
		return;
	if (u->null_arg >= 0) {
		if ((uint32_t)u->null_arg >= e->u.call->nargs)
			return;
		const struct expr *a = &e->u.call->args[u->null_arg];
		if (a->kind != EX_NULL && !(a->kind == EX_INT && a->has_ival && a->ival == 0))
			return;
	}
	struct gate_evidence *ev;
	if (u->instead)
		ev = gate_add(g, GATE_SHARED_STATE, GATE_FAIL, &e->loc, (int32_t)fi,
			      "'%s' is not thread-safe (it %s), but '%s' runs without the GVL, in parallel with other "
			      "threads; use %s",
			      u->name, u->why, mf->f->name, u->instead);
	else
		ev = gate_add(g, GATE_SHARED_STATE, GATE_FAIL, &e->loc, (int32_t)fi,
			      "'%s' is not thread-safe (it %s), but '%s' runs without the GVL, in parallel with other "
			      "threads; call it before releasing the GVL",
			      u->name, u->why, mf->f->name);
	ev->rule = "mt-unsafe-call";
	ev->ev = (int32_t)ei;
}

/* process-wide-state: a library call that changes what every thread of the
 * process shares (fds 0-2, the standard streams, the working directory, the
 * umask, signal dispositions). A lock of the gem's does not help: Ruby and
 * other gems do not take it. */
static void process_state(struct state_ctx *c, struct gate_result *g, uint32_t fi, uint32_t ei)
{
	const struct mfunc *mf = &c->m->fns.v[fi];
	const struct event *e = &mf->f->events[ei];
	char what[160];
	if (!process_state_change(e->u.call, what, sizeof(what)))
		return;
	struct gate_evidence *ev = gate_add(g, GATE_SHARED_STATE, GATE_FAIL, &e->loc, (int32_t)fi,
					    "'%s' %s while the GVL is released", mf->f->name, what);
	ev->ev = (int32_t)ei;
	/* one finding per function: its other changes are notes on the first */
	char *k = xasprintf("p:%u", fi);
	const char *key = intern(&c->pool, k);
	free(k);
	uintptr_t first = (uintptr_t)hmap_get(&c->first_write, key);
	if (first) {
		gate_note_add(&g->ev.v[first - 1], &e->loc, "'%s' also %s here", mf->f->name, what);
		return;
	}
	ev->rule = "process-wide-state";
	hmap_put(&c->first_write, key, (void *)(uintptr_t)g->ev.n);
}

bool shared_state_site_locked(const struct model *m, const struct msite *s)
{
	struct state_ctx c;
	ctx_init(&c, m);
	const struct msite *callers[8];
	uint32_t nc = site_callers(m, s, callers, 8);
	bool locked = false;
	for (uint32_t i = 0; i < nc && !locked; i++)
		locked = held_before(&c, callers[i]->fn, callers[i]->ev, NULL) > 0;
	ctx_free(&c);
	return locked;
}

void gate_check_shared_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g)
{
	struct state_ctx c;
	ctx_init(&c, m);
	uint8_t *prot = protected_fns(&c, s, rs, false);
	uint8_t *life = protected_fns(&c, s, rs, true);
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, rs, NOGVL_ALL_EVENTS); nogvl_walk_next(&w);) {
		uint32_t fi = w.fi, ei = w.ei;
		const struct event *e = w.e;
		bool locked = prot[fi] || held_before(&c, fi, ei, NULL) > 0;
		if (!locked && (e->kind == EV_ACCESS || library_call(m, e)))
			locked = in_fork_child(m, &m->fns.v[fi], ei);
		if (e->kind == EV_ACCESS && (e->u.access.mode & ACC_WRITE))
			shared_write(&c, g, fi, ei, locked, life[fi] != 0);
		else if (library_call(m, e)) {
			if (!locked && !life[fi])
				library_writes(&c, g, fi, ei);
			else if (!locked && writer_fn_find(e->u.call->name))
				gate_add(g, GATE_SHARED_STATE, GATE_UNKNOWN, &e->loc, (int32_t)fi,
					 "'%s' calls '%s' without a lock, only from a callback registered for a "
					 "once-per-process event",
					 m->fns.v[fi].f->name, call_display(e))
					->ev = (int32_t)ei;
			mt_unsafe(&c, g, fi, ei);
			process_state(&c, g, fi, ei);
		} else if (e->kind == EV_CALL && !locked && !life[fi])
			helper_writes(&c, g, fi, ei);
	}
	free(prot);
	free(life);
	ctx_free(&c);
}

/* ---- GATE_THREAD_STATE ---- */

static const char *tls_var_key(struct state_ctx *c, const struct var *v)
{
	char *k = xasprintf("t:%s", v->usr ? v->usr : v->name);
	const char *r = intern(&c->pool, k);
	free(k);
	return r;
}

static bool null_arg(const struct expr *a)
{
	return a->kind == EX_NULL || (a->kind == EX_INT && a->has_ival && a->ival == 0);
}

/* The per-thread channel an event uses, or NULL; *set: whether it stores a
 * value (a __thread variable assigned, pthread_setspecific, uselocale with a
 * locale, pthread_sigmask with a new mask). Channels that are set first and
 * restored last inside the callback are fine (tls_confined). */
static const char *tls_event_key(struct state_ctx *c, const struct mfunc *mf, const struct event *e, bool *set)
{
	*set = false;
	if (e->kind == EV_ACCESS) {
		const struct var *v = mf_var(mf, e->u.access.ref.var);
		if (!v || !(var_flags(c->m, v) & VF_TLS))
			return NULL;
		*set = (e->u.access.mode & ACC_WRITE) && !(e->u.access.mode & ACC_READ) && !e->u.access.ref.deref &&
		       plain_path(&e->u.access.ref);
		return tls_var_key(c, v);
	}
	if (e->kind != EV_CALL || e->u.call->indirect)
		return NULL;
	const struct call *call = e->u.call;
	const struct thread_state_fn *ts = thread_state_find(call->name);
	if (!ts)
		return NULL;
	if (ts->kind == TS_TLS_API) {
		if ((uint32_t)ts->key_arg >= call->nargs)
			return NULL;
		*set = ts->sets;
		const char *k = mutex_key(c, mf, &call->args[ts->key_arg]);
		return k ? k : intern(&c->pool, call->args[ts->key_arg].text ? call->args[ts->key_arg].text : "?");
	}
	if (str_eq(call->name, "uselocale") && call->nargs == 1) {
		*set = !null_arg(&call->args[0]); /* uselocale((locale_t)0) only asks */
		return intern(&c->pool, "locale");
	}
	if ((str_eq(call->name, "pthread_sigmask") || str_eq(call->name, "sigprocmask")) && call->nargs == 3) {
		*set = !null_arg(&call->args[1]); /* a NULL set only asks */
		return intern(&c->pool, "sigmask");
	}
	return NULL;
}

/* Whether the channel `key` is seeded and cleared inside one function F of
 * the reach set, with every other use in the reach set below F: then every
 * read sees what this run of the callback stored, on whatever thread it runs
 * (real-world.md: "A thread-local seed set and cleared entirely inside one
 * callback: fine"). */
static bool tls_confined(struct state_ctx *c, const struct reach_set *rs, const char *key)
{
	const struct model *m = c->m;
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, rs, NOGVL_ALL_EVENTS); nogvl_walk_next_fn(&w);) {
		uint32_t fi = w.fi;
		const struct mfunc *mf = w.mf;
		int32_t first_set = -1, last_set = -1, first_other = -1, last_other = -1;
		unsigned nsets = 0;
		while (nogvl_walk_next_event(&w)) {
			const struct event *e = w.e;
			uint32_t ei = w.ei;
			bool set = false;
			const char *k = tls_event_key(c, mf, e, &set);
			bool other = false;
			if (k == key && set) {
				if (first_set < 0)
					first_set = (int32_t)ei;
				last_set = (int32_t)ei;
				nsets++;
				continue;
			}
			if (k == key)
				other = true;
			else if (e->kind == EV_CALL && project_callee(m, e->u.call))
				other = true;
			else if (e->kind == EV_CALL && e->u.call->indirect)
				other = true;
			if (other) {
				if (first_other < 0)
					first_other = (int32_t)ei;
				last_other = (int32_t)ei;
			}
		}
		if (nsets < 2 || (first_other >= 0 && (first_other < first_set || last_other > last_set)))
			continue;
		/* every other use in the reach set is in a function reached from fi */
		struct cbres root = {0};
		uint32_t t = fi;
		root.ntargets = 1;
		root.targets = &t;
		struct reach_set below;
		model_reach_from(m, &root, -1, &below);
		bool ok = true;
		struct nogvl_walk o;
		for (nogvl_walk_init(&o, m, rs, NOGVL_ALL_EVENTS); ok && nogvl_walk_next_fn(&o);) {
			if (o.fi == fi || in_reach(&below, o.fi))
				continue;
			while (ok && nogvl_walk_next_event(&o)) {
				bool set;
				if (tls_event_key(c, o.mf, o.e, &set) == key)
					ok = false;
			}
		}
		/* and fi does not reach itself back (recursion would see a cleared seed) */
		if (ok && below.by_fn[fi].pred_fn >= 0)
			ok = false;
		reach_set_free(&below);
		if (ok)
			return true;
	}
	return false;
}

static struct gate_evidence *thread_ev(struct gate_result *g, const struct event *e, uint32_t fi, uint32_t ei,
				       const char *fmt_fn, const char *what, const char *name)
{
	struct gate_evidence *ev = gate_add(
		g, GATE_THREAD_STATE, GATE_FAIL, &e->loc, (int32_t)fi,
		"'%s' %s '%s': with RB_NOGVL_OFFLOAD_SAFE the callback may run on a worker thread, not the caller's; "
		"pass what it needs in the callback's data",
		fmt_fn, what, name);
	ev->rule = "thread-local-state";
	ev->ev = (int32_t)ei;
	return ev;
}

static bool syscall_gettid(const struct event *e)
{
	return e->kind == EV_CALL && str_eq(e->u.call->name, "syscall") && e->u.call->nargs >= 1 &&
	       e->u.call->args[0].text && strstr(e->u.call->args[0].text, "gettid");
}

void gate_check_thread_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g)
{
	(void)s;
	struct state_ctx c;
	ctx_init(&c, m);
	struct hmap seen = {0};     /* "fn:key" of TLS variables already recorded */
	struct hmap confined = {0}; /* key -> 1 confined, 2 not */
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, rs, NOGVL_ALL_EVENTS); nogvl_walk_next(&w);) {
		uint32_t fi = w.fi, ei = w.ei;
		const struct mfunc *mf = w.mf;
		const struct event *e = w.e;
		bool set;
		const char *key = tls_event_key(&c, mf, e, &set);
		if (key) {
			uintptr_t cf = (uintptr_t)hmap_get(&confined, key);
			if (!cf) {
				cf = tls_confined(&c, rs, key) ? 1 : 2;
				hmap_put(&confined, key, (void *)cf);
			}
			if (cf == 1)
				continue;
			if (e->kind == EV_ACCESS) {
				char *sk = xasprintf("%u:%s", fi, key);
				const char *ik = intern(&c.pool, sk);
				free(sk);
				if (hmap_has(&seen, ik))
					continue;
				hmap_put(&seen, ik, (void *)1);
				const struct var *v = mf_var(mf, e->u.access.ref.var);
				struct gate_evidence *ev =
					thread_ev(g, e, fi, ei, mf->f->name, "uses thread-local variable", v->name);
				gate_note_add(ev, &v->loc, "'%s' is declared thread-local here", v->name);
			} else if (str_eq(key, "locale")) {
				thread_ev(g, e, fi, ei, mf->f->name, "depends on the thread's locale through",
					  call_display(e));
			} else if (str_eq(key, "sigmask")) {
				thread_ev(g, e, fi, ei, mf->f->name, "depends on the thread's signal mask through",
					  call_display(e));
			} else {
				thread_ev(g, e, fi, ei, mf->f->name, "uses thread-specific data with", call_display(e));
			}
			continue;
		}
		if (e->kind != EV_CALL || !library_call(m, e))
			continue;
		const struct thread_state_fn *ts = thread_state_find(e->u.call->name);
		if (syscall_gettid(e))
			thread_ev(g, e, fi, ei, mf->f->name, "asks for the running thread's identity with",
				  "syscall(SYS_gettid)");
		else if (ts && ts->kind == TS_IDENTITY)
			thread_ev(g, e, fi, ei, mf->f->name, "asks for the running thread's identity with",
				  call_display(e));
		else if (ts && ts->kind == TS_LOCALE) {
			struct gate_evidence *ev = thread_ev(g, e, fi, ei, mf->f->name,
							     "depends on the thread's locale through", call_display(e));
			if (mt_unsafe_find(e->u.call->name))
				ev->rule = NULL; /* setlocale: reported once, by mt-unsafe-call */
		} else if (ts && ts->kind == TS_SIGMASK)
			thread_ev(g, e, fi, ei, mf->f->name, "depends on the thread's signal mask through",
				  call_display(e));
	}
	hmap_free(&seen);
	hmap_free(&confined);
	ctx_free(&c);
}

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

void gate_check_locks(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	struct state_ctx c;
	ctx_init(&c, m);
	key_ops_vec keys = {0};
	for (uint32_t i = 0; i < rs->n; i++) {
		uint32_t fi = rs->fns[i];
		const lockop_vec *ops = fn_locks(&c, fi);
		for (size_t k = 0; k < ops->n; k++) {
			const struct lockop *op = &ops->v[k];
			/* a helper's own lock calls: the helper is in the reach set too */
			if (!op->key || op->own)
				continue;
			struct key_ops *ko = key_ops_get(&keys, op->key);
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
			/* mutexes reached through pointers (a helper's parameter): only an
			 * unlock in a callback that locks nothing at all is certain */
			if (any_acquire || !ko->first_release)
				continue;
			const struct mfunc *rf = &m->fns.v[ko->rel_fn];
			struct gate_evidence *ev = gate_add(
				g, GATE_LOCK, GATE_FAIL, &rf->f->events[ko->first_release->ev].loc, (int32_t)ko->rel_fn,
				"'%s' unlocks mutex '%s', which the callback does not lock itself: with "
				"RB_NOGVL_OFFLOAD_SAFE '%s' may run on another thread than the one that locked it; "
				"lock "
				"and unlock on the same side of the call",
				rf->f->name, ko->first_release->text, cb);
			ev->rule = "lock-across-boundary";
			ev->ev = (int32_t)ko->first_release->ev;
			continue;
		}
		/* the caller's side: held across the call, or unlocked after it */
		const struct lockop *held = NULL, *after = NULL;
		uint32_t held_fn = 0, after_fn = 0;
		for (uint32_t ci = 0; ci < nc; ci++) {
			const struct msite *cs = callers[ci];
			const lockop_vec *ops = fn_locks(&c, cs->fn);
			const struct func *f = m->fns.v[cs->fn].f;
			if (!held && held_before(&c, cs->fn, cs->ev, ko->key) > 0) {
				for (size_t k = 0; k < ops->n; k++)
					if (ops->v[k].key == ko->key && ops->v[k].op == LOCK_ACQUIRE &&
					    op_applies(f, &ops->v[k], cs->ev))
						held = &ops->v[k];
				held_fn = cs->fn;
			}
			if (!after) {
				uint32_t end = cs == s ? next_site_event(m, cs) : f->nevents;
				int relocked = 0;
				for (size_t k = 0; k < ops->n; k++) {
					const struct lockop *op = &ops->v[k];
					if (op->key != ko->key || op->ev <= cs->ev || op->ev >= end)
						continue;
					if (op->op == LOCK_ACQUIRE)
						relocked++;
					else if (op->op == LOCK_RELEASE && !relocked) {
						after = op;
						after_fn = cs->fn;
						break;
					} else if (op->op == LOCK_RELEASE)
						relocked--;
				}
			}
		}
		/* releases (and condition waits) of a mutex the callback does not lock */
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
		if (rel && held && ko->acquires) {
			const struct lockop *ops = fn_locks(&c, rel_fn)->v;
			size_t nops = fn_locks(&c, rel_fn)->n;
			bool own = false;
			for (size_t k = 0; k < nops && ops[k].ev < rel->ev; k++)
				if (ops[k].key == ko->key && ops[k].op == LOCK_ACQUIRE)
					own = true;
			if (own)
				rel = NULL;
		}
		if (rel && (held || !ko->acquires)) {
			const struct mfunc *rf = &m->fns.v[rel_fn];
			const struct event *re = &rf->f->events[rel->ev];
			uint32_t ofn = 0;
			const struct lockop *other = NULL;
			if (held) {
				other = held;
				ofn = held_fn;
			} else if (!lock_elsewhere(&c, rs, ko->key, LOCK_ACQUIRE, &ofn, &other)) {
				other = NULL;
			}
			struct gate_evidence *ev;
			if (held)
				ev = gate_add(
					g, GATE_LOCK, GATE_FAIL, &re->loc, (int32_t)rel_fn,
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
				gate_note_add(ev, &of->f->events[other->ev].loc, "'%s' is locked here, in '%s'",
					      other->text, of->f->name);
			}
		}
		/* acquisitions the callback leaves for someone else to release */
		if (ko->first_acquire && !ko->releases) {
			uint32_t ofn = 0;
			const struct lockop *other = after;
			if (other)
				ofn = after_fn;
			else if (!lock_elsewhere(&c, rs, ko->key, LOCK_RELEASE, &ofn, &other))
				other = NULL;
			if (!other)
				continue; /* never unlocked anywhere: not a boundary problem */
			const struct mfunc *af = &m->fns.v[ko->acq_fn];
			const struct event *ae = &af->f->events[ko->first_acquire->ev];
			struct gate_evidence *ev =
				gate_add(g, GATE_LOCK, GATE_FAIL, &ae->loc, (int32_t)ko->acq_fn,
					 "'%s' locks mutex '%s' and leaves it locked for %s to unlock: with "
					 "RB_NOGVL_OFFLOAD_SAFE "
					 "'%s' may run on another thread, so the unlock would come from a thread that "
					 "does not own "
					 "it; lock and unlock on the same side of the call",
					 af->f->name, ko->first_acquire->text, after ? "the caller" : "other code", cb);
			ev->rule = "lock-across-boundary";
			ev->ev = (int32_t)ko->first_acquire->ev;
			const struct mfunc *of = &m->fns.v[ofn];
			gate_note_add(ev, &of->f->events[other->ev].loc, "'%s' is unlocked here, in '%s'", other->text,
				      of->f->name);
		}
	}
	vec_free(&keys);
	ctx_free(&c);
}

/* ---- reporting the evidence as findings ---- */

static bool site_offloaded(const struct msite *s)
{
	return s->flags_known && (s->flags & NOGVL_OFFLOAD_SAFE);
}

/* When every checker's evidence depends on the callback's targets alone (and,
 * for the shared-state gate, on whether a lock is held at the site: see
 * shared_state_site_locked), the key of that evidence; else NULL. A site
 * with the key of an earlier site would report the same findings, which are
 * reported once anyway: 3,000 sites on one chain walked it 3,000 times per
 * rule. */
static const char *callback_key(const struct model *m, const struct msite *s, const gate_checker *checkers,
				unsigned nchecks, struct strpool *keys)
{
	bool locked_matters = false;
	for (unsigned k = 0; k < nchecks; k++) {
		if (checkers[k] == gate_check_shared_state)
			locked_matters = true;
		else if (checkers[k] != gate_check_thread_state)
			return NULL;
	}
	struct strbuf b = {0};
	sb_printf(&b, "cb:%d:", locked_matters && shared_state_site_locked(m, s));
	for (uint32_t i = 0; i < s->cb.ntargets; i++)
		sb_printf(&b, "%u,", s->cb.targets[i]);
	const char *key = intern(keys, sb_str(&b));
	sb_free(&b);
	return key;
}

void state_rule_run(struct rule_ctx *rc, const gate_checker *checkers, unsigned nchecks, bool offload_only)
{
	const struct model *m = rc->m;
	struct hmap seen = {0}, walked = {0};
	struct strpool keys = {0};
	for (size_t si = 0; si < m->sites.n; si++) {
		const struct msite *s = &m->sites.v[si];
		if (s->is_template)
			continue;
		if (offload_only && !site_offloaded(s))
			continue; /* same thread: no hazard (the gate still fails) */
		const char *ck = callback_key(m, s, checkers, nchecks, &keys);
		if (ck) {
			if (hmap_has(&walked, ck))
				continue;
			hmap_put(&walked, ck, (void *)1);
		}
		struct reach_set rs;
		model_reach_from(m, &s->cb, (int32_t)si, &rs);
		struct gate_result g = {0};
		for (unsigned k = 0; k < nchecks; k++)
			checkers[k](m, s, &rs, &g);
		for (size_t i = 0; i < g.ev.n; i++) {
			const struct gate_evidence *e = &g.ev.v[i];
			if (e->state != GATE_FAIL || !str_eq(e->rule, rc->rule->slug))
				continue;
			char *k = xasprintf("%s:%u:%s", e->loc.file ? e->loc.file : "", e->loc.off, e->msg);
			const char *ik = intern(&keys, k);
			free(k);
			if (hmap_has(&seen, ik))
				continue;
			hmap_put(&seen, ik, (void *)1);
			uint32_t fn = e->fn >= 0 ? (uint32_t)e->fn : s->fn;
			const struct mfunc *mf = &m->fns.v[fn];
			struct finding *f = rule_report(rc, &e->loc, mf->f->name, "%s", e->msg);
			if (e->ev >= 0 && (uint32_t)e->ev < mf->f->nevents)
				finding_macro_note(f, &mf->f->events[e->ev]);
			for (size_t n = 0; n < e->notes.n; n++)
				finding_note(f, &e->notes.v[n].loc, "%s", e->notes.v[n].msg);
			if (e->fn >= 0)
				finding_chain_set(f, m, rs.by_fn, (uint32_t)e->fn, CTX_NOGVL);
			else
				finding_site_note(f, m, s, CTX_NOGVL, cb_name(m, s));
			if (offload_only && s->flags_expr)
				finding_note(f, &s->flags_expr->loc, "the call passes RB_NOGVL_OFFLOAD_SAFE here");
		}
		gate_result_free(&g);
		reach_set_free(&rs);
	}
	hmap_free(&seen);
	hmap_free(&walked);
	strpool_free(&keys);
}
