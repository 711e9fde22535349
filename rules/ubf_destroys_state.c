/* ubf-destroys-state: a custom unblocking function destroys, closes or frees
 * an object the callback itself uses (the page:
 * rules/docs/ubf-destroys-state.md). Reported at the teardown call inside the
 * UBF (transitively), with a note where the callback uses the object.
 *
 * The object is known by its struct member (record and field: `w->chan`) or
 * by its global; a local or a bare parameter is not followed. A teardown is a
 * library call whose name says so (*_destroy, *_free, *_close, *_unref,
 * close(2) ...); free() and the allocator are ubf-not-async-safe's line. */
#include <string.h>

#include "rule.h"
#include "ubf.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && strcmp(s + n - k, suffix) == 0;
}

/* The call tears its first argument down for good. */
static bool teardown_call(const char *n)
{
	static const char *const exact[] = {"close", "closesocket", "PQfinish"};
	/* not *_shutdown nor shutdown(2): shutting a queue or socket down is how
	 * many UBFs wake the callback, and the object stays valid */
	static const char *const suffix[] = {"_cleanup", "_close",    "_delete", "_destroy",
					     "_dispose", "_finalize", "_free",   "_unref"};
	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(n, exact[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(suffix) / sizeof(suffix[0]); i++)
		if (ends_with(n, suffix[i]))
			return true;
	return false;
}

/* The object a ref names when it outlives the UBF: a struct member (record
 * and field) or a file-scope variable (its USR). */
struct object_id {
	const char *record, *field, *usr;
};

static bool object_of(const struct mfunc *mf, const struct ref *r, struct object_id *o)
{
	memset(o, 0, sizeof(*o));
	if (r->addr)
		return false;
	if (r->field && r->record) {
		o->record = r->record;
		o->field = r->field;
		return true;
	}
	const struct var *v = mf_var(mf, r->var);
	if (!v || !v->usr || (r->path && *r->path) || r->deref)
		return false;
	if (v->kind != VK_GLOBAL && v->kind != VK_FILE_STATIC)
		return false;
	o->usr = v->usr;
	return true;
}

static bool same_object(const struct mfunc *mf, const struct ref *r, const struct object_id *o)
{
	if (o->field)
		return r->field && r->record && str_eq(r->field, o->field) && str_eq(r->record, o->record);
	const struct var *v = mf_var(mf, r->var);
	return v && v->usr && str_eq(v->usr, o->usr);
}

/* Where the callback (or what it calls) uses the object; false if nowhere. */
static bool callback_use(const struct model *m, const struct reach_set *rs, const struct object_id *o, uint32_t *fn,
			 uint32_t *ev)
{
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, rs, NOGVL_GUARDED_TOO); nogvl_walk_next(&w);) {
		if (w.e->kind != EV_ACCESS || !same_object(w.mf, &w.e->u.access->ref, o))
			continue;
		*fn = w.fi;
		*ev = w.ei;
		return true;
	}
	return false;
}

static const char *key_of(struct strpool *p, uint32_t fn, uint32_t ev)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%u:%u", fn, ev);
	return intern(p, buf);
}

static void report(struct rule_ctx *rc, const struct msite *s, const struct ubf_scan *us, const struct ubf_item *it,
		   const struct reach_set *cbrs, uint32_t ufn, uint32_t uev)
{
	const struct model *m = rc->m;
	const struct mfunc *mf = &m->fns.v[it->fn];
	const struct event *e = &mf->f->events[it->ev];
	const struct expr *a = &e->u.call->args[0];
	const char *obj = a->text && *a->text ? a->text : "its argument";
	struct finding *f =
		rule_report(rc, &e->loc, mf->f->name,
			    "'%s' tears down '%s' in an unblocking function while the callback uses it", it->name, obj);
	finding_macro_note(f, e);
	finding_chain_set(f, m, us->rs.by_fn, it->fn, CTX_UBF);
	const struct mfunc *umf = &m->fns.v[ufn];
	const struct event *ue = &umf->f->events[uev];
	finding_note(f, &ue->loc, "'%s' uses '%s' here%s", umf->f->name, ref_text(umf->tu, &ue->u.access->ref),
		     cbrs->n > 1 && ufn != cbrs->fns[0] ? " (reached from the callback)" : ", in the callback");
	finding_note(f, &s->loc,
		     "Ruby calls the UBF for every interrupt, also those that do not end the call (a trap "
		     "handler, Thread#wakeup), and may call it while the callback is still inside the library: "
		     "the object is then gone for good, or used after it is gone");
	finding_note(f, &s->loc,
		     "only set a flag, write a pipe, or call the library's cancel function in the UBF; tear the "
		     "object down after the release call returns, when the interrupt really ends the call");
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	struct strpool keys = {0};
	struct hmap done = {0};
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template || s->ubf_kind != UBF_FUNC || !s->cb.ntargets)
			continue;
		struct ubf_scan us;
		ubf_scan_ubf(m, s, &us);
		struct reach_set cbrs = {0};
		bool have_cb = false;
		for (size_t k = 0; k < us.items.n; k++) {
			const struct ubf_item *it = &us.items.v[k];
			if ((it->kind != UI_OTHER && it->kind != UI_OPAQUE) || !it->name || !teardown_call(it->name))
				continue;
			const struct mfunc *mf = &m->fns.v[it->fn];
			const struct call *c = mf->f->events[it->ev].u.call;
			struct object_id o;
			if (c->nargs < 1 || c->args[0].kind != EX_REF || !object_of(mf, &c->args[0].ref, &o))
				continue;
			const char *key = key_of(&keys, it->fn, it->ev);
			if (hmap_has(&done, key))
				continue;
			if (!have_cb) {
				model_reach_from(m, &s->cb, (int32_t)s->id, &cbrs);
				have_cb = true;
			}
			uint32_t ufn, uev;
			if (!callback_use(m, &cbrs, &o, &ufn, &uev))
				continue;
			hmap_put(&done, key, (void *)1);
			report(rc, s, &us, it, &cbrs, ufn, uev);
		}
		if (have_cb)
			reach_set_free(&cbrs);
		ubf_scan_free(&us);
	}
	hmap_free(&done);
	strpool_free(&keys);
}

const struct rule_desc rule_ubf_destroys_state = {
	.slug = "ubf-destroys-state",
	.severity = SEV_ERROR,
	.category = "Unblocking functions",
	.summary = "An unblocking function destroys, closes or frees an object the callback itself uses.",
	.rationale = "Ruby calls the UBF for every interrupt of the thread (Thread#kill, Thread#raise, Timeout, "
		     "Ctrl-C, but also a signal trap handler that returns and Thread#wakeup), possibly several "
		     "times, and while the callback is still running inside the library. A UBF that tears down "
		     "the object the callback uses makes an interrupt that does not end the call destroy the "
		     "object for good (the Ruby object keeps a dead handle), and races with the callback's own "
		     "use of it (use after free, or a reused descriptor number).",
	.fix = "In the UBF only set a flag, write a pipe or eventfd the callback waits on, or call the library's "
	       "cancel function for the operation. Destroy or close the object after the release call "
	       "returns, and only when the interrupt really ends the call.",
	.flags = 0,
	.run = run,
};
