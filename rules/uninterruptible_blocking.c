/* uninterruptible-blocking: a NULL UBF with a callback that can block without
 * bound. Reported at the blocking call inside the callback. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "libmodel.h"
#include "rule.h"
#include "ubf.h"

static const char *fix_for(const struct blocking_call *bc)
{
	switch (bc->wake) {
	case WAKE_SIGNAL_IO:
		return bc->fd_wait
			       ? "pass RUBY_UBF_IO (its signal makes the call fail with EINTR) or a UBF that writes "
				 "to a pipe or eventfd the callback also waits on"
			       : "pass RUBY_UBF_IO (its signal makes the call fail with EINTR) and return on EINTR";
	case WAKE_SIGNAL_PROCESS:
		return "pass RUBY_UBF_PROCESS (its signal makes the wait fail with EINTR) and return on EINTR";
	case WAKE_CONDVAR:
		return "pass a UBF that sets a cancel flag and signals the condition variable, and check the flag "
		       "after every wake-up (a signal does not end this wait)";
	case WAKE_SEMAPHORE:
		return "pass a UBF that sets a cancel flag and calls sem_post, and check the flag after every wake-up";
	default:
		return "wait with a timeout in a loop that checks a cancel flag set by a custom UBF";
	}
}

static bool has_nonblock(const char *t, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i++)
		if (strncasecmp(t + i, "nonblock", 8) == 0)
			return true;
	return false;
}

/* An upper-case constant naming a non-blocking mode (REDIS_OPT_NONBLOCK,
 * O_NONBLOCK, SOCK_NONBLOCK) in the text, outside string literals. */
static bool nonblock_constant(const char *t)
{
	if (!t)
		return false;
	for (const char *p = t; *p;) {
		if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
			continue;
		}
		size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");
		size_t id = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
		if (id && n == id && has_nonblock(p, n))
			return true;
		p += id ? id : 1;
	}
	return false;
}

/* The gem puts something in a non-blocking mode: a library call named for it
 * (redisConnectNonBlock, a *_set_nonblocking helper of a library) or an
 * upper-case constant (REDIS_OPT_NONBLOCK, O_NONBLOCK ...). A library's
 * "retries on EINTR" wait may then never happen (hiredis's buffer calls on a
 * non-blocking context return EAGAIN). libpq's PQsetnonblocking does not
 * count: "PQexec does not honor nonblocking mode; if it is called, it will
 * act in blocking fashion anyway" (PostgreSQL 16 docs 34.10). */
static bool gem_uses_nonblock(const struct model *m)
{
	struct call_walk w;
	for (call_walk_init(&w, m, -1, CALLS_AND_ASSIGNS); call_walk_next(&w);) {
		const struct call *c = w.c;
		if (!c) {
			if (nonblock_constant(w.e->u.assign->rhs.text))
				return true;
			continue;
		}
		if (!c->indirect && c->name && !model_func_by_usr(m, c->usr) && !str_eq(c->name, "PQsetnonblocking") &&
		    !str_eq(c->name, "PQisnonblocking") &&
		    strspn(c->name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") ==
			    strlen(c->name) &&
		    has_nonblock(c->name, strlen(c->name)))
			return true;
		for (uint32_t a = 0; a < c->nargs; a++)
			if (nonblock_constant(c->args[a].text))
				return true;
	}
	return false;
}

/* RUBY_UBF_IO / RUBY_UBF_PROCESS around a library call whose model says it
 * restarts its wait on EINTR (libpq's PQexec, hiredis, libcurl ...): the
 * signal lands, the library retries, the callback does not return. One
 * finding per call. */
static void signal_ubf_vs_retry(struct rule_ctx *rc, const struct msite *s, struct hmap *seen, struct strpool *keys)
{
	const struct model *m = rc->m;
	struct reach_set rs;
	model_reach_from(m, &s->cb, (int32_t)(s - m->sites.v), &rs);
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, &rs, NOGVL_SKIP_GEM_CALLS); nogvl_walk_next(&w);) {
		const struct event *e = w.e;
		if (e->kind != EV_CALL || !e->u.call->name || ubf_on_other_thread(m, &rs, w.fi))
			continue;
		const struct lib_model *lm = model_find(e->u.call->name);
		if (!lm || lm->blocks != LM_BLOCKS_RETRIES_EINTR)
			continue;
		/* one finding per line: a macro that defines one stub per library
		 * function (ruby-pg's FOR_EACH_BLOCKING_FUNCTION) names the others
		 * in notes */
		char where[256];
		char *key = xasprintf("e:%s:%u", e->loc.file ? e->loc.file : "", e->loc.line);
		const char *ik = intern(keys, key);
		free(key);
		char *key2 = xasprintf("n:%s:%u:%s", e->loc.file ? e->loc.file : "", e->loc.line, e->u.call->name);
		const char *ik2 = intern(keys, key2);
		free(key2);
		if (hmap_has(seen, ik2))
			continue;
		hmap_put(seen, ik2, (void *)1);
		struct finding *prev = hmap_get(seen, ik);
		if (prev) {
			finding_note(prev, &e->loc, "'%s' also restarts its wait on EINTR (model %s)", e->u.call->name,
				     model_where(lm, where, sizeof(where)));
			continue;
		}
		struct finding *f = rule_report(rc, &e->loc, w.mf->f->name,
						"'%s' restarts its wait on EINTR (model %s), so the signal %s sends "
						"cannot interrupt '%s'; pass a "
						"UBF that cancels the library's operation (or closes its connection), "
						"or use its non-blocking API "
						"and wait on its fd",
						e->u.call->name, model_where(lm, where, sizeof(where)),
						site_ubf_spelling(s), w.mf->f->name);
		finding_macro_note(f, e);
		finding_chain_set(f, m, rs.by_fn, w.fi, CTX_NOGVL);
		hmap_put(seen, ik, f);
	}
	reach_set_free(&rs);
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	struct hmap seen = {0};
	struct strpool keys = {0};
	int nonblock = -1; /* gem_uses_nonblock, computed when first needed */
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (!s->is_template && (s->ubf_kind == UBF_IO || s->ubf_kind == UBF_PROCESS) &&
		    (nonblock < 0 ? (nonblock = gem_uses_nonblock(m)) : nonblock) == 0)
			signal_ubf_vs_retry(rc, s, &seen, &keys);
		if (s->is_template || s->ubf_kind != UBF_NULL)
			continue;
		struct cb_scan cs;
		ubf_scan_callback(m, s, &cs);
		for (size_t k = 0; k < cs.items.n; k++) {
			const struct cb_item *it = &cs.items.v[k];
			if (it->kind != CI_BLOCKING || it->bound != CB_UNBOUNDED)
				continue;
			char *key = xasprintf("%u:%u", it->fn, it->ev);
			const char *ik = intern(&keys, key);
			free(key);
			if (hmap_has(&seen, ik))
				continue;
			hmap_put(&seen, ik, (void *)1);
			const struct mfunc *mf = &m->fns.v[it->fn];
			const struct event *e = &mf->f->events[it->ev];
			struct finding *f = rule_report(
				rc, &e->loc, mf->f->name,
				"'%s'%s%s can block without bound, but '%s' runs without the GVL with a NULL "
				"unblocking "
				"function: Ctrl-C, Thread#kill and timeouts cannot interrupt it; %s",
				it->name, it->why ? " " : "", it->why ? it->why : "", mf->f->name, fix_for(it->bc));
			finding_macro_note(f, e);
			finding_chain_set(f, m, cs.rs.by_fn, it->fn, CTX_NOGVL);
		}
		cb_scan_free(&cs);
	}
	hmap_free(&seen);
	strpool_free(&keys);
}

const struct rule_desc rule_uninterruptible_blocking = {
	.slug = "uninterruptible-blocking",
	.severity = SEV_WARNING,
	.category = "Unblocking functions",
	.summary = "A callback released with a NULL unblocking function can block without bound (read, recv, "
		   "accept, poll/select without timeout, waitpid, pthread_cond_wait, sem_wait ...), or with "
		   "RUBY_UBF_IO around a library call that restarts its wait on EINTR.",
	.rationale = "With a NULL UBF Ruby has no way to wake the thread: Thread#kill, Thread#raise, Timeout and "
		     "Ctrl-C set the interrupt flag and wait for the callback to return, which may be never. thread.c: "
		     "\"If you don't provide proper ubf(), your program will not stop for Control+C or other "
		     "shutdown events.\"",
	.fix = "Pass RUBY_UBF_IO (RUBY_UBF_PROCESS for waitpid) so Ruby's signal makes the system call fail with "
	       "EINTR, and return on EINTR; for condition variables, semaphores or waits a signal does not end, "
	       "pass a custom UBF that sets a cancel flag and wakes the wait (signal the condition variable, "
	       "sem_post, write to a self-pipe the callback polls). A wait with a finite timeout in a loop that "
	       "checks the flag also works.",
	.flags = 0,
	.run = run,
};
