/* link.c: joins per-TU facts into the whole-program model (model.h). */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "log.h"

const char *cb_how_text(int how)
{
	switch (how) {
	case CB_DIRECT:
		return "direct";
	case CB_CAST:
		return "cast";
	case CB_LOCAL_VAR:
		return "local function pointer";
	case CB_GLOBAL_VAR:
		return "global function pointer";
	case CB_FIELD:
		return "struct field";
	case CB_WRAPPER:
		return "wrapper argument";
	case CB_NULL:
		return "NULL";
	case CB_SENTINEL:
		return "sentinel";
	default:
		return "unresolved";
	}
}

const char *ubf_kind_text(int kind)
{
	switch (kind) {
	case UBF_NONE:
		return "none";
	case UBF_NULL:
		return "NULL";
	case UBF_IO:
		return "RUBY_UBF_IO";
	case UBF_PROCESS:
		return "RUBY_UBF_PROCESS";
	case UBF_FUNC:
		return "function";
	default:
		return "unknown";
	}
}

const struct mfunc *model_func_by_usr(const struct model *m, const char *usr)
{
	if (!usr)
		return NULL;
	uintptr_t v = (uintptr_t)hmap_get(&m->fn_by_usr, usr);
	return v ? &m->fns.v[v - 1] : NULL;
}

const struct var *mf_var(const struct mfunc *mf, int32_t var)
{
	return tu_var(mf->tu, var);
}

static int32_t fn_id(const struct model *m, const char *usr)
{
	uintptr_t v = usr ? (uintptr_t)hmap_get(&m->fn_by_usr, usr) : 0;
	return v ? (int32_t)(v - 1) : -1;
}

typedef VEC(uint32_t) u32vec;

static bool same_dir(const char *a, const char *b)
{
	const char *sa = a ? strrchr(a, '/') : NULL, *sb = b ? strrchr(b, '/') : NULL;
	return sa && sb && sa - a == sb - b && strncmp(a, b, (size_t)(sa - a)) == 0;
}

/* The definition a call from `from` reaches: where one name is defined in
 * several places, the one in the caller's file, else one in its directory
 * (its extension), else the first. */
static int32_t fn_id_from(const struct model *m, const char *usr, const struct tu_facts *from)
{
	int32_t id = fn_id(m, usr);
	const u32vec *d = id >= 0 && from ? hmap_get(&m->fn_defs, usr) : NULL;
	if (!d)
		return id;
	for (size_t i = 0; i < d->n; i++)
		if (m->fns.v[d->v[i]].tu == from)
			return (int32_t)d->v[i];
	for (size_t i = 0; i < d->n; i++)
		if (same_dir(m->fns.v[d->v[i]].tu->path, from->path))
			return (int32_t)d->v[i];
	return id;
}

const struct mfunc *model_callee(const struct model *m, const char *usr, const struct mfunc *caller)
{
	int32_t id = fn_id_from(m, usr, caller ? caller->tu : NULL);
	return id >= 0 ? &m->fns.v[id] : NULL;
}

/* TU-local index of a function */
static int32_t local_fn_index(const struct mfunc *mf)
{
	return (int32_t)(mf->f - mf->tu->funcs.v);
}

/* ---- bindings ---- */

typedef VEC(const struct binding *) binding_vec;

static const char *binding_key(struct model *m, const char *record, const char *field)
{
	char *k = xasprintf("%s\x01%s", record ? record : "", field ? field : "");
	const char *r = intern(&m->pool, k);
	free(k);
	return r;
}

static void add_binding(struct model *m, const struct binding *b)
{
	const char *key = binding_key(m, b->record, b->field);
	binding_vec *v = hmap_get(&m->bindings, key);
	if (!v) {
		v = arena_alloc(&m->arena, sizeof(*v));
		hmap_put(&m->bindings, key, v);
	}
	vec_push(v, b);
}

static const binding_vec *find_bindings(struct model *m, const char *record, const char *field)
{
	return hmap_get(&m->bindings, binding_key(m, record, field));
}

/* ---- callback resolution ---- */

typedef VEC(const char *) strvec;

/* A function pointer is analysed as each function assigned to it, up to this
 * many; past it (a table of thousands of handlers, generated code) the
 * pointer is "partial": the gates say cannot verify and name it. Bounds the
 * work of every later walk over the targets. */
#define MAX_FN_TARGETS 64
static bool targets_capped; /* or a value not followed; linking is single-threaded; see resolve_fn_expr */

/* from: the file whose code names the function (NULL: not known) */
static void add_target(struct model *m, u32vec *t, strvec *ext, const char *usr, const char *name,
		       const struct tu_facts *from)
{
	if (t->n + ext->n >= MAX_FN_TARGETS) {
		targets_capped = true;
		return;
	}
	int32_t id = fn_id_from(m, usr, from);
	if (id >= 0) {
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i] == (uint32_t)id)
				return;
		vec_push(t, (uint32_t)id);
	} else if (name) {
		const char *in = intern(&m->pool, name);
		for (size_t i = 0; i < ext->n; i++)
			if (ext->v[i] == in)
				return;
		vec_push(ext, in);
	}
}

static void finish_cbres(struct model *m, struct cbres *r, u32vec *t, strvec *ext)
{
	r->ntargets = (uint32_t)t->n;
	r->targets = t->n ? arena_memdup(&m->arena, t->v, t->n * sizeof(uint32_t)) : NULL;
	r->nexternal = (uint32_t)ext->n;
	r->external = ext->n ? arena_memdup(&m->arena, ext->v, ext->n * sizeof(char *)) : NULL;
	vec_free(t);
	vec_free(ext);
}

static struct cbres resolve_fn_expr(struct model *m, const struct mfunc *mf, uint32_t before, const struct expr *e);

/* A parameter stored in a field: the functions the callers of its function
 * pass in that position (one level; callers passing their own parameter on
 * are wrappers, handled as release sites). */
static int bind_depth; /* linking is single-threaded: guards mutual recursion */

struct call_at {
	uint32_t fn, ev;
};
typedef VEC(struct call_at) call_at_vec;

/* Every direct call, indexed by callee USR, so resolving what callers pass
 * costs the callers, not the whole program. */
static void index_calls(struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || e->u.call->indirect || !e->u.call->usr)
				continue;
			call_at_vec *v = hmap_get(&m->calls_to, e->u.call->usr);
			if (!v) {
				v = arena_alloc(&m->arena, sizeof(*v));
				hmap_put(&m->calls_to, e->u.call->usr, v);
			}
			struct call_at c = {fi, ei};
			vec_push(v, c);
		}
	}
}

static void bind_param_targets(struct model *m, const struct binding *b, u32vec *t, strvec *ext, int depth)
{
	if (depth > 0 || b->param_index < 0 || bind_depth > 2)
		return;
	bind_depth++;
	const call_at_vec *callers = hmap_get(&m->calls_to, b->param_of_usr);
	for (size_t ci = 0; callers && ci < callers->n; ci++) {
		const struct mfunc *mf = &m->fns.v[callers->v[ci].fn];
		uint32_t ei = callers->v[ci].ev;
		{
			const struct event *e = &mf->f->events[ei];
			if ((uint32_t)b->param_index >= e->u.call->nargs)
				continue;
			const struct expr *a = &e->u.call->args[b->param_index];
			if (a->kind == EX_REF && (!a->ref.path || !*a->ref.path)) {
				const struct var *v = mf_var(mf, a->ref.var);
				if (v && v->kind == VK_PARAM)
					continue; /* forwarded again: a wrapper's business */
			}
			struct cbres r = resolve_fn_expr(m, mf, ei, a);
			if (r.partial && r.ntargets + r.nexternal >= MAX_FN_TARGETS)
				targets_capped = true; /* the caller's own list was cut */
			for (uint32_t i = 0; i < r.ntargets; i++)
				add_target(m, t, ext, m->fns.v[r.targets[i]].f->usr, NULL, m->fns.v[r.targets[i]].tu);
			for (uint32_t i = 0; i < r.nexternal; i++)
				add_target(m, t, ext, NULL, r.external[i], NULL);
		}
	}
	bind_depth--;
}

static void bind_targets(struct model *m, const binding_vec *bv, u32vec *t, strvec *ext)
{
	if (!bv)
		return;
	for (size_t i = 0; i < bv->n; i++) {
		if (bv->v[i]->param_of_usr)
			bind_param_targets(m, bv->v[i], t, ext, 0);
		else if (!bv->v[i]->fn_usr && !bv->v[i]->fn_name)
			targets_capped = true; /* a value that names no function (extract.c emit_assign) */
		else
			add_target(m, t, ext, bv->v[i]->fn_usr, bv->v[i]->fn_name, NULL);
	}
}

/* Resolves a function-valued expression evaluated in mf before event `before`. */
static struct cbres resolve_fn_expr(struct model *m, const struct mfunc *mf, uint32_t before, const struct expr *e)
{
	struct cbres r = {0};
	u32vec t = {0};
	strvec ext = {0};
	bool capped_outer = targets_capped;
	targets_capped = false;
	r.text = e->text;
	r.macro = e->macro;
	switch (e->kind) {
	case EX_FUNC:
		r.how = e->cast ? CB_CAST : CB_DIRECT;
		add_target(m, &t, &ext, e->func_usr, e->func_name, mf->tu);
		break;
	case EX_NULL:
		r.how = CB_NULL;
		break;
	case EX_INT:
		if (e->has_ival && e->ival == 0)
			r.how = CB_NULL;
		else if (e->has_ival && e->ival == -1)
			r.how = CB_SENTINEL;
		break;
	case EX_REF: {
		const struct var *v = mf_var(mf, e->ref.var);
		if (!v)
			break;
		bool plain = !e->ref.path || !*e->ref.path;
		if (!plain && e->ref.field) {
			r.how = CB_FIELD;
			bind_targets(m, find_bindings(m, e->ref.record, e->ref.field), &t, &ext);
			if (!t.n && !ext.n)
				r.how = CB_UNRESOLVED;
			break;
		}
		if (!plain)
			break;
		if (v->kind == VK_PARAM) {
			r.how = CB_WRAPPER;
			break;
		}
		if (v->kind == VK_LOCAL) {
			r.how = CB_LOCAL_VAR;
			if (v->init_fn_usr)
				add_target(m, &t, &ext, v->init_fn_usr, NULL, mf->tu);
			for (uint32_t i = 0; i < mf->f->nevents && i < before; i++) {
				const struct event *ev = &mf->f->events[i];
				if (ev->kind != EV_ASSIGN || ev->u.assign->lhs.var != e->ref.var)
					continue;
				if (ev->u.assign->lhs.path && *ev->u.assign->lhs.path)
					continue;
				const struct expr *rhs = &ev->u.assign->rhs;
				if (rhs->kind == EX_FUNC)
					add_target(m, &t, &ext, rhs->func_usr, rhs->func_name, mf->tu);
				else if (rhs->kind != EX_NULL)
					r.partial = 1;
			}
			if (!t.n && !ext.n)
				r.how = CB_UNRESOLVED;
			break;
		}
		/* global or static function pointer: initialiser and every assignment */
		r.how = CB_GLOBAL_VAR;
		if (v->init_fn_usr)
			add_target(m, &t, &ext, v->init_fn_usr, NULL, mf->tu);
		const struct var *g = v->usr ? hmap_get(&m->globals, v->usr) : NULL;
		if (g && g->init_fn_usr)
			add_target(m, &t, &ext, g->init_fn_usr, NULL, NULL);
		bind_targets(m, find_bindings(m, NULL, v->usr), &t, &ext);
		if (!t.n && !ext.n)
			r.how = CB_UNRESOLVED;
		break;
	}
	default:
		break;
	}
	if (targets_capped)
		r.partial = 1; /* more functions than MAX_FN_TARGETS: the rest are not analysed */
	targets_capped = capped_outer;
	finish_cbres(m, &r, &t, &ext);
	return r;
}

/* ---- release sites and wrappers ---- */

static bool is_param_of(const struct mfunc *mf, const struct expr *e, int *index)
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

static const struct expr *arg_at(const struct call *c, int i)
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

static void find_sites(struct model *m)
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
static void add_token_sites(struct model *m)
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

static int site_cmp(const void *a, const void *b)
{
	const struct msite *x = a, *y = b;
	int c = str_cmp(x->loc.file, y->loc.file);
	if (c)
		return c;
	if (x->loc.off != y->loc.off)
		return x->loc.off < y->loc.off ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

/* ---- call graph ---- */

static bool is_ruby_named(const char *n)
{
	return str_starts(n, "rb_") || str_starts(n, "ruby_") || str_starts(n, "RB_") || str_starts(n, "RUBY_");
}

static void add_edge(struct model *m, uint32_t from, int32_t to, uint32_t ev, int kind)
{
	struct edge e = {from, to, ev, (uint8_t)kind};
	vec_push(&m->edges, e);
}

static void build_edges(struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL)
				continue;
			const struct call *c = e->u.call;
			if (!c->indirect) {
				int32_t to = fn_id_from(m, c->usr, mf->tu);
				if (to >= 0) {
					add_edge(m, fi, to, ei, EDGE_DIRECT);
					continue;
				}
				/* a library function given our functions may call them back
				 * (qsort comparators, library callbacks); Ruby's APIs do that
				 * with the GVL held and release APIs are sites of their own */
				if (c->origin == ORIGIN_RUBY || is_ruby_named(c->name) || gvl_api_find(c->name))
					continue;
				for (uint32_t ai = 0; ai < c->nargs; ai++) {
					if (c->args[ai].kind != EX_FUNC)
						continue;
					int32_t t = fn_id_from(m, c->args[ai].func_usr, mf->tu);
					if (t >= 0)
						add_edge(m, fi, t, ei, EDGE_FNARG);
				}
				continue;
			}
			/* through a pointer */
			const struct expr *ce = &c->callee;
			int p;
			if (is_param_of(mf, ce, &p))
				continue; /* resolved from callers below */
			struct cbres r = resolve_fn_expr(m, mf, ei, ce);
			/* some values not followed (or past MAX_FN_TARGETS): an unknown
			 * callee besides the known ones, so no gate passes on them alone */
			if ((!r.ntargets && !r.nexternal) || r.partial)
				add_edge(m, fi, -1, ei, EDGE_POINTER);
			for (uint32_t i = 0; i < r.ntargets; i++)
				add_edge(m, fi, (int32_t)r.targets[i], ei, EDGE_POINTER);
		}
	}
}

/* Library calls that run handlers registered with another call of the same
 * library, from the library models (rules/models/NAME.yml): a function whose
 * model has calls_back: {registered_by: [R, ...]} may run the handler given to
 * R, whose model names that argument (registers_handler: N). The SQLite
 * models, for example: sqlite3_backup_step runs the sqlite3_busy_handler
 * handler, sqlite3_step also the progress handler and the commit, rollback and
 * update hooks. */

/* The model of a direct call of a library function (no body in the gem). */
static const struct lib_model *library_call_model(const struct model *m, const struct mfunc *mf, const struct event *e)
{
	if (e->kind != EV_CALL || e->u.call->indirect || !e->u.call->name || fn_id_from(m, e->u.call->usr, mf->tu) >= 0)
		return NULL;
	return model_find(e->u.call->name);
}

typedef VEC(uint32_t) handler_list;

/* Edges from each call of a runner to the handlers the project registers
 * anywhere with one of its registrars. */
static void add_library_callback_edges(struct model *m)
{
	struct hmap handlers = {0}; /* registrar name -> handler_list* */
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			const struct lib_model *lm = library_call_model(m, mf, e);
			if (!lm || lm->registers_handler < 0 || (uint32_t)lm->registers_handler >= e->u.call->nargs)
				continue;
			struct cbres r = resolve_fn_expr(m, mf, ei, &e->u.call->args[lm->registers_handler]);
			if (!r.ntargets)
				continue;
			handler_list *l = hmap_get(&handlers, lm->name);
			if (!l) {
				l = xcalloc(1, sizeof(*l));
				hmap_put(&handlers, lm->name, l);
			}
			for (uint32_t i = 0; i < r.ntargets; i++)
				vec_push(l, r.targets[i]);
		}
	}
	for (uint32_t fi = 0; fi < m->fns.n && handlers.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			const struct lib_model *lm = library_call_model(m, mf, e);
			if (!lm || !lm->registered_by)
				continue;
			for (const char *const *r = lm->registered_by; *r; r++) {
				const handler_list *l = hmap_get(&handlers, *r);
				for (size_t h = 0; l && h < l->n; h++)
					add_edge(m, fi, (int32_t)l->v[h], ei, EDGE_LIBCB);
			}
		}
	}
	hmap_foreach(&handlers, he)
	{
		handler_list *l = he->val;
		vec_free(l);
		free(l);
	}
	hmap_free(&handlers);
}

static int edge_cmp(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

static int param_via_cmp(const void *a, const void *b)
{
	const struct param_via *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return x->caller < y->caller ? -1 : x->caller > y->caller;
}

static const struct model *sort_model;
static int in_edge_cmp(const void *a, const void *b)
{
	const struct edge *x = &sort_model->edges.v[*(const uint32_t *)a];
	const struct edge *y = &sort_model->edges.v[*(const uint32_t *)b];
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

static void index_edges(struct model *m)
{
	xqsort(m->edges.v, m->edges.n, sizeof(struct edge), edge_cmp);
	/* drop exact duplicates */
	size_t w = 0;
	for (size_t i = 0; i < m->edges.n; i++) {
		if (w && memcmp(&m->edges.v[w - 1], &m->edges.v[i], sizeof(struct edge)) == 0)
			continue;
		m->edges.v[w++] = m->edges.v[i];
	}
	m->edges.n = w;
	size_t k = 0;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		m->fns.v[fi].edge_begin = (uint32_t)k;
		while (k < m->edges.n && m->edges.v[k].from == fi)
			k++;
		m->fns.v[fi].edge_end = (uint32_t)k;
	}
	for (size_t i = 0; i < m->edges.n; i++)
		if (m->edges.v[i].to >= 0)
			vec_push(&m->in_edges, (uint32_t)i);
	sort_model = m;
	xqsort(m->in_edges.v, m->in_edges.n, sizeof(uint32_t), in_edge_cmp);
	sort_model = NULL;
	k = 0;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		m->fns.v[fi].in_begin = (uint32_t)k;
		while (k < m->in_edges.n && m->edges.v[m->in_edges.v[k]].to == (int32_t)fi)
			k++;
		m->fns.v[fi].in_end = (uint32_t)k;
	}
}

/* Calls through a parameter: the functions the callers pass in that position.
 * Runs after the first indexing so callers are found through in-edges. */
static bool add_param_edges(struct model *m)
{
	size_t before = m->edges.n;
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			int p;
			if (e->kind != EV_CALL || !e->u.call->indirect || !is_param_of(mf, &e->u.call->callee, &p))
				continue;
			bool any = false, partial = false;
			for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
				const struct edge *ed = &m->edges.v[m->in_edges.v[k]];
				if (ed->kind != EDGE_DIRECT)
					continue;
				/* add_edge may move m->edges: keep what is needed of ed */
				const uint32_t from = ed->from;
				const struct mfunc *caller = &m->fns.v[from];
				const struct expr *a = arg_at(caller->f->events[ed->ev].u.call, p);
				if (!a)
					continue;
				struct cbres r = resolve_fn_expr(m, caller, ed->ev, a);
				if (r.partial)
					partial = true;
				for (uint32_t i = 0; i < r.ntargets; i++) {
					add_edge(m, fi, (int32_t)r.targets[i], ei, EDGE_PARAM);
					struct param_via pv = {fi, ei, (int32_t)r.targets[i], from};
					vec_push(&m->param_via, pv);
					any = true;
				}
			}
			if (!any || partial)
				add_edge(m, fi, -1, ei, EDGE_POINTER);
		}
	}
	return m->edges.n != before;
}

static void find_withgvl(struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || !str_eq(e->u.call->name, WITH_GVL_API) || !e->u.call->nargs)
				continue;
			struct withgvl_call w = {fi, ei, resolve_fn_expr(m, mf, ei, &e->u.call->args[0])};
			vec_push(&m->withgvl, w);
		}
	}
}

static void mark_protected(struct model *m)
{
	static const char *const protectors[] = {"rb_protect", "rb_ensure", "rb_rescue", "rb_rescue2",
						 "rb_str_locktmp_ensure"};
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || str_in_list(e->u.call->name, protectors, ARRAY_SIZE(protectors)) < 0)
				continue;
			const struct call *c = e->u.call;
			/* rb_str_locktmp_ensure(str, func, arg): body is the second argument */
			int body = strcmp(c->name, "rb_str_locktmp_ensure") == 0 ? 1 : 0;
			if ((uint32_t)body < c->nargs && c->args[body].kind == EX_FUNC) {
				int32_t t = fn_id_from(m, c->args[body].func_usr, mf->tu);
				if (t >= 0)
					m->fns.v[t].protected_body = 1;
			}
		}
	}
}

/* Token-level mentions that the AST also has (same file, line and name). */
static void mark_token_sites(struct model *m)
{
	struct hmap seen = {0};
	struct strpool keys = {0};
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_CALL || !e->u.call->name)
				continue;
			char *k = xasprintf("%s:%u:%s", e->loc.file ? e->loc.file : "", e->loc.line, e->u.call->name);
			hmap_put(&seen, intern(&keys, k), (void *)1);
			free(k);
		}
	}
	for (size_t t = 0; t < m->ntus; t++) {
		struct tu_facts *tu = m->tus[t];
		for (size_t i = 0; i < tu->token_sites.n; i++) {
			struct token_site *ts = &tu->token_sites.v[i];
			char *k = xasprintf("%s:%u:%s", ts->loc.file ? ts->loc.file : "", ts->loc.line, ts->api);
			ts->in_ast = hmap_has(&seen, k);
			free(k);
		}
	}
	hmap_free(&seen);
	strpool_free(&keys);
}

static void mark_taken(struct model *m, const char *usr)
{
	int32_t id = fn_id(m, usr);
	if (id < 0)
		return;
	m->fns.v[id].address_taken = 1;
	const u32vec *d = hmap_get(&m->fn_defs, usr);
	for (size_t i = 0; d && i < d->n; i++)
		m->fns.v[d->v[i]].address_taken = 1;
}

/* Functions whose address is taken: an argument of any call, the value of
 * an assignment, a function bound to a field. */
static void find_address_taken(struct model *m)
{
	for (uint32_t fi = 0; fi < m->fns.n; fi++) {
		const struct func *f = m->fns.v[fi].f;
		for (uint32_t ei = 0; ei < f->nevents; ei++) {
			const struct event *e = &f->events[ei];
			if (e->kind == EV_CALL) {
				for (uint32_t k = 0; k < e->u.call->nargs; k++)
					if (e->u.call->args[k].kind == EX_FUNC)
						mark_taken(m, e->u.call->args[k].func_usr);
			} else if (e->kind == EV_ASSIGN && e->u.assign->rhs.kind == EX_FUNC) {
				mark_taken(m, e->u.assign->rhs.func_usr);
			}
		}
	}
	for (size_t t = 0; t < m->ntus; t++)
		for (size_t i = 0; i < m->tus[t]->bindings.n; i++)
			mark_taken(m, m->tus[t]->bindings.v[i].fn_usr);
}

struct model *model_link(struct tu_facts **tus, size_t ntus)
{
	struct model *m = xcalloc(1, sizeof(*m));
	m->tus = tus;
	m->ntus = ntus;
	for (size_t t = 0; t < ntus; t++) {
		struct tu_facts *tu = tus[t];
		for (size_t i = 0; i < tu->funcs.n; i++) {
			struct func *f = &tu->funcs.v[i];
			if (!f->usr || !*f->usr)
				continue;
			int32_t first = fn_id(m, f->usr);
			if (first >= 0) {
				/* the same definition seen again (a function in a header) */
				const struct func *g = m->fns.v[first].f;
				if (g->loc.line == f->loc.line && g->loc.file && f->loc.file &&
				    strcmp(g->loc.file, f->loc.file) == 0)
					continue;
				const u32vec *known = hmap_get(&m->fn_defs, f->usr);
				bool dup = false;
				for (size_t k = 0; known && k < known->n && !dup; k++) {
					const struct func *h = m->fns.v[known->v[k]].f;
					dup = h->loc.line == f->loc.line && h->loc.file && f->loc.file &&
					      strcmp(h->loc.file, f->loc.file) == 0;
				}
				if (dup)
					continue;
			}
			struct mfunc mf = {0};
			mf.f = f;
			mf.tu = tu;
			mf.id = (uint32_t)m->fns.n;
			mf.wrapper = -1;
			vec_push(&m->fns, mf);
			if (first < 0) {
				hmap_put(&m->fn_by_usr, f->usr, (void *)(uintptr_t)m->fns.n);
			} else {
				/* another definition of the same name elsewhere: its own
				 * function, reached from its own file and directory */
				u32vec *d = hmap_get(&m->fn_defs, f->usr);
				if (!d) {
					d = xcalloc(1, sizeof(*d));
					vec_push(d, (uint32_t)first);
					hmap_put(&m->fn_defs, f->usr, d);
				}
				vec_push(d, mf.id);
			}
		}
		for (size_t i = 0; i < tu->bindings.n; i++)
			add_binding(m, &tu->bindings.v[i]);
		for (size_t i = 0; i < tu->vars.n; i++) {
			struct var *v = &tu->vars.v[i];
			if ((v->kind == VK_GLOBAL || v->kind == VK_FILE_STATIC) && v->usr) {
				struct var *prev = hmap_get(&m->globals, v->usr);
				if (!prev || (!prev->init_fn_usr && v->init_fn_usr))
					hmap_put(&m->globals, v->usr, v);
			}
		}
	}
	index_calls(m);
	find_address_taken(m);
	find_sites(m);
	mark_token_sites(m);
	add_token_sites(m);
	/* sites are referenced by index from wrappers: sort a copy of the order and
	 * remap */
	{
		size_t n = m->sites.n;
		struct msite *sorted = xmalloc((n ? n : 1) * sizeof(*sorted));
		if (n) /* no sites: m->sites.v is NULL, and memcpy from NULL is undefined */
			memcpy(sorted, m->sites.v, n * sizeof(*sorted));
		xqsort(sorted, n, sizeof(*sorted), site_cmp);
		uint32_t *remap = xmalloc((n ? n : 1) * sizeof(uint32_t));
		for (size_t i = 0; i < n; i++)
			remap[sorted[i].id] = (uint32_t)i;
		for (size_t i = 0; i < n; i++) {
			sorted[i].id = (uint32_t)i;
			if (sorted[i].inner >= 0)
				sorted[i].inner = (int32_t)remap[sorted[i].inner];
		}
		for (size_t i = 0; i < m->wrappers.n; i++)
			m->wrappers.v[i].site = remap[m->wrappers.v[i].site];
		if (n)
			memcpy(m->sites.v, sorted, n * sizeof(*sorted));
		free(sorted);
		free(remap);
	}
	build_edges(m);
	add_library_callback_edges(m);
	index_edges(m);
	if (add_param_edges(m)) {
		m->in_edges.n = 0;
		index_edges(m);
	}
	xqsort(m->param_via.v, m->param_via.n, sizeof(struct param_via), param_via_cmp);
	find_withgvl(m);
	mark_protected(m);
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template)
			continue;
		m->ncallbacks += s->cb.ntargets;
		if (!s->cb.ntargets && !s->cb.nexternal)
			m->nsites_unresolved++;
	}
	context_compute(m);
	return m;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	site_verdicts_free(m->verdicts, m->nverdicts);
	vec_free(&m->fns);
	hmap_free(&m->fn_by_usr);
	hmap_foreach(&m->fn_defs, e)
	{
		u32vec *d = e->val;
		vec_free(d);
		free(d);
	}
	hmap_free(&m->fn_defs);
	vec_free(&m->edges);
	vec_free(&m->in_edges);
	vec_free(&m->param_via);
	vec_free(&m->sites);
	vec_free(&m->wrappers);
	hmap_foreach(&m->bindings, e)
	{
		binding_vec *v = e->val;
		vec_free(v);
	}
	hmap_free(&m->bindings);
	hmap_free(&m->globals);
	hmap_foreach(&m->calls_to, e)
	{
		call_at_vec *v = e->val;
		vec_free(v);
	}
	hmap_free(&m->calls_to);
	vec_free(&m->withgvl);
	for (int i = 0; i < CTX_COUNT; i++)
		free(m->reach[i]);
	arena_free(&m->arena);
	strpool_free(&m->pool);
	free(m);
}
