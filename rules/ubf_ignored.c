/* ubf-ignored: a custom UBF sets a flag (or writes a pipe/eventfd) that the
 * callback never reads (or waits on). Reported at the release call.
 *
 * Fires only on a proof: the UBF is fully resolved and does nothing but flag
 * writes, pipe/eventfd writes and memory-only calls (anything else, such as
 * pthread_cond_signal, shutdown(2), kill(2) or a library's cancel call, may be
 * the real cancellation); the callback is fully resolved and parsed without
 * errors; nothing in the gem but the UBF reads the flag; no library call the
 * callback makes is handed the flag's struct; and for a pipe, nothing the
 * callback reaches waits on a descriptor or calls into a library that could. */
#include <string.h>

#include "rule.h"
#include "ubf.h"

/* The flag (record+field, or a global's USR) is read, or its address taken,
 * anywhere in the gem but the UBF itself: in the callback, in a handler a
 * library calls back while the callback runs inside it (ruby/openssl's key
 * generation progress callback), or in a loop on the caller's side that runs
 * the work in bounded slices and stops between them (zlib's
 * `while (!args->interrupt)`). */
static bool flag_read(const struct model *m, const struct ubf_item *flag, const struct reach_set *ubf_rs)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		if (ubf_rs->by_fn[fi].reached)
			continue;
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_ACCESS || !(e->u.access.mode & (ACC_READ | ACC_ADDR)))
				continue;
			const struct ref *r = &e->u.access.ref;
			if (flag->record) {
				if (str_eq(r->field, flag->field) && str_eq(r->record, flag->record))
					return true;
				continue;
			}
			const struct var *v = mf_var(mf, r->var);
			if (v && v->usr && str_eq(v->usr, flag->field))
				return true;
		}
	}
	return false;
}

/* A call the callback makes into code we cannot see is handed the flag's
 * struct (a pointer to it, or the flag itself). */
static bool flag_handed_out(const struct model *m, const struct cb_scan *cs, const struct ubf_item *flag)
{
	if (!flag->record)
		return false;
	for (size_t k = 0; k < cs->items.n; k++) {
		const struct cb_item *it = &cs->items.v[k];
		if (it->kind == CI_POLLS)
			return true; /* rb_thread_call_with_gvl: its function is not in the reach set */
		if (it->kind != CI_OPAQUE)
			continue;
		const struct mfunc *mf = &m->fns.v[it->fn];
		const struct call *c = mf->f->events[it->ev].u.call;
		for (uint32_t a = 0; a < c->nargs; a++) {
			const struct expr *x = &c->args[a];
			for (uint32_t r = 0; r < x->nreads; r++) {
				const struct ref *rf = &x->reads[r];
				if (rf->field ? (str_eq(rf->field, flag->field) && str_eq(rf->record, flag->record))
					      : (mf_var(mf, rf->var) && str_eq(mf_var(mf, rf->var)->record, flag->record)))
					return true;
			}
			if (x->kind == EX_REF && !x->ref.field && mf_var(mf, x->ref.var) &&
			    str_eq(mf_var(mf, x->ref.var)->record, flag->record))
				return true;
		}
	}
	return false;
}

static bool waits_on_fd(const struct cb_scan *cs)
{
	for (size_t k = 0; k < cs->items.n; k++) {
		const struct cb_item *it = &cs->items.v[k];
		if (it->kind == CI_OPAQUE || it->kind == CI_POLLS)
			return true;
		if (it->kind == CI_BLOCKING && it->bc->fd_wait)
			return true;
	}
	return false;
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template || s->ubf_kind != UBF_FUNC)
			continue;
		struct ubf_scan us;
		ubf_scan_ubf(m, s, &us);
		bool pure = us.resolved && !us.rs.nopaque;
		const struct ubf_item *first_flag = NULL, *first_pipe = NULL;
		for (size_t k = 0; k < us.items.n && pure; k++) {
			const struct ubf_item *it = &us.items.v[k];
			if (it->kind == UI_FLAG && !first_flag)
				first_flag = it;
			else if (it->kind == UI_PIPE && !first_pipe)
				first_pipe = it;
			else if (it->kind != UI_FLAG && it->kind != UI_PIPE && it->kind != UI_INERT)
				pure = false;
		}
		if (!pure || (!first_flag && !first_pipe)) {
			ubf_scan_free(&us);
			continue;
		}
		struct cb_scan cs;
		ubf_scan_callback(m, s, &cs);
		/* a parse error could hide the read or the wait */
		bool observed = !cs.resolved || !cs.clean || m->fns.v[s->fn].tu->status != TU_OK;
		for (size_t k = 0; k < us.items.n && !observed; k++) {
			const struct ubf_item *it = &us.items.v[k];
			if (it->kind == UI_FLAG)
				observed = flag_read(m, it, &us.rs) || flag_handed_out(m, &cs, it);
		}
		if (!observed && first_pipe)
			observed = waits_on_fd(&cs);
		if (observed) {
			cb_scan_free(&cs);
			ubf_scan_free(&us);
			continue;
		}
		const char *ubf = cbres_name(m, &s->ubf);
		const char *cb = cbres_name(m, &s->cb);
		const char *flag = first_flag ? first_flag->name : NULL;
		struct finding *f;
		if (first_flag && first_pipe)
			f = rule_report(rc, &s->loc, m->fns.v[s->fn].f->name,
					"the unblocking function '%s' sets '%s' and writes to a pipe, but nothing reads the "
					"flag and the callback '%s' never waits on the pipe: cancelling has no effect and "
					"Thread#kill or Ctrl-C wait for the callback to finish; check '%s' in the "
					"callback's loop",
					ubf, flag, cb, flag);
		else if (first_flag)
			f = rule_report(rc, &s->loc, m->fns.v[s->fn].f->name,
					"the unblocking function '%s' sets '%s', but nothing reads it: the callback '%s' "
					"never checks it, so cancelling has no effect and Thread#kill or Ctrl-C wait for the callback to "
					"finish; check '%s' in the callback's loop and return early",
					ubf, flag, cb, flag);
		else
			f = rule_report(rc, &s->loc, m->fns.v[s->fn].f->name,
					"the unblocking function '%s' writes to a pipe or eventfd, but the callback '%s' "
					"never waits on one: cancelling has no effect and Thread#kill or Ctrl-C wait for "
					"the callback to finish; poll the pipe's read end together with the callback's "
					"own descriptors",
					ubf, cb);
		for (size_t k = 0; k < us.items.n; k++) {
			const struct ubf_item *it = &us.items.v[k];
			if (it->kind != UI_FLAG && it->kind != UI_PIPE)
				continue;
			const struct mfunc *mf = &m->fns.v[it->fn];
			const struct event *e = &mf->f->events[it->ev];
			if (it->kind == UI_FLAG)
				finding_note(f, &e->loc, "'%s' sets '%s' here", mf->f->name,
					     ref_text(mf->tu, &it->ref));
			else
				finding_note(f, &e->loc, "'%s' writes with '%s' here", mf->f->name, it->name);
		}
		const struct mfunc *root = &m->fns.v[s->cb.targets[0]];
		finding_note(f, &root->f->loc, "'%s'%s never %s", root->f->name,
			     cs.rs.n > 1 ? " (and the functions it calls)" : "",
			     first_flag && first_pipe ? "reads the flag or waits on a descriptor"
			     : first_flag             ? "reads the flag"
						      : "waits on a descriptor");
		if (s->macro)
			finding_note(f, &s->loc, "expanded from macro '%s'", s->macro);
		cb_scan_free(&cs);
		ubf_scan_free(&us);
	}
}

const struct rule_desc rule_ubf_ignored = {
	.slug = "ubf-ignored",
	.severity = SEV_WARNING,
	.category = "Unblocking functions",
	.summary = "A custom unblocking function sets a flag (or writes a pipe or eventfd) that the callback never "
		   "reads (or waits on).",
	.rationale = "Ruby calls the UBF to stop the callback on Thread#kill, Thread#raise, Timeout and Ctrl-C, then "
		     "waits for the callback to return. A flag nobody checks and a pipe nobody polls change nothing: "
		     "the interrupt waits for the callback to finish on its own. The working patterns poll the flag "
		     "between slices of work (zlib `while (!args->interrupt)`, bignum `if (bds->stop)`) or wait on "
		     "the pipe's read end (gvl-semantics 4.4).",
	.fix = "Check the flag in the callback's loop and return early (then retry or raise after the call), or "
	       "add the pipe's read end to the poll/select the callback blocks in and return when it is readable.",
	.flags = 0,
	.run = run,
};
