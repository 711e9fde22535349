/* ubf-not-async-safe: what a custom unblocking function must not do. Reported
 * at the offending call inside the UBF (transitively).
 *
 * Always: Ruby C API, allocation, stdio, and taking a lock (except the
 * condition-variable wake-up, lock + flag + pthread_cond_signal + unlock, when
 * the call does not pass RB_NOGVL_UBF_ASYNC_SAFE). With RB_NOGVL_UBF_ASYNC_SAFE
 * every call must also be async-signal-safe (POSIX.1-2017 2.4.3).
 *
 * One line, one rule: a Ruby API call in a function that is also reached from
 * a callback is ruby-api-without-gvl's (which looks only at callback context);
 * this rule then reports nothing for that call. A call reached from several
 * release sites is reported once, with the chain of the first, and counts as
 * strict when any of them passes the flag. */
#include <stdlib.h>

#include "rule.h"
#include "ubf.h"

static const char *key_of(struct strpool *p, uint32_t fn, uint32_t ev)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%u:%u", fn, ev);
	return intern(p, buf);
}

static bool has_cond_signal(const struct ubf_scan *us)
{
	for (size_t k = 0; k < us->items.n; k++)
		if (us->items.v[k].kind == UI_COND_SIGNAL)
			return true;
	return false;
}

/* The category message, or NULL when the item is only a problem under the flag. */
static const char *category(const struct model *m, const struct ubf_scan *us, const struct ubf_item *it, bool strict)
{
	switch (it->kind) {
	case UI_RUBY:
		return "Ruby C API '%s' is called in the unblocking function '%s': Ruby may call a UBF on another "
		       "thread without the GVL, or from a signal handler; only set a flag or write to a pipe there";
	case UI_ALLOC:
		return "'%s' allocates or frees memory in the unblocking function '%s': Ruby calls a UBF on the "
		       "interrupting thread while it holds the target thread's interrupt lock, or from a signal "
		       "handler, where the allocator can deadlock; only set a flag or write to a pipe there";
	case UI_STDIO:
		return "'%s' does stdio in the unblocking function '%s': stdio takes stream locks and allocates, "
		       "which can deadlock when Ruby calls the UBF under its interrupt lock or from a signal handler; "
		       "only set a flag or write to a pipe there";
	case UI_LOCK:
		if (!strict && has_cond_signal(us))
			return NULL; /* the condition-variable wake-up pattern */
		return "'%s' waits for a lock in the unblocking function '%s': Ruby calls a UBF on the interrupting "
		       "thread (usually holding the GVL) under the target's interrupt lock, so a lock held by the "
		       "callback stalls the whole VM, and from a signal handler it deadlocks; set an atomic flag and "
		       "wake the callback with a pipe or eventfd";
	default:
		(void)m;
		return NULL;
	}
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	struct strpool keys = {0};
	struct hmap strict_at = {0}; /* key -> first strict site id + 1 */
	struct hmap done = {0};
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < m->sites.n; i++) {
			const struct msite *s = &m->sites.v[i];
			if (s->is_template || s->ubf_kind != UBF_FUNC)
				continue;
			bool site_strict = site_ubf_async_safe(s);
			if (pass == 0 && !site_strict)
				continue;
			struct ubf_scan us;
			ubf_scan_ubf(m, s, &us);
			for (size_t k = 0; k < us.items.n; k++) {
				const struct ubf_item *it = &us.items.v[k];
				if (it->kind == UI_FLAG)
					continue;
				if (it->kind == UI_RUBY && model_reached(m, CTX_NOGVL, it->fn))
					continue; /* ruby-api-without-gvl owns this line */
				const char *key = key_of(&keys, it->fn, it->ev);
				if (pass == 0) {
					if (!hmap_has(&strict_at, key))
						hmap_put(&strict_at, key, (void *)(uintptr_t)(s->id + 1));
					continue;
				}
				if (hmap_has(&done, key))
					continue;
				uintptr_t sv = (uintptr_t)hmap_get(&strict_at, key);
				bool strict = sv != 0;
				const char *cat = category(m, &us, it, strict);
				bool unsafe = !it->async_safe && it->kind != UI_OPAQUE;
				if (!cat && !(strict && unsafe))
					continue;
				hmap_put(&done, key, (void *)1);
				const struct mfunc *mf = &m->fns.v[it->fn];
				const struct event *e = &mf->f->events[it->ev];
				const struct msite *ss = strict ? &m->sites.v[sv - 1] : s;
				struct finding *f;
				if (cat) {
					char *msg = xasprintf(cat, it->name, mf->f->name);
					f = rule_report(rc, &e->loc, mf->f->name, "%s", msg);
					free(msg);
				} else {
					f = rule_report(
						rc, &e->loc, mf->f->name,
						"'%s' is not async-signal-safe (POSIX.1-2017 2.4.3, "
						"signal-safety(7)), but the call passes RB_NOGVL_UBF_ASYNC_SAFE, so "
						"Ruby may call the unblocking function '%s' from its signal handler; "
						"drop the flag, or only set a volatile sig_atomic_t or atomic flag "
						"and write(2) to a pipe",
						it->name, mf->f->name);
				}
				finding_macro_note(f, e);
				finding_chain_set(f, m, us.rs.by_fn, it->fn, CTX_UBF);
				if (strict && cat)
					finding_note(f, &ss->loc,
						     "'%s' passes RB_NOGVL_UBF_ASYNC_SAFE here: Ruby may call the "
						     "unblocking function from its signal handler",
						     ss->called);
				else if (strict && ss != s)
					finding_note(f, &ss->loc, "'%s' passes RB_NOGVL_UBF_ASYNC_SAFE here",
						     ss->called);
			}
			ubf_scan_free(&us);
		}
	}
	hmap_free(&strict_at);
	hmap_free(&done);
	strpool_free(&keys);
}

const struct rule_desc rule_ubf_not_async_safe = {
	.slug = "ubf-not-async-safe",
	.severity = SEV_ERROR,
	.category = "Unblocking functions",
	.summary = "An unblocking function calls the Ruby API, allocates, takes a lock or does stdio; with "
		   "RB_NOGVL_UBF_ASYNC_SAFE, it calls something that is not async-signal-safe.",
	.rationale = "Ruby calls a UBF from the interrupting thread while holding the target thread's interrupt "
		     "lock, possibly without the GVL (thread.c: \"ubf() may not be called with the GVL\"), under a "
		     "fiber-scheduler worker pool from the cancelling thread, and, when the call passes "
		     "RB_NOGVL_UBF_ASYNC_SAFE, from its signal handler. Ruby API calls race with the VM; malloc, "
		     "stdio and locks can deadlock against the interrupted thread or the signal handler's own "
		     "thread.",
	.fix = "Keep the UBF to setting a volatile sig_atomic_t or atomic flag and write(2)/eventfd_write to a pipe "
	       "or eventfd the callback waits on; do the Ruby work after the release call returns. Only pass "
	       "RB_NOGVL_UBF_ASYNC_SAFE when every call in the UBF is on the POSIX async-signal-safe list.",
	.flags = 0,
	.run = run,
};
