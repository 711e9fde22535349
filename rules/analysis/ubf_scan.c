/* ubf_scan.c: the callback and UBF scans of ubf.h, and the UBF offload gate. */
#include "ubf.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "gates.h"
#include "knowledge.h"
#include "libmodel.h"

/* ---- helpers ---- */

bool site_ubf_async_safe(const struct msite *s)
{
	return s->flags_known && (s->flags & 0x2); /* RB_NOGVL_UBF_ASYNC_SAFE, ruby/thread.h */
}

const char *site_ubf_spelling(const struct msite *s)
{
	if (s->ubf.macro && (strcmp(s->ubf.macro, "RUBY_UBF_IO") == 0 || strcmp(s->ubf.macro, "RUBY_UBF_PROCESS") == 0))
		return s->ubf.macro;
	return s->ubf_kind == UBF_PROCESS ? "RUBY_UBF_PROCESS" : "RUBY_UBF_IO";
}

const char *cbres_name(const struct model *m, const struct cbres *r)
{
	if (r->ntargets)
		return m->fns.v[r->targets[0]].f->name;
	if (r->nexternal)
		return r->external[0];
	return r->text ? r->text : "?";
}

static const struct expr *arg(const struct call *c, int i)
{
	return i >= 0 && (uint32_t)i < c->nargs ? &c->args[i] : NULL;
}

static bool text_has(const char *t, const char *word)
{
	return t && strstr(t, word) != NULL;
}

/* ---- callback scan ---- */

/* Any argument text names a non-blocking or timeout setting. */
static bool call_sets_nonblock(const struct call *c)
{
	static const char *const words[] = {"O_NONBLOCK",  "SOCK_NONBLOCK", "FIONBIO",
					    "SO_RCVTIMEO", "EFD_NONBLOCK",  "O_NDELAY"};
	for (uint32_t a = 0; a < c->nargs; a++)
		for (size_t w = 0; w < ARRAY_SIZE(words); w++)
			if (text_has(c->args[a].text, words[w]))
				return true;
	return false;
}

static bool fn_sets_nonblock(const struct mfunc *mf)
{
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (e->kind == EV_CALL && call_sets_nonblock(e->u.call))
			return true;
	}
	return false;
}

static bool is_open_call(const char *n)
{
	return str_eq(n, "open") || str_eq(n, "openat") || str_eq(n, "creat") || str_eq(n, "open64") ||
	       str_eq(n, "openat64");
}

/* The fd reference `fd` (in function `in`) was filled by open()/openat() in
 * function mf: a regular file (a FIFO would already block in open). Matches a
 * plain variable of the same function, or the same record field anywhere. */
static bool fd_opened_in(const struct mfunc *mf, const struct mfunc *in, const struct ref *fd)
{
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (e->kind != EV_CALL || !is_open_call(e->u.call->name) || e->u.call->result.var < 0)
			continue;
		const struct ref *r = &e->u.call->result;
		if (fd->field && r->field && str_eq(fd->field, r->field) && str_eq(fd->record, r->record))
			return true;
		if (mf == in && !fd->field && ref_same(r, fd))
			return true;
	}
	return false;
}

/* A readiness wait (poll/select/epoll) before event ev in the same function. */
static bool waited_before(const struct mfunc *mf, uint32_t ev)
{
	for (uint32_t ei = 0; ei < ev; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (e->kind != EV_CALL || e->u.call->indirect)
			continue;
		const struct blocking_call *bc = ubf_blocking_call(e->u.call->name);
		if (bc && bc->fd_wait && bc->bound != BOUND_FD)
			return true;
	}
	return false;
}

static uint8_t fd_bound(const struct model *m, const struct msite *s, const struct cb_scan *cs, const struct mfunc *mf,
			uint32_t ev, const char **why)
{
	const struct call *c = mf->f->events[ev].u.call;
	*why = "on a descriptor that may be a pipe, socket or terminal";
	if (cs->nonblock)
		return CB_BOUNDED;
	int flags_arg = -1;
	if (str_eq(c->name, "recv") || str_eq(c->name, "recvfrom") || str_eq(c->name, "recvmmsg"))
		flags_arg = 3;
	else if (str_eq(c->name, "recvmsg"))
		flags_arg = 2;
	const struct expr *fl = arg(c, flags_arg);
	if (fl && (!fl->has_ival || (fl->ival & MSG_DONTWAIT)))
		return fl->has_ival ? CB_BOUNDED : CB_UNKNOWN;
	if (str_eq(c->name, "recvmmsg")) {
		const struct expr *t = arg(c, 4);
		if (t && t->kind != EX_NULL)
			return CB_BOUNDED;
	}
	if (waited_before(mf, ev))
		return CB_BOUNDED;
	const struct expr *fd = arg(c, 0);
	if (fd && fd->kind == EX_REF) {
		struct nogvl_walk w;
		for (nogvl_walk_init(&w, m, &cs->rs, NOGVL_ALL_EVENTS); nogvl_walk_next_fn(&w);)
			if (fd_opened_in(w.mf, mf, &fd->ref))
				return CB_BOUNDED;
		if (fd_opened_in(&m->fns.v[s->fn], mf, &fd->ref) || fd_opened_in(&m->fns.v[s->data_fn], mf, &fd->ref))
			return CB_BOUNDED;
	}
	return CB_UNBOUNDED;
}

static bool gem_starts_threads(const struct model *m);

static uint8_t call_bound(const struct model *m, const struct msite *s, struct cb_scan *cs, const struct mfunc *mf,
			  uint32_t ev, const struct blocking_call *bc, const char **why)
{
	const struct call *c = mf->f->events[ev].u.call;
	const struct expr *a = arg(c, bc->arg);
	*why = NULL;
	switch (bc->bound) {
	case BOUND_ALWAYS:
		return CB_BOUNDED;
	case BOUND_NEVER:
		*why = "with no timeout";
		/* a condition variable, semaphore, barrier or join on the gem's own
		 * threads: they usually finish bounded work (a worker pool, a
		 * shutdown join); whether they wait on something external is not
		 * visible */
		if (bc->wake == WAKE_SIGNAL_IO || bc->wake == WAKE_SIGNAL_PROCESS)
			return CB_UNBOUNDED;
		if (!cs->gem_threads_known) {
			cs->gem_threads = gem_starts_threads(m);
			cs->gem_threads_known = true;
		}
		if (cs->gem_threads)
			return CB_UNKNOWN;
		return CB_UNBOUNDED;
	case BOUND_FD:
		return fd_bound(m, s, cs, mf, ev, why);
	case BOUND_NEG_TIMEOUT:
		if (!a || !a->has_ival)
			return CB_UNKNOWN;
		*why = "with an infinite timeout (-1)";
		return a->ival < 0 ? CB_UNBOUNDED : CB_BOUNDED;
	case BOUND_NULL_TIMEOUT:
		if (!a)
			return CB_UNKNOWN;
		*why = "with a NULL timeout (wait forever)";
		return a->kind == EX_NULL || (a->has_ival && a->ival == 0) ? CB_UNBOUNDED : CB_BOUNDED;
	case BOUND_FLAG_CLEAR:
		if (!a || !a->has_ival)
			return CB_UNKNOWN;
		if ((a->ival & bc->flag) || (bc->flag2 && (a->ival & bc->flag2)))
			return CB_BOUNDED;
		*why = str_eq(bc->name, "flock")    ? "without LOCK_NB"
		       : str_eq(bc->name, "msgrcv") ? "without IPC_NOWAIT"
						    : "without WNOHANG";
		return CB_UNBOUNDED;
	case BOUND_ARG_EQUALS:
		if (!a || !a->has_ival)
			return CB_UNKNOWN;
		if (a->ival != bc->flag && a->ival != bc->flag2)
			return CB_BOUNDED;
		*why = str_eq(bc->name, "lockf") ? "with F_LOCK (waits for the lock)"
						 : "with F_SETLKW (waits for the lock)";
		return CB_UNBOUNDED;
	default:
		return CB_UNKNOWN;
	}
}

static bool is_thread_start(const char *n)
{
	return str_eq(n, "pthread_create") || str_eq(n, "thrd_create");
}

bool ubf_on_other_thread(const struct model *m, const struct reach_set *rs, uint32_t fn)
{
	uint32_t cur = fn;
	for (unsigned guard = 0; guard < 256; guard++) {
		const struct reach *r = &rs->by_fn[cur];
		if (!r->reached || r->pred_fn < 0 || r->edge_kind == 0)
			return false;
		if (r->edge_kind == EDGE_FNARG) {
			const struct mfunc *caller = &m->fns.v[r->pred_fn];
			if (is_thread_start(caller->f->events[r->pred_ev].u.call->name))
				return true;
		}
		cur = (uint32_t)r->pred_fn;
	}
	return false;
}

static bool gem_threads_walk(const struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind == EV_CALL &&
			    (is_thread_start(e->u.call->name) || str_eq(e->u.call->name, "rb_thread_create")))
				return true;
		}
	}
	return false;
}

static bool gem_starts_threads(const struct model *m)
{
	uintptr_t memo = 0;
	if (model_memo_get(m, "gem-starts-threads", &memo))
		return memo != 0;
	bool r = gem_threads_walk(m);
	model_memo_put(m, "gem-starts-threads", r);
	return r;
}

static void cb_push(struct cb_scan *cs, uint32_t fn, uint32_t ev, uint8_t kind, const char *name)
{
	struct cb_item it = {fn, ev, kind, CB_BOUNDED, NULL, name, NULL};
	vec_push(&cs->items, it);
	if (kind == CI_OPAQUE)
		cs->nopaque++;
	else if (kind == CI_POLLS)
		cs->npolls++;
}

void ubf_scan_callback(const struct model *m, const struct msite *s, struct cb_scan *cs)
{
	memset(cs, 0, sizeof(*cs));
	model_reach_from(m, &s->cb, (int32_t)s->id, &cs->rs);
	cs->resolved = s->cb.ntargets > 0 && !s->cb.nexternal && !s->cb.partial && !cs->rs.nopaque;
	cs->clean = true;
	/* non-blocking descriptors set up by the callback or its caller */
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, &cs->rs, NOGVL_SKIP_GEM_CALLS); !cs->nonblock && nogvl_walk_next_fn(&w);)
		cs->nonblock = fn_sets_nonblock(w.mf);
	if (!cs->nonblock)
		cs->nonblock = fn_sets_nonblock(&m->fns.v[s->fn]) || fn_sets_nonblock(&m->fns.v[s->data_fn]);

	for (nogvl_walk_init(&w, m, &cs->rs, NOGVL_SKIP_GEM_CALLS); nogvl_walk_next_fn(&w);) {
		uint32_t fi = w.fi;
		const struct mfunc *mf = w.mf;
		if (ubf_on_other_thread(m, &cs->rs, fi))
			continue;
		if (mf->tu->status != TU_OK)
			cs->clean = false;
		for (uint32_t ri = 0; ri < mf->f->nregions; ri++)
			if (mf->f->regions[ri].kind == RG_LOOP)
				cs->nwork++;
		while (nogvl_walk_next_event(&w)) {
			const struct event *e = w.e;
			uint32_t ei = w.ei;
			if (e->kind != EV_CALL)
				continue;
			const char *n = e->u.call->name;
			const char *alias = ubf_libc_name(n);
			if (alias)
				n = alias;
			if (!n || ubf_builtin(n))
				continue;
			const struct blocking_call *bc = ubf_blocking_call(n);
			if (bc) {
				struct cb_item it = {fi, ei, CI_BLOCKING, CB_BOUNDED, bc, n, NULL};
				it.bound = call_bound(m, s, cs, mf, ei, bc, &it.why);
				vec_push(&cs->items, it);
				cs->nblocking++;
				continue;
			}
			if (ubf_polls_interrupts(n)) {
				cb_push(cs, fi, ei, CI_POLLS, n);
				continue;
			}
			struct ruby_use u = alias ? (struct ruby_use){0} : ruby_use_of(mf, ei);
			if (u.cls != RC_NONE) {
				if (!u.representative)
					continue;
				if (u.cls == RC_CALL || u.cls == RC_MAY_RAISE || u.cls == RC_RAISES)
					cb_push(cs, fi, ei, CI_OPAQUE, u.name);
				continue; /* inline helpers, accessors, ruby_xmalloc: memory only */
			}
			if (ubf_cpu_call(n)) {
				cs->nwork++;
				continue;
			}
			cb_push(cs, fi, ei, CI_OPAQUE, n);
		}
	}
}

void cb_scan_free(struct cb_scan *cs)
{
	reach_set_free(&cs->rs);
	vec_free(&cs->items);
}

/* ---- UBF scan ---- */

/* The UBF's view of a flag: a field (record + field), or a global/static
 * (NULL record, the variable's USR). A write through the UBF's own parameter
 * with no member path (`*(int *)p = 1`) is the object data2 points at. */
static bool flag_identity(const struct model *m, const struct msite *s, const struct mfunc *mf, const struct ref *r,
			  const char **record, const char **field)
{
	const struct var *v = mf_var(mf, r->var);
	if (r->field && r->record && (r->deref || (v && v->kind != VK_LOCAL && v->kind != VK_PARAM))) {
		*record = r->record;
		*field = r->field;
		return true;
	}
	if (!v)
		return false;
	bool plain = !r->path || !*r->path;
	if (plain && (v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC || v->kind == VK_LOCAL_STATIC) && v->usr) {
		*record = NULL;
		*field = v->usr;
		return true;
	}
	if (plain && r->deref && v->kind == VK_PARAM && s->data2 && s->data2->kind == EX_REF && s->data2->ref.field) {
		*record = s->data2->ref.record;
		*field = s->data2->ref.field;
		return true;
	}
	(void)m;
	return false;
}

static void ui_push(struct ubf_scan *us, uint32_t fn, uint32_t ev, uint8_t kind, bool safe, const char *name)
{
	struct ubf_item it = {0};
	it.fn = fn;
	it.ev = ev;
	it.kind = kind;
	it.async_safe = safe;
	it.name = name;
	vec_push(&us->items, it);
}

static void scan_ubf_call(const struct model *m, struct ubf_scan *us, uint32_t fi, uint32_t ei)
{
	const struct mfunc *mf = &m->fns.v[fi];
	const struct event *e = &mf->f->events[ei];
	const struct call *c = e->u.call;
	const char *alias = ubf_libc_name(c->name);
	const char *n = alias ? alias : c->name;
	if (!n || ubf_builtin(n)) {
		ui_push(us, fi, ei, UI_INERT, true, n);
		return;
	}
	bool safe = ubf_async_signal_safe(n);
	if (ubf_thread_id_call(n)) {
		ui_push(us, fi, ei, UI_THREAD_ID, safe, n);
		return;
	}
	if (ubf_thread_signal_call(n)) {
		ui_push(us, fi, ei, UI_THREAD_SIGNAL, safe, n);
		const struct expr *a = arg(c, 0);
		if (a && a->kind == EX_REF)
			us->items.v[us->items.n - 1].ref = a->ref;
		return;
	}
	/* Ruby's macros: one use per expansion, classed by its strongest part */
	struct ruby_use u = alias ? (struct ruby_use){0} : ruby_use_of(mf, ei);
	if (u.cls != RC_NONE && !u.representative)
		return;
	const char *shown = u.cls != RC_NONE ? u.name : n;
	if (ubf_alloc_call(n) || u.cls == RC_ALLOC) {
		ui_push(us, fi, ei, UI_ALLOC, false, shown);
		return;
	}
	if (ubf_lock_call(n)) {
		ui_push(us, fi, ei, UI_LOCK, false, n);
		return;
	}
	if (ubf_cond_signal_call(n)) {
		ui_push(us, fi, ei, UI_COND_SIGNAL, false, n);
		return;
	}
	if (ubf_stdio_call(n)) {
		ui_push(us, fi, ei, UI_STDIO, false, n);
		return;
	}
	if (ubf_pipe_write_call(n)) {
		ui_push(us, fi, ei, UI_PIPE, safe, n);
		return;
	}
	switch (u.cls) {
	case RC_CALL:
	case RC_MAY_RAISE:
	case RC_RAISES:
		ui_push(us, fi, ei, UI_RUBY, false, shown);
		return;
	case RC_PURE:
	case RC_ACCESSOR:
		ui_push(us, fi, ei, UI_INERT, true, shown);
		return;
	case RC_ALLOWED:
		ui_push(us, fi, ei, UI_OTHER, safe, shown);
		return;
	default:
		break;
	}
	if (ubf_cpu_call(n) || str_eq(n, "__errno_location")) {
		ui_push(us, fi, ei, UI_INERT, safe, n);
		return;
	}
	if (safe) {
		ui_push(us, fi, ei, UI_OTHER, true, n);
		return;
	}
	/* a library model that says async_signal_safe: false decides it */
	const struct lib_model *lm = model_find(n);
	if (alias || c->origin == ORIGIN_SYSTEM || c->origin == ORIGIN_RUBY || (lm && lm->async_signal_safe == 0))
		ui_push(us, fi, ei, UI_OTHER, false, n);
	else
		ui_push(us, fi, ei, UI_OPAQUE, false, n);
}

void ubf_scan_ubf(const struct model *m, const struct msite *s, struct ubf_scan *us)
{
	memset(us, 0, sizeof(*us));
	if (s->ubf_kind != UBF_FUNC)
		return;
	model_reach_from(m, &s->ubf, (int32_t)s->id, &us->rs);
	us->resolved = s->ubf.ntargets > 0 && !s->ubf.nexternal && !s->ubf.partial;
	struct nogvl_walk w;
	/* calls of the gem's functions are followed through edges; unresolved
	 * pointers count in rs.nopaque */
	for (nogvl_walk_init(&w, m, &us->rs, NOGVL_SKIP_GEM_CALLS); nogvl_walk_next(&w);) {
		uint32_t fi = w.fi, ei = w.ei;
		const struct mfunc *mf = w.mf;
		const struct event *e = w.e;
		if (e->kind == EV_CALL) {
			scan_ubf_call(m, us, fi, ei);
			continue;
		}
		if (e->kind != EV_ACCESS)
			continue;
		const struct ref *r = &e->u.access->ref;
		const struct var *v = mf_var(mf, r->var);
		if (v && (v->flags & VF_TLS)) {
			ui_push(us, fi, ei, UI_THREAD_ID, true, v->name);
			continue;
		}
		if (!(e->u.access->mode & (ACC_WRITE | ACC_ADDR)))
			continue;
		const char *rec = NULL, *field = NULL;
		if (!flag_identity(m, s, mf, r, &rec, &field))
			continue;
		struct ubf_item it = {0};
		it.fn = fi;
		it.ev = ei;
		it.kind = UI_FLAG;
		it.async_safe = 1;
		it.name = r->field ? r->field : v ? v->name : "?";
		it.ref = *r;
		it.record = rec;
		it.field = field;
		vec_push(&us->items, it);
	}
}

void ubf_scan_free(struct ubf_scan *us)
{
	reach_set_free(&us->rs);
	vec_free(&us->items);
}

/* ---- the UBF offload gate ---- */

/* Where the thread handle `h` that a UBF signals was saved from
 * pthread_self()/gettid(): 1 in the callback (the thread running it), -1 on
 * the caller's side, 0 not found. */
static int thread_handle_origin(const struct model *m, const struct msite *s, const struct reach_set *cb,
				const struct ref *h, const struct mfunc **where, const struct event **at)
{
	if (!h->field)
		return 0;
	for (int side = 0; side < 2; side++) {
		uint32_t nf = side == 0 ? cb->n : 2;
		for (uint32_t i = 0; i < nf; i++) {
			uint32_t fi = side == 0 ? cb->fns[i] : i == 0 ? s->fn : s->data_fn;
			const struct mfunc *mf = &m->fns.v[fi];
			for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
				const struct event *e = &mf->f->events[ei];
				if (e->kind != EV_CALL || !ubf_thread_id_call(e->u.call->name))
					continue;
				const struct ref *r = &e->u.call->result;
				if (r->var < 0 || !str_eq(r->field, h->field) || !str_eq(r->record, h->record))
					continue;
				*where = mf;
				*at = e;
				return side == 0 ? 1 : -1;
			}
		}
	}
	return 0;
}

void gate_check_ubf(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	switch (s->ubf_kind) {
	case UBF_NONE:
	case UBF_NULL:
	case UBF_IO:
	case UBF_PROCESS:
		return; /* Ruby resolves the sentinels against the thread that runs the callback */
	case UBF_FUNC:
		break;
	default:
		gate_add(g, GATE_UBF, GATE_UNKNOWN, &s->loc, -1, "the unblocking function '%s' could not be resolved",
			 s->ubf.text ? s->ubf.text : "?");
		return;
	}
	if (!s->ubf.ntargets || s->ubf.nexternal || s->ubf.partial) {
		gate_add(g, GATE_UBF, GATE_UNKNOWN, &s->loc, -1,
			 "the unblocking function '%s' has no body in the project (or is not fully resolved)",
			 cbres_name(m, &s->ubf));
		return;
	}
	struct ubf_scan us;
	ubf_scan_ubf(m, s, &us);
	if (us.rs.nopaque)
		gate_add(g, GATE_UBF, GATE_UNKNOWN, &s->loc, -1,
			 "the unblocking function '%s' calls through a function pointer that could not be resolved",
			 cbres_name(m, &s->ubf));
	for (size_t i = 0; i < us.items.n; i++) {
		const struct ubf_item *it = &us.items.v[i];
		const struct mfunc *mf = &m->fns.v[it->fn];
		const struct event *e = &mf->f->events[it->ev];
		switch (it->kind) {
		case UI_FLAG:
		case UI_PIPE:
		case UI_INERT:
			break;
		case UI_RUBY:
			gate_add(g, GATE_UBF, GATE_FAIL, &e->loc, (int32_t)it->fn,
				 "the unblocking function '%s' calls Ruby API '%s'", mf->f->name, it->name);
			break;
		case UI_THREAD_ID:
			gate_add(
				g, GATE_UBF, GATE_FAIL, &e->loc, (int32_t)it->fn,
				"the unblocking function '%s' uses thread identity ('%s'): it runs on whichever thread "
				"interrupts, not on the one running the callback",
				mf->f->name, it->name);
			break;
		case UI_THREAD_SIGNAL: {
			const struct mfunc *where = NULL;
			const struct event *at = NULL;
			int o = thread_handle_origin(m, s, rs, &it->ref, &where, &at);
			if (o > 0)
				break; /* the callback saved its own thread: still right on a worker */
			if (o < 0)
				gate_add(g, GATE_UBF, GATE_FAIL, &e->loc, (int32_t)it->fn,
					 "the unblocking function '%s' calls '%s' on the thread '%s' saved from "
					 "'%s' in '%s': under offload the callback runs on a worker thread",
					 mf->f->name, it->name, it->ref.field, at->u.call->name, where->f->name);
			else
				gate_fact(gate_add(g, GATE_UBF, GATE_UNKNOWN, &e->loc, (int32_t)it->fn,
						   "the unblocking function '%s' calls '%s' on a thread handle whose "
						   "origin is not visible",
						   mf->f->name, it->name),
					  FACT_OTHER, it->name);
			break;
		}
		default:
			gate_fact(gate_add(g, GATE_UBF, GATE_UNKNOWN, &e->loc, (int32_t)it->fn,
					   "the unblocking function '%s' calls '%s': only flag writes and pipe/eventfd "
					   "writes are known not to depend on the thread that runs it",
					   mf->f->name, it->name),
				  FACT_OTHER, it->name);
			break;
		}
	}
	ubf_scan_free(&us);
}
