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

/* Wipes of secret material: C11 K.3.7.4.1 memset_s, glibc/BSD explicit_bzero,
 * NetBSD explicit_memset, OpenSSL OPENSSL_cleanse, libsodium sodium_memzero,
 * and a gem's own *wipe* / *zeroize* / *cleanse* helper. Skipping one leaves
 * the secret in memory: worse than a leak. */
static const char *const wipes[] = {
	"OPENSSL_cleanse", "explicit_bzero", "explicit_memset", "memset_s", "sodium_memzero",
};

static bool contains_ci(const char *s, const char *w)
{
	size_t n = strlen(w);
	for (; *s; s++) {
		size_t i = 0;
		while (i < n && s[i] && (s[i] | 0x20) == w[i])
			i++;
		if (i == n)
			return true;
	}
	return false;
}

static bool is_wipe(const char *name)
{
	if (!name || !*name)
		return false;
	return str_in_sorted(name, wipes, ARRAY_SIZE(wipes)) || contains_ci(name, "wipe") ||
	       contains_ci(name, "zeroize") || contains_ci(name, "cleanse");
}

/* Which skipped cleanup leads a finding: a wipe of secret material, then a
 * string left locked, then memory. */
static int cleanup_rank(const char *name)
{
	if (is_wipe(name))
		return 3;
	return str_eq(name, "rb_str_unlocktmp") ? 2 : 1;
}

static bool is_cleanup(const char *name)
{
	if (!name || !*name)
		return false;
	if (str_in_sorted(name, cleanups, ARRAY_SIZE(cleanups)) || is_wipe(name))
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

/* Cleanups a raise at site s skips: after the release in its function, and
 * after the call on the way up, in its callers and their callers
 * (UP_FRAMES, a zstd-style `compress_io` that frees its buffers after
 * `compress` returns from the helper that releases). A function run as the
 * body of rb_protect/rb_ensure leaves the cleanup to its caller, so the walk
 * stops there; so it does at callers the call graph cannot list (a pointer
 * call), whose frames are not looked at. */
#define UP_FRAMES 2
#define UP_CALLERS 16

struct skipped {
	uint32_t fn, ev; /* the cleanup call */
	uint32_t via_fn; /* the function called at that level on the way down (fn itself at the site's level) */
};
typedef VEC(struct skipped) skipped_vec;

static void skipped_in(const struct model *m, const struct msite *s, uint32_t fi, uint32_t after, uint32_t via,
		       int depth, skipped_vec *out)
{
	const struct mfunc *mf = &m->fns.v[fi];
	if (mf->protected_body)
		return;
	const struct func *f = mf->f;
	for (uint32_t i = after + 1; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		struct ref r;
		if (e->kind != EV_CALL || !is_cleanup(e->u.call->name) || !freed_ref(e->u.call, &r))
			continue;
		/* allocated (or locked) again after the call: not at risk from it.
		 * The release call's own result (salt = rb_thread_call_without_gvl(...))
		 * was made before the raise point. */
		bool fresh = false;
		for (uint32_t j = after + 1; j < i && !fresh; j++) {
			const struct event *a = &f->events[j];
			if (a->kind == EV_ASSIGN && a->u.assign->lhs.var == r.var &&
			    ref_path_prefix(a->u.assign->lhs.path, r.path) &&
			    !(fi == s->fn && a->u.assign->rhs.kind == EX_CALL &&
			      a->u.assign->rhs.call == (int32_t)after))
				fresh = true;
			if (a->kind == EV_CALL && str_eq(e->u.call->name, "rb_str_unlocktmp") &&
			    str_eq(a->u.call->name, "rb_str_locktmp") && a->u.call->nargs &&
			    a->u.call->args[0].kind == EX_REF && ref_same(&a->u.call->args[0].ref, &r))
				fresh = true;
		}
		if (fresh)
			continue;
		bool dup = false;
		for (size_t k = 0; k < out->n && !dup; k++)
			dup = out->v[k].fn == fi && out->v[k].ev == i;
		if (!dup) {
			struct skipped sk = {fi, i, via};
			vec_push(out, sk);
		}
	}
	if (depth <= 0)
		return;
	unsigned n = 0;
	struct caller_walk w;
	for (caller_walk_init(&w, m, mf); n < UP_CALLERS && caller_walk_next(&w);) {
		if (w.edge->kind != EDGE_DIRECT || w.edge->from == fi)
			continue;
		n++;
		skipped_in(m, s, w.edge->from, w.edge->ev, fi, depth - 1, out);
	}
}

static void skipped_cleanups(const struct model *m, const struct msite *s, skipped_vec *out)
{
	if (s->fn >= m->fns.n)
		return;
	skipped_in(m, s, s->fn, s->ev, s->fn, UP_FRAMES, out);
}

/* The first cleanup a raise at site s skips that rb_ensure does not protect
 * (whatever the site's flags: offloading adds a raising path): in its
 * function, else in a caller up to UP_FRAMES levels. */
bool cleanup_after_release(const struct model *m, const struct msite *s, struct loc *where, const char **what)
{
	if (s->is_template)
		return false;
	skipped_vec sv = {0};
	skipped_cleanups(m, s, &sv);
	bool found = sv.n > 0;
	if (found) {
		const struct event *e = &m->fns.v[sv.v[0].fn].f->events[sv.v[0].ev];
		*where = e->loc;
		*what = e->u.call->name;
	}
	vec_free(&sv);
	return found;
}

struct hit {
	uint32_t fn, ev; /* the cleanup call */
	int32_t site;    /* the latest raising site before it */
	uint32_t via;    /* the function fn calls on the way to the site (fn itself: the site is in fn) */
};

struct hit;
static struct finding *report_hit(struct rule_ctx *rc, const struct model *m, const struct hit *h);

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	VEC(struct hit) hits = {0};
	for (size_t si = 0; si < m->sites.n; si++) {
		const struct msite *s = &m->sites.v[si];
		if (!can_raise(s))
			continue;
		skipped_vec sv = {0};
		skipped_cleanups(m, s, &sv);
		for (size_t q = 0; q < sv.n; q++) {
			uint32_t fi = sv.v[q].fn, i = sv.v[q].ev;
			const struct func *f = m->fns.v[fi].f;
			const struct event *e = &f->events[i];
			bool found = false;
			for (size_t k = 0; k < hits.n && e->macro && !e->in_macro_arg; k++) {
				/* one finding per use of a cleanup macro (FREE_BINDS) */
				const struct event *o = &f->events[hits.v[k].ev];
				if (hits.v[k].fn == fi && hits.v[k].ev != i && o->macro == e->macro &&
				    o->loc.off == e->loc.off && !o->in_macro_arg)
					found = true;
			}
			for (size_t k = 0; k < hits.n; k++)
				if (hits.v[k].fn == fi && hits.v[k].ev == i) {
					/* the latest raising site before it, in the same function */
					const struct msite *o = &m->sites.v[hits.v[k].site];
					if (o->fn == fi && s->fn == fi && o->ev < s->ev)
						hits.v[k].site = (int32_t)si, hits.v[k].via = sv.v[q].via_fn;
					found = true;
				}
			if (!found) {
				struct hit h = {fi, i, (int32_t)si, sv.v[q].via_fn};
				vec_push(&hits, h);
			}
		}
		vec_free(&sv);
	}
	/* one finding per raising call and function: the first skipped cleanup
	 * (a skipped wipe of secret material first), the others as notes */
	uint8_t *done = xcalloc(hits.n + 1, 1);
	for (size_t k = 0; k < hits.n; k++) {
		if (done[k])
			continue;
		size_t lead = k;
		for (size_t j = k; j < hits.n; j++) {
			if (hits.v[j].fn != hits.v[k].fn || hits.v[j].site != hits.v[k].site)
				continue;
			const struct event *ej = &m->fns.v[hits.v[j].fn].f->events[hits.v[j].ev];
			const struct event *el = &m->fns.v[hits.v[lead].fn].f->events[hits.v[lead].ev];
			int wj = cleanup_rank(ej->u.call->name), wl = cleanup_rank(el->u.call->name);
			if (wj > wl || (wj == wl && hits.v[j].ev < hits.v[lead].ev))
				lead = j;
		}
		const struct mfunc *mf = &m->fns.v[hits.v[lead].fn];
		const struct event *e = &mf->f->events[hits.v[lead].ev];
		const struct msite *s = &m->sites.v[hits.v[lead].site];
		struct finding *f = report_hit(rc, m, &hits.v[lead]);
		if (hits.v[lead].via != hits.v[lead].fn) {
			const struct func *vf = m->fns.v[hits.v[lead].via].f;
			finding_note(f, &vf->loc, "'%s' calls '%s', which reaches the release in '%s'", mf->f->name,
				     vf->name, m->fns.v[s->fn].f->name);
		}
		finding_note(f, &s->loc, "%s can raise here%s: %s", s->called,
			     (s->flags & NOGVL_OFFLOAD_SAFE) ? " (RB_NOGVL_OFFLOAD_SAFE)" : " (no RB_NOGVL_INTR_FAIL)",
			     why(s));
		finding_macro_note(f, e);
		for (size_t j = k; j < hits.n; j++) {
			if (j == lead || hits.v[j].fn != hits.v[k].fn || hits.v[j].site != hits.v[k].site)
				continue;
			done[j] = 1;
			const struct event *o = &mf->f->events[hits.v[j].ev];
			struct ref r;
			freed_ref(o->u.call, &r);
			const char *name = o->macro && !o->in_macro_arg ? o->macro : o->u.call->name;
			if (is_wipe(o->u.call->name))
				finding_note(f, &o->loc, "'%s' of '%s' is skipped too: the secret stays in memory",
					     name, ref_text(mf->tu, &r));
			else
				finding_note(f, &o->loc, "'%s' of '%s' is skipped too", name, ref_text(mf->tu, &r));
		}
		done[k] = 1;
	}
	free(done);
	vec_free(&hits);
}

/* The finding for one skipped cleanup: what is skipped and what it costs; the
 * raising call and why it raises are the caller's note. */
static struct finding *report_hit(struct rule_ctx *rc, const struct model *m, const struct hit *h)
{
	const struct mfunc *mf = &m->fns.v[h->fn];
	const struct event *e = &mf->f->events[h->ev];
	const struct msite *s = &m->sites.v[h->site];
	struct ref r;
	freed_ref(e->u.call, &r);
	const char *what = ref_text(mf->tu, &r);
	const char *name = e->macro && !e->in_macro_arg ? e->macro : e->u.call->name;
	const struct call *rel = m->fns.v[s->fn].f->events[s->ev].u.call;
	bool result = rel->result.var == r.var && (!rel->result.path || !*rel->result.path) && s->fn == h->fn;
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
	if (str_eq(e->u.call->name, "rb_str_unlocktmp"))
		return rule_report(rc, &e->loc, mf->f->name,
				   "rb_str_unlocktmp(%s) is skipped when %s raises: '%s' then stays locked; use "
				   "rb_str_locktmp_ensure",
				   what, s->called, what);
	if (is_wipe(e->u.call->name))
		return rule_report(rc, &e->loc, mf->f->name,
				   "'%s' of '%s' is skipped when %s raises: the secret stays in memory; wipe it in an "
				   "rb_ensure handler",
				   name, what, s->called);
	if (result)
		return rule_report(
			rc, &e->loc, mf->f->name,
			"'%s' frees '%s', which %s returns, but the return value is then lost when it raises: "
			"the memory leaks",
			name, what, s->called);
	if (by_cb)
		return rule_report(
			rc, &e->loc, mf->f->name,
			"'%s' of '%s', memory the callback stored in its data, is skipped when %s raises: it "
			"leaks; free it in an rb_ensure handler",
			name, what, s->called);
	return rule_report(
		rc, &e->loc, mf->f->name, "'%s' of '%s' is skipped when %s raises: it leaks; %s", name, what, s->called,
		plain ? "free it in an rb_ensure handler (or use ALLOCV)" : "free it in an rb_ensure handler");
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
