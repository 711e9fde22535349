/* ubf_ignored_scan.c: the proof behind ubf-ignored, shared by the rule and the
 * offload verdict (a candidate is withheld while its UBF is ignored).
 *
 * Fires only on a proof: the UBF is fully resolved and does nothing but flag
 * writes, pipe/eventfd writes and memory-only calls (anything else, such as
 * pthread_cond_signal, shutdown(2), kill(2) or a library's cancel call, may be
 * the real cancellation); the callback is fully resolved and parsed without
 * errors; nothing in the gem but the UBF reads the flag; no library call the
 * callback makes is handed the flag's struct; and for a pipe, nothing the
 * callback reaches waits on a descriptor or calls into a library that could. */
#include <string.h>

#include "ubf.h"

/* The flag (record+field, or a global's USR) is read, or its address taken,
 * anywhere in the gem but the UBF itself: in the callback, in a handler a
 * library calls back while the callback runs inside it (ruby/openssl's key
 * generation progress callback), or in a loop on the caller's side that runs
 * the work in bounded slices and stops between them (zlib's
 * `while (!args->interrupt)`). */
static bool flag_read(const struct model *m, const struct ubf_item *flag, const struct reach_set *ubf_rs)
{
	/* the events naming the flag (model_member_refs), in the order of a walk of the gem */
	size_t nref = 0;
	const struct call_at *refs = model_member_refs(m, flag->field, &nref);
	for (size_t i = 0; i < nref; i++) {
		uint32_t fi = refs[i].fn;
		if (ubf_rs->by_fn[fi].reached)
			continue;
		const struct mfunc *mf = &m->fns.v[fi];
		const struct event *e = &mf->f->events[refs[i].ev];
		if (e->kind != EV_ACCESS || !(e->u.access->mode & (ACC_READ | ACC_ADDR)))
			continue;
		const struct ref *r = &e->u.access->ref;
		if (flag->record) {
			if (str_eq(r->field, flag->field) && str_eq(r->record, flag->record))
				return true;
			continue;
		}
		const struct var *v = mf_var(mf, r->var);
		if (v && v->usr && str_eq(v->usr, flag->field))
			return true;
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
					      : (mf_var(mf, rf->var) &&
						 str_eq(mf_var(mf, rf->var)->record, flag->record)))
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

/* The identity of the descriptor a UBF writes to (`write(j->wake[1], ...)`,
 * `eventfd_write(efd_global, 1)`): record and field of its first member
 * read, or (record NULL) a global's name. False for a local or a parameter. */
static bool pipe_identity(const struct model *m, const struct ubf_item *it, const char **record, const char **field)
{
	const struct mfunc *mf = &m->fns.v[it->fn];
	const struct call *c = mf->f->events[it->ev].u.call;
	if (!c->nargs)
		return false;
	const struct expr *a = &c->args[0];
	/* a helper's parameter (poke(x->wakefd[1])): what its callers pass */
	if (a->kind == EX_REF && !a->ref.field) {
		const struct var *pv = mf_var(mf, a->ref.var);
		for (uint32_t k = mf->in_begin; pv && pv->kind == VK_PARAM && k < mf->in_end; k++) {
			const struct edge *ed = &m->edges.v[m->in_edges.v[k]];
			if (ed->kind != EDGE_DIRECT)
				continue;
			const struct mfunc *cf = &m->fns.v[ed->from];
			const struct call *cc = cf->f->events[ed->ev].u.call;
			if ((uint32_t)pv->param_index >= cc->nargs)
				continue;
			const struct expr *ca = &cc->args[pv->param_index];
			for (uint32_t r = 0; r < ca->nreads; r++)
				if (ca->reads[r].field && ca->reads[r].record) {
					*record = ca->reads[r].record;
					*field = ca->reads[r].field;
					return true;
				}
		}
	}
	for (uint32_t r = 0; r < a->nreads; r++) {
		const struct ref *rf = &a->reads[r];
		if (rf->field && rf->record) {
			*record = rf->record;
			*field = rf->field;
			return true;
		}
		const struct var *v = mf_var(mf, rf->var);
		if (v && v->name && (v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC)) {
			*record = NULL;
			*field = v->name;
			return true;
		}
	}
	return false;
}

/* The two ends of one pipe by their names: the same name (wake[0] and
 * wake[1]), or names that differ only in a read/write word (wake_r and
 * wake_w, rfd and wfd, read_fd and write_fd, pipe_in and pipe_out). */
static bool pipe_pair_name(const char *a, const char *b)
{
	static const char *const pairs[][2] = {{"w", "r"},       {"write", "read"}, {"wr", "rd"},
					       {"out", "in"},    {"1", "0"},        {"writer", "reader"},
					       {"send", "recv"}, {"tx", "rx"},      {"wfd", "rfd"}};
	if (!a || !b)
		return false;
	if (str_eq(a, b))
		return true;
	size_t la = strlen(a), lb = strlen(b), p = 0, q = 0;
	while (p < la && p < lb && a[p] == b[p])
		p++;
	while (q < la - p && q < lb - p && a[la - 1 - q] == b[lb - 1 - q])
		q++;
	size_t ma = la - p - q, mb = lb - p - q;
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++)
		for (int d = 0; d < 2; d++) {
			const char *x = pairs[i][d], *y = pairs[i][1 - d];
			if (strlen(x) == ma && strlen(y) == mb && strncmp(a + p, x, ma) == 0 &&
			    strncmp(b + p, y, mb) == 0)
				return true;
		}
	return false;
}

static bool ref_is(const struct mfunc *mf, const struct ref *r, const char *record, const char *field)
{
	if (record)
		return r->field && str_eq(r->record, record) && pipe_pair_name(r->field, field);
	const struct var *v = mf_var(mf, r->var);
	return v && (v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC) && pipe_pair_name(v->name, field);
}

/* Setting up or closing the pipe is not waiting on it. */
static bool pipe_setup_call(const char *n)
{
	return str_eq(n, "pipe") || str_eq(n, "pipe2") || str_eq(n, "close") || str_eq(n, "fcntl") ||
	       str_eq(n, "eventfd") || str_eq(n, "write") || str_eq(n, "eventfd_write") || str_eq(n, "rb_pipe") ||
	       str_eq(n, "rb_update_max_fd") || str_eq(n, "rb_cloexec_pipe");
}

/* The pipe's descriptor reaches what the callback waits on: the callback
 * (or what it calls) reads it, or the function making the release call
 * hands it to something (a pollfd set up before the call) other than the
 * pipe's own setup and teardown. */
static bool pipe_seen(const struct model *m, const struct msite *s, const struct cb_scan *cs, const char *record,
		      const char *field)
{
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, &cs->rs, NOGVL_GUARDED_TOO); nogvl_walk_next(&w);)
		if (w.e->kind == EV_ACCESS && (w.e->u.access->mode & (ACC_READ | ACC_ADDR)) &&
		    ref_is(w.mf, &w.e->u.access->ref, record, field))
			return true;
	const uint32_t fns[2] = {s->fn, s->data_fn};
	for (int k = 0; k < 2; k++) {
		const struct mfunc *mf = &m->fns.v[fns[k]];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			const struct expr *xs = NULL;
			uint32_t nx = 0;
			if (e->kind == EV_CALL && !pipe_setup_call(e->u.call->name)) {
				xs = e->u.call->args;
				nx = e->u.call->nargs;
			} else if (e->kind == EV_ASSIGN) {
				xs = &e->u.assign->rhs;
				nx = 1;
			}
			for (uint32_t a = 0; a < nx; a++)
				for (uint32_t r = 0; r < xs[a].nreads; r++)
					if (ref_is(mf, &xs[a].reads[r], record, field))
						return true;
		}
	}
	return false;
}

bool ubf_ignored_check(const struct model *m, const struct msite *s, struct ubf_ignored *out)
{
	memset(out, 0, sizeof(*out));
	if (s->is_template || s->ubf_kind != UBF_FUNC)
		return false;
	ubf_scan_ubf(m, s, &out->us);
	out->have_us = true;
	bool pure = out->us.resolved && !out->us.rs.nopaque;
	for (size_t k = 0; k < out->us.items.n && pure; k++) {
		const struct ubf_item *it = &out->us.items.v[k];
		if (it->kind == UI_FLAG && !out->first_flag)
			out->first_flag = it;
		else if (it->kind == UI_PIPE && !out->first_pipe)
			out->first_pipe = it;
		else if (it->kind != UI_FLAG && it->kind != UI_PIPE && it->kind != UI_INERT)
			pure = false;
	}
	if (!pure || (!out->first_flag && !out->first_pipe))
		return false;
	ubf_scan_callback(m, s, &out->cs);
	out->have_cs = true;
	const struct cb_scan *cs = &out->cs;
	/* a parse error could hide the read or the wait */
	bool observed = !cs->resolved || !cs->clean || m->fns.v[s->fn].tu->status != TU_OK;
	for (size_t k = 0; k < out->us.items.n && !observed; k++) {
		const struct ubf_item *it = &out->us.items.v[k];
		if (it->kind == UI_FLAG)
			observed = flag_read(m, it, &out->us.rs) || flag_handed_out(m, cs, it);
	}
	if (!observed && out->first_pipe) {
		/* a callback that waits on descriptors, but never on the pipe's */
		const char *prec = NULL, *pfield = NULL;
		observed = waits_on_fd(cs);
		out->waits_other = observed;
		if (observed && pipe_identity(m, out->first_pipe, &prec, &pfield))
			observed = pipe_seen(m, s, cs, prec, pfield);
	}
	return !observed;
}

void ubf_ignored_free(struct ubf_ignored *r)
{
	if (r->have_cs)
		cb_scan_free(&r->cs);
	if (r->have_us)
		ubf_scan_free(&r->us);
	memset(r, 0, sizeof(*r));
}
