/* link_sites.c: release sites, their UBFs and the wrappers that release the
 * GVL for their callers (link_steps.h). */
#include "link_steps.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "log.h"

/* ---- release sites and wrappers ---- */

bool is_param_of(const struct mfunc *mf, const struct expr *e, int *index)
{
	if (!e || e->kind != EX_REF || (e->ref.path && *e->ref.path))
		return false;
	const struct var *v = mf_var(mf, e->ref.var);
	/* C++ 'this' (param_index -1) is no argument of the call */
	if (!v || v->kind != VK_PARAM || v->fn != local_fn_index(mf) || v->param_index < 0)
		return false;
	*index = v->param_index;
	return true;
}

const struct expr *arg_at(const struct call *c, int i)
{
	return i >= 0 && (uint32_t)i < c->nargs ? &c->args[i] : NULL;
}

/* The callback argument of rb_thread_io_blocking_region: the first argument
 * naming a function or function pointer. */
static int first_fn_arg(const struct mfunc *mf, const struct call *c)
{
	for (uint32_t i = 0; i < c->nargs; i++) {
		const struct expr *a = &c->args[i];
		if (a->kind == EX_FUNC)
			return (int)i;
		if (a->kind == EX_REF) {
			const struct var *v = mf_var(mf, a->ref.var);
			if (v && (v->flags & VF_FNPTR) && (!a->ref.path || !*a->ref.path))
				return (int)i;
		}
	}
	return c->nargs >= 2 ? 1 : 0;
}

/* The body of the macro `name` as defined in the site's TU, or NULL. */
static const char *macro_body(const struct tu_facts *tu, const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < tu->macro_defs.n; i++)
		if (str_eq(tu->macro_defs.v[i].name, name))
			return tu->macro_defs.v[i].body;
	return NULL;
}

static void classify_ubf(struct msite *s)
{
	if (!s->api || s->api->ubf < 0) {
		s->ubf_kind = UBF_NONE;
		return;
	}
	const char *mac = s->ubf.macro;
	if (mac && strcmp(mac, "RUBY_UBF_IO") == 0)
		s->ubf_kind = UBF_IO;
	else if (mac && strcmp(mac, "RUBY_UBF_PROCESS") == 0)
		s->ubf_kind = UBF_PROCESS;
	else if (s->ubf.how == CB_SENTINEL)
		s->ubf_kind = UBF_IO;
	else if (s->ubf.how == CB_NULL)
		s->ubf_kind = UBF_NULL;
	else if (s->ubf.ntargets || s->ubf.nexternal)
		s->ubf_kind = UBF_FUNC;
	else
		s->ubf_kind = UBF_UNKNOWN;
	/* the sentinel written inside the body of the release macro the site
	 * expands from: keep that spelling (RUBY_UBF_IO and RUBY_UBF_PROCESS expand
	 * to the same value) */
	if (s->ubf.how == CB_SENTINEL && !(mac && str_starts(mac, "RUBY_UBF_"))) {
		const char *body = macro_body(s->tu, s->macro);
		if (body && strstr(body, "RUBY_UBF_PROCESS") && !strstr(body, "RUBY_UBF_IO"))
			s->ubf_kind = UBF_PROCESS;
	}
	/* a UBF passed through a macro whose text names the sentinel */
	if (s->ubf_kind == UBF_UNKNOWN && s->ubf.text) {
		if (strstr(s->ubf.text, "RUBY_UBF_PROCESS"))
			s->ubf_kind = UBF_PROCESS;
		else if (strstr(s->ubf.text, "RUBY_UBF_IO"))
			s->ubf_kind = UBF_IO;
	}
}

static const char *pair_key(struct model *m, uint32_t fn, uint32_t ev)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%u:%u", fn, ev);
	return intern(&m->pool, buf);
}

/* Creates a site for the call mf.events[ev], either of an API or of a wrapper. */
static void add_site(struct model *m, uint32_t fnid, uint32_t ev, const struct gvl_api *api, const struct wrapper *w)
{
	const struct mfunc *mf = &m->fns.v[fnid];
	const struct event *e = &mf->f->events[ev];
	const struct call *c = e->u.call;
	struct msite s = {0};
	s.id = (uint32_t)m->sites.n;
	s.tu = mf->tu;
	s.fn = fnid;
	s.ev = ev;
	s.loc = e->loc;
	s.macro = e->in_macro_arg ? NULL : e->macro;
	s.called = c->name;
	s.inner = -1;
	s.data_fn = fnid;
	int ubf_kind = -1;
	if (api) {
		s.api = api;
		int cbi = api->cb >= 0 ? api->cb : first_fn_arg(mf, c);
		int d1 = api->data1 >= 0 ? api->data1 : cbi + 1;
		const struct expr *cb = arg_at(c, cbi);
		s.data1 = arg_at(c, d1);
		s.data2 = arg_at(c, api->data2);
		const struct expr *ubf = arg_at(c, api->ubf);
		s.flags_expr = arg_at(c, api->flags);
		s.flags = api->implied_flags;
		s.flags_known = 1;
		if (api->flags >= 0) {
			if (s.flags_expr && s.flags_expr->has_ival)
				s.flags |= (int)s.flags_expr->ival;
			else
				s.flags_known = 0;
		}
		s.removed_api = api->removed;
		if (cb)
			s.cb = resolve_fn_expr(m, mf, ev, cb);
		if (ubf)
			s.ubf = resolve_fn_expr(m, mf, ev, ubf);
	} else {
		/* a wrapper call: forwarded arguments come from this call, the rest from
		 * the wrapper's own site */
		const struct msite *inner = &m->sites.v[w->site];
		s.api = inner->api;
		s.inner = (int32_t)w->site;
		s.removed_api = inner->removed_api;
		s.cb = w->cb_param >= 0 && arg_at(c, w->cb_param) ? resolve_fn_expr(m, mf, ev, arg_at(c, w->cb_param))
								  : inner->cb;
		if (w->ubf_param >= 0 && arg_at(c, w->ubf_param))
			s.ubf = resolve_fn_expr(m, mf, ev, arg_at(c, w->ubf_param));
		else {
			s.ubf = inner->ubf;
			ubf_kind = inner->ubf_kind;
		}
		if (w->data1_param >= 0) {
			s.data1 = arg_at(c, w->data1_param);
		} else {
			s.data1 = inner->data1;
			s.data_fn = inner->data_fn;
		}
		s.data2 = w->data2_param >= 0 ? arg_at(c, w->data2_param) : inner->data2;
		if (w->flags_param >= 0) {
			s.flags_expr = arg_at(c, w->flags_param);
			s.flags = inner->api ? inner->api->implied_flags : 0;
			s.flags_known = s.flags_expr && s.flags_expr->has_ival;
			if (s.flags_known)
				s.flags |= (int)s.flags_expr->ival;
		} else {
			s.flags_expr = inner->flags_expr;
			s.flags = inner->flags;
			s.flags_known = inner->flags_known;
		}
	}
	classify_ubf(&s);
	if (ubf_kind >= 0)
		s.ubf_kind = (uint8_t)ubf_kind; /* not forwarded: as the wrapper's own site has it */
	vec_push(&m->sites, s);
}

/* The parameter of mf whose value every store to `var.field` before `before`
 * is (struct rel r = {fn, data}; r.fn = fn), else -1. */
static int field_from_param(const struct mfunc *mf, int32_t var, const char *path, uint32_t before)
{
	int p = -1;
	for (uint32_t i = 0; i < before && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var || e->u.assign->whole_init)
			continue;
		const char *lp = e->u.assign->lhs.path ? e->u.assign->lhs.path : "";
		if (!*lp || strcmp(lp, path) != 0) {
			if (!*lp)
				return -1; /* the struct copied as a whole */
			continue;
		}
		int q;
		if (!is_param_of(mf, &e->u.assign->rhs, &q) || (p >= 0 && q != p))
			return -1;
		p = q;
	}
	return p;
}

/* A release inside the body of rb_ensure/rb_protect/rb_rescue whose callback
 * is a field of the body's data (`r->fn` with r = (struct rel *)arg), when the
 * one function that calls that body fills the field from its own parameter:
 * that function is a release wrapper like any other (issue 15: a helper that
 * releases the GVL inside an rb_ensure body), its calls sites of their own. */
static bool maybe_ensure_wrapper(struct model *m, uint32_t site_id, const struct expr *cbx)
{
	static const char *const bodies[] = {"rb_ensure", "rb_protect", "rb_rescue", "rb_rescue2"};
	struct msite *s = &m->sites.v[site_id];
	const struct mfunc *bf = &m->fns.v[s->fn];
	if (!cbx || cbx->kind != EX_REF || !cbx->ref.deref || !cbx->ref.path || !*cbx->ref.path ||
	    strchr(cbx->ref.path, '.') || strstr(cbx->ref.path, "[]") || !bf->f->usr)
		return false;
	/* the field's struct pointer comes from the body's VALUE parameter */
	const struct var *rv = mf_var(bf, cbx->ref.var);
	if (!rv)
		return false;
	if (rv->kind != VK_PARAM) {
		bool from_param = false;
		for (uint32_t i = 0; i < s->ev; i++) {
			const struct event *e = &bf->f->events[i];
			if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != cbx->ref.var ||
			    (e->u.assign->lhs.path && *e->u.assign->lhs.path))
				continue;
			int q;
			if (!is_param_of(bf, &e->u.assign->rhs, &q) || q != 0)
				return false;
			from_param = true;
		}
		if (!from_param)
			return false;
	} else if (rv->param_index != 0) {
		return false;
	}
	/* exactly one use of the body anywhere: as the body of one such call */
	int32_t wfn = -1;
	uint32_t wev = 0;
	unsigned refs = 0;
	for (uint32_t fi = 0; fi < m->fns.n && refs < 2; fi++) {
		const struct mfunc *cf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < cf->f->nevents; ei++) {
			const struct event *e = &cf->f->events[ei];
			if (e->kind == EV_ASSIGN && e->u.assign->rhs.kind == EX_FUNC &&
			    str_eq(e->u.assign->rhs.func_usr, bf->f->usr))
				refs += 2; /* stored somewhere: other callers */
			if (e->kind != EV_CALL)
				continue;
			const struct call *c = e->u.call;
			for (uint32_t a = 0; a < c->nargs; a++)
				if (c->args[a].kind == EX_FUNC && str_eq(c->args[a].func_usr, bf->f->usr)) {
					refs++;
					if (a == 0 && c->nargs >= 2 && !c->indirect &&
					    str_in_list(c->name, bodies, ARRAY_SIZE(bodies)) >= 0) {
						wfn = (int32_t)fi;
						wev = ei;
					}
				}
		}
	}
	if (refs != 1 || wfn < 0 || bf->in_end != bf->in_begin)
		return false;
	struct mfunc *wf = &m->fns.v[wfn];
	if (wf->wrapper >= 0 || wfn == (int32_t)s->fn)
		return false;
	/* the data argument: the address of a local struct of the caller */
	const struct expr *dx = &wf->f->events[wev].u.call->args[1];
	const struct ref *dr = dx->kind == EX_REF ? &dx->ref : dx->nreads == 1 ? &dx->reads[0] : NULL;
	if (!dr || dr->var < 0 || (dr->path && *dr->path))
		return false;
	const struct var *dv = mf_var(wf, dr->var);
	if (!dv || dv->kind != VK_LOCAL || !(dv->flags & VF_RECORD) || (dv->flags & VF_POINTER))
		return false;
	int cbp = field_from_param(wf, dr->var, cbx->ref.path, wev);
	if (cbp < 0)
		return false;
	struct wrapper w = {0};
	w.fn = (uint32_t)wfn;
	w.site = site_id;
	w.cb_param = cbp;
	w.data1_param = w.ubf_param = w.data2_param = w.flags_param = -1;
	const struct expr *d1 = s->data1;
	if (d1 && d1->kind == EX_REF && d1->ref.var == cbx->ref.var && d1->ref.deref && d1->ref.path && *d1->ref.path &&
	    !strchr(d1->ref.path, '.'))
		w.data1_param = field_from_param(wf, dr->var, d1->ref.path, wev);
	if (w.data1_param < 0 && !(d1 && (d1->kind == EX_NULL || (d1->kind == EX_INT && d1->has_ival))))
		return false; /* the data is not a parameter forwarded: keep the body's own site */
	s->is_template = 1;
	vec_push(&m->wrappers, w);
	wf->wrapper = (int32_t)m->wrappers.n - 1;
	return true;
}

/* The wrapper whose template is site `inner` (an rb_ensure-body wrapper's
 * template sits in the body, not in the wrapper function itself). */
static const struct wrapper *wrapper_of_site(const struct model *m, int32_t inner)
{
	if (inner < 0)
		return NULL;
	int32_t w = m->fns.v[m->sites.v[inner].fn].wrapper;
	if (w >= 0 && m->wrappers.v[w].site == (uint32_t)inner)
		return &m->wrappers.v[w];
	for (size_t i = 0; i < m->wrappers.n; i++)
		if (m->wrappers.v[i].site == (uint32_t)inner)
			return &m->wrappers.v[i];
	return w >= 0 ? &m->wrappers.v[w] : NULL;
}

/* After a site was added: if its callback is a parameter of the enclosing
 * function, that function is a wrapper and the site a template. */
static bool maybe_wrapper(struct model *m, uint32_t site_id)
{
	struct msite *s = &m->sites.v[site_id];
	struct mfunc *mf = &m->fns.v[s->fn];
	const struct call *c = mf->f->events[s->ev].u.call;
	int cbp = -1;
	const struct expr *cbx = NULL;
	if (s->inner < 0) {
		int cbi = s->api->cb >= 0 ? s->api->cb : first_fn_arg(mf, c);
		cbx = arg_at(c, cbi);
	} else {
		const struct wrapper *iw = wrapper_of_site(m, s->inner);
		if (!iw)
			return false;
		cbx = arg_at(c, iw->cb_param);
	}
	if (!is_param_of(mf, cbx, &cbp))
		return s->inner < 0 && maybe_ensure_wrapper(m, site_id, cbx);
	s->is_template = 1;
	if (mf->wrapper >= 0)
		return false;
	struct wrapper w = {0};
	w.fn = s->fn;
	w.site = site_id;
	w.cb_param = cbp;
	w.data1_param = w.ubf_param = w.data2_param = w.flags_param = -1;
	int p;
	if (s->inner < 0) {
		if (is_param_of(mf, s->data1, &p))
			w.data1_param = p;
		if (is_param_of(mf, s->data2, &p))
			w.data2_param = p;
		if (is_param_of(mf, arg_at(c, s->api->ubf), &p))
			w.ubf_param = p;
		if (is_param_of(mf, s->flags_expr, &p))
			w.flags_param = p;
	} else {
		const struct wrapper *iw = wrapper_of_site(m, s->inner);
		if (iw && iw->data1_param >= 0 && is_param_of(mf, arg_at(c, iw->data1_param), &p))
			w.data1_param = p;
		if (iw && iw->data2_param >= 0 && is_param_of(mf, arg_at(c, iw->data2_param), &p))
			w.data2_param = p;
		if (iw && iw->ubf_param >= 0 && is_param_of(mf, arg_at(c, iw->ubf_param), &p))
			w.ubf_param = p;
		if (iw && iw->flags_param >= 0 && is_param_of(mf, arg_at(c, iw->flags_param), &p))
			w.flags_param = p;
	}
	vec_push(&m->wrappers, w);
	mf->wrapper = (int32_t)m->wrappers.n - 1;
	return true;
}

void find_sites(struct model *m)
{
	struct hmap done = {0};
	bool changed = true;
	unsigned rounds = 0;
	while (changed && rounds++ < 16) {
		changed = false;
		for (uint32_t fi = 0; fi < m->fns.n; fi++) {
			const struct mfunc *mf = &m->fns.v[fi];
			for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
				const struct event *e = &mf->f->events[ei];
				if (e->kind != EV_CALL || e->u.call->indirect)
					continue;
				const struct call *c = e->u.call;
				const struct mfunc *target = model_callee(m, c->usr, mf);
				const struct gvl_api *api = NULL;
				const struct wrapper *w = NULL;
				if (target && target->wrapper >= 0)
					w = &m->wrappers.v[target->wrapper];
				else if (!target)
					api = gvl_api_find(c->name);
				if (!api && !w)
					continue;
				const char *key = pair_key(m, fi, ei);
				if (hmap_has(&done, key))
					continue;
				hmap_put(&done, key, (void *)1);
				add_site(m, fi, ei, api, w);
				if (maybe_wrapper(m, (uint32_t)m->sites.n - 1))
					changed = true;
			}
		}
	}
	hmap_free(&done);
}

/* Functions named `name` visible from tu: its own static ones first, then any
 * external one. */
static int32_t fn_by_name(const struct model *m, const struct tu_facts *tu, const char *name)
{
	int32_t ext = -1;
	for (uint32_t i = 0; i < m->fns.n; i++) {
		const struct mfunc *mf = &m->fns.v[i];
		if (!str_eq(mf->f->name, name))
			continue;
		if (mf->tu == tu)
			return (int32_t)i;
		if (!(mf->f->flags & FN_STATIC) && ext < 0)
			ext = (int32_t)i;
	}
	return ext;
}

/* Release calls the parser lost (a missing library type poisoned the
 * expression) but the token scan saw inside a function the parser kept. */
void add_token_sites(struct model *m)
{
	for (size_t t = 0; t < m->ntus; t++) {
		struct tu_facts *tu = m->tus[t];
		for (size_t i = 0; i < tu->token_sites.n; i++) {
			const struct token_site *ts = &tu->token_sites.v[i];
			const struct gvl_api *api = gvl_api_find(ts->api);
			if (ts->in_ast || ts->inactive || !api || !ts->function)
				continue;
			int32_t fi = -1;
			for (uint32_t k = 0; k < m->fns.n; k++)
				if (m->fns.v[k].tu == tu && str_eq(m->fns.v[k].f->name, ts->function))
					fi = (int32_t)k;
			if (fi < 0)
				continue;
			const struct mfunc *mf = &m->fns.v[fi];
			struct msite s = {0};
			s.id = (uint32_t)m->sites.n;
			s.tu = tu;
			s.fn = (uint32_t)fi;
			s.ev = mf->f->nevents;
			for (uint32_t e = 0; e < mf->f->nevents; e++)
				if (mf->f->events[e].loc.off >= ts->loc.off) {
					s.ev = e;
					break;
				}
			s.api = api;
			s.called = ts->api;
			s.inner = -1;
			s.data_fn = (uint32_t)fi;
			s.loc = ts->loc;
			s.loc.file = mf->f->loc.file;
			s.token_only = 1;
			s.removed_api = api->removed;
			s.cb.text = ts->callback;
			if (ts->callback) {
				int32_t cb = fn_by_name(m, tu, ts->callback);
				if (cb >= 0) {
					s.cb.how = CB_DIRECT;
					s.cb.ntargets = 1;
					s.cb.targets = arena_alloc(&m->arena, sizeof(uint32_t));
					s.cb.targets[0] = (uint32_t)cb;
				}
			}
			s.ubf_kind = api->ubf >= 0 ? UBF_UNKNOWN : UBF_NONE;
			vec_push(&m->sites, s);
		}
	}
}

int site_cmp(const void *a, const void *b)
{
	const struct msite *x = a, *y = b;
	int c = str_cmp(x->loc.file, y->loc.file);
	if (c)
		return c;
	if (x->loc.off != y->loc.off)
		return x->loc.off < y->loc.off ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}
