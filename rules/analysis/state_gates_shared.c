/* state_gates_shared.c: GATE_SHARED_STATE (shared-mutable-state,
 * mt-unsafe-call): lifecycle callbacks, protected functions, writes to shared
 * state and calls that are not thread-safe (state_ctx.h). */
#include "state_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "process_state.h"
#include "rule.h"
#include "state_knowledge.h"

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

/* Is the function usr only ever registered for once-per-process events
 * (every event naming it is a call, outside any loop, with a lifecycle
 * constant among its arguments; no assignment or field binding takes it)?
 * The events naming it come from the model's fn_refs index. */
static bool lifecycle_only(const struct model *m, const char *usr)
{
	size_t n = 0;
	const struct call_at *named = model_fn_refs(m, usr, &n);
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct func *f = m->fns.v[named[i].fn].f;
		const struct event *e = &f->events[named[i].ev];
		if (e->kind != EV_CALL)
			return false; /* an assignment's value */
		const struct call *c = e->u.call;
		bool life = false;
		for (uint32_t k = 0; k < c->nargs && !life; k++)
			life = lifecycle_constant(&c->args[k]);
		if (!life || in_any_loop(f, e->region))
			return false;
	}
	for (size_t t = 0; t < m->ntus; t++)
		for (size_t i = 0; i < m->tus[t]->bindings.n; i++)
			if (str_eq(m->tus[t]->bindings.v[i].fn_usr, usr))
				return false;
	return true;
}

/* lifecycle_only's answers (usr -> 1: lifecycle only, 2: not) depend on
 * the model alone: between shared_state_begin and shared_state_end
 * (offload_compute) they are kept for every site of the model, not once per
 * site's context. */
static struct {
	const struct model *m;
	struct hmap life;
} life_shared;

void shared_state_begin(const struct model *m)
{
	shared_state_end();
	life_shared.m = m;
}

void shared_state_end(void)
{
	hmap_free(&life_shared.life);
	memset(&life_shared, 0, sizeof(life_shared));
}

static bool lifecycle_fn(struct state_ctx *c, uint32_t fn)
{
	struct hmap *life = life_shared.m && life_shared.m == c->m ? &life_shared.life : &c->life;
	const char *usr = c->m->fns.v[fn].f->usr;
	if (!usr)
		return false;
	uintptr_t v = (uintptr_t)hmap_get(life, usr);
	if (!v) {
		v = lifecycle_only(c->m, usr) ? 1 : 2;
		hmap_put(life, usr, (void *)v);
	}
	return v == 1;
}

/* An in-edge of f (in the reach set) that reaches f outside every lock:
 * its caller is not protected and holds no lock at the call, which is not
 * pthread_once's, a fork child's, or a lifecycle callback's (life). */
static bool unprotected_call(struct state_ctx *c, uint32_t f, const struct reach_set *rs, const uint8_t *prot,
			     bool life)
{
	const struct model *m = c->m;
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
		    in_fork_child(m, &m->fns.v[ed->from], ed->ev) || in_once_branch(m, &m->fns.v[ed->from], ed->ev) ||
		    (life && ed->kind != EDGE_DIRECT && lifecycle_fn(c, f)))
			continue;
		return true;
	}
	return false;
}

/* prot[fn] = every path from the release site to fn runs under a lock (taken
 * in the callback, or held by the caller across the call), or inside
 * pthread_once. Greatest fixpoint over the reach set, by a worklist: a
 * function is looked at again only when one of its callers lost its
 * protection (each in-edge's other conditions do not change). */
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
	/* the functions to look at (again), each at most once on the stack */
	uint32_t *work = xmalloc((rs->n + 1) * sizeof(*work));
	uint8_t *queued = xcalloc(m->fns.n + 1, 1);
	uint32_t nw = 0;
	for (uint32_t i = rs->n; i-- > 0;)
		if (prot[rs->fns[i]]) {
			work[nw++] = rs->fns[i];
			queued[rs->fns[i]] = 1;
		}
	while (nw) {
		uint32_t f = work[--nw];
		queued[f] = 0;
		if (!prot[f] || !unprotected_call(c, f, rs, prot, life))
			continue;
		prot[f] = 0;
		const struct mfunc *mf = &m->fns.v[f];
		for (uint32_t k = mf->edge_begin; k < mf->edge_end; k++) {
			int32_t to = m->edges.v[k].to;
			if (to >= 0 && prot[to] && !queued[to]) {
				work[nw++] = (uint32_t)to;
				queued[to] = 1;
			}
		}
	}
	free(work);
	free(queued);
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
		return n->kind == EV_ASSIGN && n->u.assign->is_init && n->u.assign->lhs.var == e->u.access->ref.var;
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
	const struct ref *r = &e->u.access->ref;
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
	const struct ref *r = &e->u.access->ref;
	const struct var *v = mf_var(mf, r->var);
	if (!v || e->u.access->atomic_op)
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
			const struct ref *r = he->kind == EV_ACCESS && (he->u.access->mode & ACC_WRITE)
						      ? &he->u.access->ref
					      : he->kind == EV_ASSIGN ? &he->u.assign->lhs
								      : NULL;
			if (r && r->var == pvar && r->ptr_deref &&
			    !(he->kind == EV_ACCESS && he->u.access->atomic_op) &&
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
void process_state(struct state_ctx *c, struct gate_result *g, uint32_t fi, uint32_t ei)
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
			locked = in_fork_child(m, &m->fns.v[fi], ei) || in_once_branch(m, &m->fns.v[fi], ei);
		if (e->kind == EV_ACCESS && (e->u.access->mode & ACC_WRITE))
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
