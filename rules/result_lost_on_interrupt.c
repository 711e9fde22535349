/* result-lost-on-interrupt: the callback takes an item out of shared state
 * (a queue the gem's own function unlinks it from) and returns it, but the
 * release call handles pending interrupts after the callback returned and can
 * raise instead of returning: the item is gone from the queue and the work
 * the caller does with it never happens (the page:
 * rules/docs/result-lost-on-interrupt.md). Reported at the release call.
 *
 * The evidence, all required: the call can raise after the callback
 * (rb_thread_call_without_gvl, rb_nogvl without RB_NOGVL_INTR_FAIL, or with
 * RB_NOGVL_OFFLOAD_SAFE); its return value is stored in a variable; the one
 * callback returns a local it assigned from a call of a gem function that
 * returns a pointer and both reads and writes one file-scope variable (an
 * unlink: `it = q.head; q.head = it->next`); the caller then hands the value
 * to a call or calls through it. A NULL test alone loses nothing worth a
 * finding.
 *
 * The second shape (grpc's rb_completion_queue_pluck): the callback stores
 * the result of a library call modelled `dequeues: true` (an event taken off
 * a completion queue) in a member of its data, the data is the address of
 * the caller's local struct, and after the call the caller returns that
 * member or hands it to a call. Testing it alone (a loop condition) is not a
 * use. */
#include "rule.h"

#include "libmodel.h"

static bool can_raise(const struct msite *s)
{
	if (!s->flags_known)
		return false;
	return (s->flags & NOGVL_OFFLOAD_SAFE) || !(s->flags & NOGVL_INTR_FAIL);
}

static bool whole_var(const struct ref *r, int32_t var)
{
	return r->var == var && var >= 0 && (!r->path || !*r->path) && !r->deref && !r->addr;
}

static bool file_scope(const struct var *v)
{
	return v && v->usr && (v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC);
}

static bool reads_file_var(const struct mfunc *fn, int32_t var)
{
	for (uint32_t j = 0; j < fn->f->nevents; j++) {
		const struct event *r = &fn->f->events[j];
		if (r->kind == EV_ACCESS && (r->u.access->mode & ACC_READ) && r->u.access->ref.var == var)
			return true;
	}
	return false;
}

/* fn returns a pointer and reads and writes the same file-scope variable:
 * the write's event index (an assignment from the variable itself,
 * `q.head = q.head->next`, first), or -1. */
static int32_t unlinks_shared(const struct mfunc *fn)
{
	if (!(fn->f->flags & FN_RETURNS_PTR))
		return -1;
	int32_t first = -1;
	for (uint32_t i = 0; i < fn->f->nevents; i++) {
		const struct event *w = &fn->f->events[i];
		if (w->kind == EV_ASSIGN && file_scope(mf_var(fn, w->u.assign->lhs.var)) &&
		    expr_reads_var(&w->u.assign->rhs, w->u.assign->lhs.var))
			return (int32_t)i;
		if (first < 0 && w->kind == EV_ACCESS && (w->u.access->mode & ACC_WRITE) &&
		    file_scope(mf_var(fn, w->u.access->ref.var)) && reads_file_var(fn, w->u.access->ref.var))
			first = (int32_t)i;
	}
	return first;
}

struct taken {
	const struct mfunc *cb, *from; /* the callback, the function it takes the item from */
	uint32_t take_ev;              /* the call in the callback */
	int32_t write_ev;              /* the unlinking write in `from` */
};

/* The callback returns a local it assigned from an unlinking function. */
static bool callback_takes(const struct model *m, const struct mfunc *cb, struct taken *t)
{
	for (uint32_t i = 0; i < cb->f->nevents; i++) {
		const struct event *r = &cb->f->events[i];
		if (r->kind != EV_RETURN || r->u.ret->kind != EX_REF)
			continue;
		int32_t local = r->u.ret->ref.var;
		const struct var *lv = mf_var(cb, local);
		if (!lv || lv->kind != VK_LOCAL || !whole_var(&r->u.ret->ref, local))
			continue;
		for (uint32_t j = 0; j < cb->f->nevents; j++) {
			const struct event *a = &cb->f->events[j];
			if (a->kind != EV_ASSIGN || !whole_var(&a->u.assign->lhs, local) ||
			    a->u.assign->rhs.kind != EX_CALL || a->u.assign->rhs.call < 0)
				continue;
			const struct call *c = cb->f->events[a->u.assign->rhs.call].u.call;
			const struct mfunc *from = c->usr ? model_callee(m, c->usr, cb) : NULL;
			int32_t w = from ? unlinks_shared(from) : -1;
			if (w < 0)
				continue;
			*t = (struct taken){cb, from, (uint32_t)a->u.assign->rhs.call, w};
			return true;
		}
	}
	return false;
}

/* The first call after the release call that takes the result or calls
 * through it, or -1. */
static int32_t handled_at(const struct mfunc *caller, uint32_t site_ev, int32_t var)
{
	for (uint32_t i = site_ev + 1; i < caller->f->nevents; i++) {
		const struct event *e = &caller->f->events[i];
		if (e->kind != EV_CALL)
			continue;
		const struct call *c = e->u.call;
		if (c->indirect && expr_reads_var(&c->callee, var))
			return (int32_t)i;
		for (uint32_t k = 0; k < c->nargs; k++)
			if (expr_reads_var(&c->args[k], var))
				return (int32_t)i;
	}
	return -1;
}

/* ---- the callback stores a dequeued item in its data ---- */

/* var of the callback is its data parameter, or a local only ever set from
 * it (`struct q *d = (struct q *)param`). */
static bool data_param_var(const struct mfunc *cb, int32_t var)
{
	const struct var *v = mf_var(cb, var);
	if (!v || cb->f->nparams < 1)
		return false;
	if (v->kind == VK_PARAM)
		return var == cb->f->params[0];
	if (v->kind != VK_LOCAL)
		return false;
	unsigned sets = 0;
	for (uint32_t i = 0; i < cb->f->nevents; i++) {
		const struct event *e = &cb->f->events[i];
		if (e->kind != EV_ASSIGN || !whole_var(&e->u.assign->lhs, var))
			continue;
		const struct expr *x = &e->u.assign->rhs;
		if (x->kind != EX_REF || !whole_var(&x->ref, cb->f->params[0]))
			return false;
		sets++;
	}
	return sets > 0;
}

struct stored {
	uint32_t ev;      /* the assignment in the callback */
	const char *path; /* the member of the data it fills */
	const char *call; /* the dequeuing call */
};

/* The callback assigns the result of a library call modelled as dequeuing
 * to a member of its data (`d->event = grpc_completion_queue_pluck(...)`). */
static bool callback_stores(const struct mfunc *cb, struct stored *st)
{
	for (uint32_t i = 0; i < cb->f->nevents; i++) {
		const struct event *a = &cb->f->events[i];
		if (a->kind != EV_ASSIGN || !a->u.assign->lhs.deref || !a->u.assign->lhs.path ||
		    !*a->u.assign->lhs.path || a->u.assign->rhs.kind != EX_CALL || a->u.assign->rhs.call < 0 ||
		    !data_param_var(cb, a->u.assign->lhs.var))
			continue;
		const struct call *c = cb->f->events[a->u.assign->rhs.call].u.call;
		const struct lib_model *lm = c->indirect ? NULL : model_find(c->name);
		if (!lm || lm->dequeues != 1)
			continue;
		*st = (struct stored){i, a->u.assign->lhs.path, c->name};
		return true;
	}
	return false;
}

/* The data argument is the address of a local struct of the caller (&d): that
 * local, else -1. */
static int32_t data_local(const struct mfunc *caller, const struct expr *x)
{
	const struct ref *r = !x ? NULL : x->kind == EX_REF ? &x->ref : x->nreads == 1 ? &x->reads[0] : NULL;
	if (!r || r->var < 0 || !r->addr || r->deref || (r->path && *r->path))
		return -1;
	const struct var *v = mf_var(caller, r->var);
	return v && v->kind == VK_LOCAL && (v->flags & VF_RECORD) && !(v->flags & VF_POINTER) ? r->var : -1;
}

/* x reads the member `path` of var, or var's struct as a whole. */
static bool reads_member(const struct expr *x, int32_t var, const char *path)
{
	if (!x)
		return false;
	if (x->kind == EX_REF && x->ref.var == var &&
	    (ref_path_prefix(path, x->ref.path) || ref_path_prefix(x->ref.path, path)))
		return true;
	for (uint32_t k = 0; k < x->nreads; k++)
		if (x->reads[k].var == var &&
		    (ref_path_prefix(path, x->reads[k].path) || ref_path_prefix(x->reads[k].path, path)))
			return true;
	return false;
}

/* The first event after the release call that returns the member or hands
 * it to a call, or -1. */
static int32_t member_handled_at(const struct mfunc *caller, uint32_t site_ev, int32_t var, const char *path)
{
	for (uint32_t i = site_ev + 1; i < caller->f->nevents; i++) {
		const struct event *e = &caller->f->events[i];
		if (e->kind == EV_RETURN && reads_member(e->u.ret, var, path))
			return (int32_t)i;
		if (e->kind != EV_CALL)
			continue;
		for (uint32_t k = 0; k < e->u.call->nargs; k++)
			if (reads_member(&e->u.call->args[k], var, path))
				return (int32_t)i;
	}
	return -1;
}

/* The notes every finding ends with: why the call raises, the fix, and the
 * macro the release was written in. */
static void interrupt_notes(struct finding *f, const struct msite *s, const char *what)
{
	finding_note(f, &s->loc,
		     "Ruby handles pending interrupts (Thread#raise, Thread#kill, a trap that raises, Timeout) after "
		     "the callback returned and raises instead of returning%s",
		     what);
	finding_note(f, &s->loc,
		     "pass RB_NOGVL_INTR_FAIL (rb_nogvl) or use rb_thread_call_without_gvl2, handle the item, then "
		     "call rb_thread_check_ints()");
	if (s->macro)
		finding_note(f, &s->loc, "expanded from macro '%s'", s->macro);
}

/* Reports the second shape at site s; whether it did. */
static bool report_stored(struct rule_ctx *rc, const struct msite *s)
{
	const struct model *m = rc->m;
	const struct mfunc *caller = &m->fns.v[s->fn];
	const struct mfunc *cb = &m->fns.v[s->cb.targets[0]];
	struct stored st;
	int32_t local = s->data_fn == s->fn ? data_local(caller, s->data1) : -1;
	if (local < 0 || !callback_stores(cb, &st))
		return false;
	int32_t use = member_handled_at(caller, s->ev, local, st.path);
	if (use < 0)
		return false;
	const struct var *lv = mf_var(caller, local);
	const struct event *se = &cb->f->events[st.ev];
	const struct event *ue = &caller->f->events[use];
	struct finding *f =
		rule_report(rc, &s->loc, caller->f->name,
			    "%s can raise after its callback returned and loses '%s.%s', which the callback "
			    "'%s' took off a queue",
			    s->called, lv->name, st.path, cb->f->name);
	finding_note(f, &se->loc, "'%s' stores what '%s' took off the queue here (a library model says it dequeues)",
		     cb->f->name, st.call);
	finding_note(f, &ue->loc,
		     "the caller hands '%s.%s' on here, which never runs when %s raises: the item is gone from the "
		     "queue and its work is never done",
		     lv->name, st.path, s->called);
	interrupt_notes(f, s, "");
	return true;
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template || s->token_only || s->cb.ntargets != 1 || !can_raise(s))
			continue;
		if (report_stored(rc, s))
			continue;
		const struct mfunc *caller = &m->fns.v[s->fn];
		const struct call *rel = caller->f->events[s->ev].u.call;
		int32_t var = rel->result.var;
		const struct var *rv = mf_var(caller, var);
		if (!rv || rv->kind != VK_LOCAL || !whole_var(&rel->result, var))
			continue;
		struct taken t;
		if (!callback_takes(m, &m->fns.v[s->cb.targets[0]], &t))
			continue;
		int32_t use = handled_at(caller, s->ev, var);
		if (use < 0)
			continue;
		const struct event *ue = &caller->f->events[use];
		const struct event *te = &t.cb->f->events[t.take_ev];
		const struct event *we = &t.from->f->events[t.write_ev];
		struct finding *f = rule_report(rc, &s->loc, caller->f->name,
						"%s can raise after its callback returned and loses '%s', which the "
						"callback '%s' took from shared state",
						s->called, rv->name, t.cb->f->name);
		finding_note(f, &te->loc, "'%s' takes it with '%s' here", t.cb->f->name, te->u.call->name);
		const struct ref *wr = we->kind == EV_ASSIGN ? &we->u.assign->lhs : &we->u.access->ref;
		finding_note(f, &we->loc, "'%s' unlinks it from '%s' here", t.from->f->name, ref_text(t.from->tu, wr));
		finding_note(f, &ue->loc,
			     "the caller handles '%s' here ('%s'), which never runs when %s raises: the item is "
			     "gone from the queue and its work is never done",
			     rv->name,
			     ue->u.call->indirect && ue->u.call->callee.text ? ue->u.call->callee.text
									     : ue->u.call->name,
			     s->called);
		interrupt_notes(f, s, " its result");
	}
}

const struct rule_desc rule_result_lost_on_interrupt = {
	.slug = "result-lost-on-interrupt",
	.severity = SEV_WARNING,
	.category = "Inputs and outputs",
	.summary = "The callback returns an item it took out of shared state, and the release call can raise "
		   "after it returned: the item and its work are lost.",
	.rationale = "rb_thread_call_without_gvl, and rb_nogvl without RB_NOGVL_INTR_FAIL, handle pending "
		     "interrupts after the callback returns: on Thread#raise, Thread#kill, Timeout or a trap that "
		     "raises they raise instead of returning the callback's result. When the callback has taken "
		     "an item off a shared queue, the item is then neither in the queue nor handled: a request "
		     "waiting for it hangs, and its memory leaks.",
	.fix = "Pass RB_NOGVL_INTR_FAIL to rb_nogvl (or use rb_thread_call_without_gvl2): neither checks "
	       "interrupts after the callback returned. Handle the item, then call rb_thread_check_ints() to "
	       "take the interrupt.",
	.flags = 0,
	.run = run,
};
