/* cleanup-not-ensured: memory freed or a string unlocked after a release call
 * that can raise, outside rb_ensure/rb_protect.
 *
 * rb_thread_call_without_gvl and rb_nogvl without RB_NOGVL_INTR_FAIL handle
 * pending interrupts after the callback returns (RUBY_VM_CHECK_INTS_BLOCKING),
 * so they can raise instead of returning; with RB_NOGVL_OFFLOAD_SAFE a fiber
 * scheduler raises into the waiting fiber (rb_jump_tag) when it cancels the
 * operation, whatever the other flags (gvl-semantics.md 1.3, 2.5). Cleanup
 * written after such a call in the same function is then skipped.
 * rb_thread_call_without_gvl2 and RB_NOGVL_INTR_FAIL without the offload flag
 * return instead; ALLOCV_END needs no ensure (the buffer's holder object is
 * collected); a function run as the body of rb_protect/rb_ensure leaves the
 * cleanup to its caller (design.md, precise points).
 */
#include <stdlib.h>
#include <string.h>

#include "inputs_flow.h"
#include "offload.h"
#include "rule.h"

/* Release functions. Source: C (free), Ruby 3.1 ruby/internal/memory.h
 * (xfree -> ruby_xfree), intern/string.h (rb_str_unlocktmp); a library's
 * `*_free` by name (OPENSSL_free, sqlite3_free, BN_clear_free ...). */
static const char *const cleanups[] = {
	"free",
	"rb_str_unlocktmp",
	"ruby_xfree",
	"xfree",
};

static bool is_cleanup(const char *name)
{
	if (!name || !*name)
		return false;
	if (str_in_sorted(name, cleanups, ARRAY_SIZE(cleanups)))
		return true;
	/* a library's *_free, not Ruby's own (rb_free_tmp_buffer is ALLOCV_END) */
	return str_ends(name, "_free") && !str_starts(name, "rb_") && !str_starts(name, "ruby_") &&
	       !str_starts(name, "rbimpl_");
}

static bool can_raise(const struct msite *s)
{
	if (!s->flags_known)
		return false;
	return (s->flags & NOGVL_OFFLOAD_SAFE) || !(s->flags & NOGVL_INTR_FAIL);
}

/* The thing released: the argument's variable or member. */
static bool freed_ref(const struct call *c, struct ref *out)
{
	if (!c->nargs)
		return false;
	const struct expr *a = &c->args[0];
	if (a->kind == EX_NULL || a->kind == EX_INT)
		return false;
	if (a->kind == EX_REF && a->ref.var >= 0) {
		*out = a->ref;
		return true;
	}
	if (a->nreads >= 1 && a->reads[0].var >= 0) {
		*out = a->reads[0];
		return true;
	}
	return false;
}

static const char *why(const struct msite *s)
{
	if (s->flags & NOGVL_OFFLOAD_SAFE)
		return "a fiber scheduler raises into the waiting fiber when it cancels the offloaded call";
	return "a pending interrupt such as Thread#raise, Thread#kill or a signal trap is handled after the "
	       "callback returns";
}

/* The first cleanup after site s in its function that rb_ensure does not
 * protect (whatever the site's flags: offloading adds a raising path). */
bool cleanup_after_release(const struct model *m, const struct msite *s, struct loc *where, const char **what)
{
	const struct mfunc *mf = &m->fns.v[s->fn];
	if (mf->protected_body || s->is_template)
		return false;
	const struct func *f = mf->f;
	for (uint32_t i = s->ev + 1; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		struct ref r;
		if (e->kind != EV_CALL || !is_cleanup(e->u.call->name) || !freed_ref(e->u.call, &r))
			continue;
		bool fresh = false;
		for (uint32_t j = s->ev + 1; j < i && !fresh; j++) {
			const struct event *a = &f->events[j];
			if (a->kind == EV_ASSIGN && a->u.assign->lhs.var == r.var && ref_path_prefix(a->u.assign->lhs.path, r.path) &&
			    !(a->u.assign->rhs.kind == EX_CALL && a->u.assign->rhs.call == (int32_t)s->ev))
				fresh = true;
		}
		if (fresh)
			continue;
		*where = e->loc;
		*what = e->u.call->name;
		return true;
	}
	return false;
}

struct hit {
	uint32_t fn, ev;  /* the cleanup call */
	int32_t site;     /* the latest raising site before it */
};

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	VEC(struct hit) hits = {0};
	for (size_t si = 0; si < m->sites.n; si++) {
		const struct msite *s = &m->sites.v[si];
		if (!can_raise(s))
			continue;
		const struct mfunc *mf = &m->fns.v[s->fn];
		if (mf->protected_body)
			continue;
		const struct func *f = mf->f;
		for (uint32_t i = s->ev + 1; i < f->nevents; i++) {
			const struct event *e = &f->events[i];
			if (e->kind != EV_CALL || !is_cleanup(e->u.call->name))
				continue;
			struct ref r;
			if (!freed_ref(e->u.call, &r))
				continue;
			/* allocated (or locked) again after the call: not at risk from it.
			 * The release call's own result (salt = rb_thread_call_without_gvl(...))
			 * was made before the raise point. */
			bool fresh = false;
			for (uint32_t j = s->ev + 1; j < i && !fresh; j++) {
				const struct event *a = &f->events[j];
				if (a->kind == EV_ASSIGN && a->u.assign->lhs.var == r.var &&
				    ref_path_prefix(a->u.assign->lhs.path, r.path) &&
				    !(a->u.assign->rhs.kind == EX_CALL && a->u.assign->rhs.call == (int32_t)s->ev))
					fresh = true;
				if (a->kind == EV_CALL && str_eq(e->u.call->name, "rb_str_unlocktmp") &&
				    str_eq(a->u.call->name, "rb_str_locktmp") && a->u.call->nargs &&
				    a->u.call->args[0].kind == EX_REF && ref_same(&a->u.call->args[0].ref, &r))
					fresh = true;
			}
			if (fresh)
				continue;
			bool found = false;
			for (size_t k = 0; k < hits.n && e->macro && !e->in_macro_arg; k++) {
				/* one finding per use of a cleanup macro (FREE_BINDS) */
				const struct event *o = &f->events[hits.v[k].ev];
				if (hits.v[k].fn == s->fn && hits.v[k].ev != i && o->macro == e->macro &&
				    o->loc.off == e->loc.off && !o->in_macro_arg)
					found = true;
			}
			for (size_t k = 0; k < hits.n; k++)
				if (hits.v[k].fn == s->fn && hits.v[k].ev == i) {
					if ((uint32_t)m->sites.v[hits.v[k].site].ev < s->ev)
						hits.v[k].site = (int32_t)si;
					found = true;
				}
			if (!found) {
				struct hit h = {s->fn, i, (int32_t)si};
				vec_push(&hits, h);
			}
		}
	}
	for (size_t k = 0; k < hits.n; k++) {
		const struct mfunc *mf = &m->fns.v[hits.v[k].fn];
		const struct event *e = &mf->f->events[hits.v[k].ev];
		const struct msite *s = &m->sites.v[hits.v[k].site];
		struct ref r;
		freed_ref(e->u.call, &r);
		const char *what = ref_text(mf->tu, &r);
		const char *name = e->macro && !e->in_macro_arg ? e->macro : e->u.call->name;
		const struct call *rel = m->fns.v[s->fn].f->events[s->ev].u.call;
		bool result = rel->result.var == r.var && (!rel->result.path || !*rel->result.path) && s->fn == hits.v[k].fn;
		bool plain = str_in_sorted(e->u.call->name, cleanups, ARRAY_SIZE(cleanups));
		/* a field of the data struct that only the callback sets (crypt_ra(&args->data)) */
		bool by_cb = false;
		if (!result && s->data1 && s->data1->kind == EX_REF && s->data1->ref.addr && s->fn == s->data_fn &&
		    r.var == s->data1->ref.var && r.path && *r.path) {
			by_cb = true;
			for (uint32_t j = 0; j < s->ev; j++) {
				const struct event *a = &mf->f->events[j];
				if (a->kind == EV_ASSIGN && ref_same(&a->u.assign->lhs, &r) &&
				    a->u.assign->rhs.kind != EX_NULL && a->u.assign->rhs.kind != EX_INT)
					by_cb = false;
			}
		}
		struct finding *f;
		if (str_eq(e->u.call->name, "rb_str_unlocktmp"))
			f = rule_report(rc, &e->loc, mf->f->name,
					"rb_str_unlocktmp(%s) runs after %s, which can raise instead of returning (%s): "
					"'%s' then stays locked and every later change to it raises; unlock it in an "
					"rb_ensure handler, or use rb_str_locktmp_ensure",
					what, s->called, why(s), what);
		else if (result)
			f = rule_report(rc, &e->loc, mf->f->name,
					"'%s' frees '%s', memory the callback returned through %s, but the call can raise "
					"after the callback has run (%s): the return value is then lost and the memory "
					"leaks; have the callback store it in the data struct and free it in an rb_ensure "
					"handler",
					name, what, s->called, why(s));
		else if (by_cb)
			f = rule_report(rc, &e->loc, mf->f->name,
					"'%s' frees '%s', memory the callback stored in its data, after %s, which can raise "
					"instead of returning (%s): '%s' leaks when it does; free it in an rb_ensure handler",
					name, what, s->called, why(s), what);
		else
			f = rule_report(rc, &e->loc, mf->f->name,
					"'%s' frees '%s' after %s, which can raise instead of returning (%s): '%s' leaks "
					"when it does; free it in an rb_ensure handler%s",
					name, what, s->called, why(s), what,
					plain ? " (or allocate it with ALLOCV, which the GC reclaims)" : "");
		finding_note(f, &s->loc, "%s can raise here%s", s->called,
			     (s->flags & NOGVL_OFFLOAD_SAFE) ? " (RB_NOGVL_OFFLOAD_SAFE)"
							     : " (no RB_NOGVL_INTR_FAIL)");
		finding_macro_note(f, e);
	}
	vec_free(&hits);
}

const struct rule_desc rule_cleanup_not_ensured = {
	.slug = "cleanup-not-ensured",
	.severity = SEV_WARNING,
	.category = "Inputs and outputs",
	.summary = "Memory is freed or a string unlocked after a release call that can raise, without rb_ensure.",
	.rationale = "rb_thread_call_without_gvl (and rb_nogvl without RB_NOGVL_INTR_FAIL) handles pending "
		     "interrupts after the callback returns, so Thread#raise, Thread#kill or a signal trap makes it "
		     "raise instead of returning; with RB_NOGVL_OFFLOAD_SAFE a fiber scheduler also raises into the "
		     "waiting fiber when it cancels the call. Cleanup written after the call is then skipped: the "
		     "memory leaks, or a string locked with rb_str_locktmp stays locked and every later change to it "
		     "raises.",
	.fix = "Move the cleanup into an rb_ensure handler (zlib: rb_ensure(run, args, ensure, args)), use "
	       "rb_str_locktmp_ensure for locked strings, or allocate with ALLOCV (collected by the GC). "
	       "rb_thread_call_without_gvl2 and RB_NOGVL_INTR_FAIL without the offload flag return instead of "
	       "raising, so cleanup right after them is fine.",
	.flags = 0,
	.run = run,
};
