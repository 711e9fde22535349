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
#include "state_ctx.h"

/* ---- small helpers ---- */

bool static_storage(const struct var *v)
{
	return v && (v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC || v->kind == VK_LOCAL_STATIC);
}

/* Flags of a global, merged with its linked definition (an extern
 * declaration may not say _Atomic or const the way the definition does). */
uint32_t var_flags(const struct model *m, const struct var *v)
{
	uint32_t f = v->flags;
	if (v->usr && (v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC)) {
		const struct var *g = hmap_get(&m->globals, v->usr);
		if (g)
			f |= g->flags & (VF_CONST | VF_ATOMIC | VF_TLS | VF_MUTEX);
	}
	return f;
}

const char *storage_text(const struct var *v)
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

bool plain_path(const struct ref *r)
{
	return !r->path || !*r->path;
}

const struct mfunc *project_callee(const struct model *m, const struct call *c)
{
	return c->indirect ? NULL : model_func_by_usr(m, c->usr);
}

/* A call of a library function (no body in the project, not through a pointer). */
bool library_call(const struct model *m, const struct event *e)
{
	return e->kind == EV_CALL && !e->u.call->indirect && e->u.call->name && !model_func_by_usr(m, e->u.call->usr);
}

/* The name to show for a call: the macro the user wrote (memcpy, MEMCPY)
 * when the call is that macro's expansion, else the callee. */
const char *call_display(const struct event *e)
{
	if (e->macro && !e->in_macro_arg)
		return e->macro;
	return e->u.call->name;
}

bool in_reach(const struct reach_set *rs, uint32_t fn)
{
	return rs->by_fn[fn].reached != 0;
}

bool region_within(const struct func *f, int32_t r, int32_t anc)
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
int32_t returning_region(const struct func *f, int32_t r)
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

const char *cb_name(const struct model *m, const struct msite *s)
{
	if (s->cb.ntargets)
		return m->fns.v[s->cb.targets[0]].f->name;
	if (s->cb.nexternal)
		return s->cb.external[0];
	return s->cb.text ? s->cb.text : "the callback";
}

/* ---- mutexes ---- */

void ctx_init(struct state_ctx *c, const struct model *m)
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

void ctx_free(struct state_ctx *c)
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
const struct var *def_var(struct state_ctx *c, const struct var *v)
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
const char *mutex_key(struct state_ctx *c, const struct mfunc *mf, const struct expr *a)
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

const char *strip_amp(struct state_ctx *c, const char *t)
{
	if (!t)
		return "?";
	while (*t == '&' || *t == ' ')
		t++;
	return intern(&c->pool, t);
}

/* ---- GATE_THREAD_STATE ---- */

static const char *tls_var_key(struct state_ctx *c, const struct var *v)
{
	char *k = xasprintf("t:%s", v->usr ? v->usr : v->name);
	const char *r = intern(&c->pool, k);
	free(k);
	return r;
}

bool null_arg(const struct expr *a)
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
		const struct var *v = mf_var(mf, e->u.access->ref.var);
		if (!v || !(var_flags(c->m, v) & VF_TLS))
			return NULL;
		*set = (e->u.access->mode & ACC_WRITE) && !(e->u.access->mode & ACC_READ) && !e->u.access->ref.deref &&
		       plain_path(&e->u.access->ref);
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
				const struct var *v = mf_var(mf, e->u.access->ref.var);
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
	shared_state_begin(m);
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
	shared_state_end();
	hmap_free(&seen);
	hmap_free(&walked);
	strpool_free(&keys);
}
