/* dangling-gc-root: rb_gc_register_address(&local) (or rb_global_variable)
 * on a variable of the function's own stack frame, with a release call that
 * can raise before the matching rb_gc_unregister_address (or none at all).
 * When the call raises, the frame is gone but the GC keeps the slot's address
 * as a root and reads it at every mark: it reads (and may write, when
 * compacting) a dead stack slot.
 *
 * rb_thread_call_without_gvl and rb_nogvl without RB_NOGVL_INTR_FAIL handle
 * interrupts after the callback (they can raise); with RB_NOGVL_OFFLOAD_SAFE a
 * scheduler can raise into the waiting fiber (gvl-semantics.md 1.3, 2.5);
 * rb_gc_register_address "registers the address as a root" until
 * rb_gc_unregister_address (ruby/internal/gc.h). A function run as the body
 * of rb_protect/rb_ensure leaves the unregister to its caller's ensure.
 */
#include "rule.h"

static bool can_raise(const struct msite *s)
{
	if (!s->flags_known)
		return false;
	return (s->flags & NOGVL_OFFLOAD_SAFE) || !(s->flags & NOGVL_INTR_FAIL);
}

/* A call of Ruby's (not the gem's own) function `name`. */
static bool ruby_call(const struct model *m, const struct event *e, const char *name)
{
	return e->kind == EV_CALL && !e->u.call->indirect && str_eq(e->u.call->name, name) &&
	       !model_func_by_usr(m, e->u.call->usr) && e->u.call->nargs >= 1;
}

/* The stack variable whose address is the first argument (&v), or -1. */
static int32_t stack_addr_arg(const struct mfunc *mf, const struct event *e)
{
	const struct expr *a = &e->u.call->args[0];
	if (a->kind != EX_REF || !a->ref.addr || a->ref.var < 0 || a->ref.ptr_deref)
		return -1;
	const struct var *v = mf_var(mf, a->ref.var);
	if (!v || (v->kind != VK_LOCAL && v->kind != VK_PARAM))
		return -1;
	return a->ref.var;
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	struct call_walk w;
	for (call_walk_init(&w, m, -1, CALLS_ALL); call_walk_next(&w);) {
		const struct mfunc *mf = w.mf;
		if (mf->protected_body)
			continue;
		const struct func *f = mf->f;
		uint32_t fi = w.fi, ri = w.ei;
		const struct event *reg = w.e;
		if (!ruby_call(m, reg, "rb_gc_register_address") && !ruby_call(m, reg, "rb_global_variable"))
			continue;
		int32_t var = stack_addr_arg(mf, reg);
		if (var < 0)
			continue;
		/* the first release call after the registration that can raise */
		const struct msite *site = NULL;
		for (size_t si = 0; si < m->sites.n && !site; si++) {
			const struct msite *s = &m->sites.v[si];
			if (s->fn == fi && s->ev > ri && !s->is_template && can_raise(s))
				site = s;
		}
		if (!site)
			continue;
		/* unregistered before the site: fine; the first unregister after it */
		const struct event *unreg = NULL;
		bool before = false;
		for (uint32_t ui = ri + 1; ui < f->nevents; ui++) {
			const struct event *u = &f->events[ui];
			if (!ruby_call(m, u, "rb_gc_unregister_address") || stack_addr_arg(mf, u) != var)
				continue;
			if (ui < site->ev)
				before = true;
			else if (!unreg)
				unreg = u;
		}
		if (before)
			continue;
		const struct var *v = mf_var(mf, var);
		const char *reg_name = reg->u.call->name;
		struct finding *fd;
		if (unreg)
			fd = rule_report(rc, &reg->loc, f->name,
					 "'%s' registers stack variable '%s' as a GC root and unregisters it only if "
					 "%s returns: when it raises, the GC keeps reading a dead stack slot",
					 reg_name, v->name, site->called);
		else
			fd = rule_report(rc, &reg->loc, f->name,
					 "'%s' registers stack variable '%s' as a GC root and never unregisters it: "
					 "after '%s' returns (or %s raises), the GC reads a dead stack slot",
					 reg_name, v->name, f->name, site->called);
		finding_note(fd, &site->loc, "%s can raise here%s", site->called,
			     (site->flags & NOGVL_OFFLOAD_SAFE) ? " (RB_NOGVL_OFFLOAD_SAFE)"
								: " (no RB_NOGVL_INTR_FAIL)");
		if (unreg)
			finding_note(fd, &unreg->loc, "unregistered only here, on the normal path");
		finding_macro_note(fd, reg);
	}
}

const struct rule_desc rule_dangling_gc_root = {
	.slug = "dangling-gc-root",
	.severity = SEV_ERROR,
	.category = "Inputs and outputs",
	.summary = "A stack variable registered as a GC root (rb_gc_register_address, rb_global_variable) is not "
		   "unregistered when a release call before the unregister raises.",
	.rationale = "rb_gc_register_address(&v) makes the GC read v's address at every mark until "
		     "rb_gc_unregister_address(&v). rb_thread_call_without_gvl and rb_nogvl (without "
		     "RB_NOGVL_INTR_FAIL, or with RB_NOGVL_OFFLOAD_SAFE) can raise after the callback: the frame "
		     "unwinds, the unregister written after the call never runs, and the GC keeps marking a dead "
		     "stack slot that later calls overwrite with anything: a crash in the GC, far from the cause.",
	.fix = "Do not register stack variables: keep the VALUE alive with RB_GC_GUARD after the call, or in a "
	       "Ruby object the frame holds. If a root is needed, unregister it in an rb_ensure handler around "
	       "the release call.",
	.flags = 0,
	.run = run,
};
