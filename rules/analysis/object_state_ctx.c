/* object_state_ctx.c: the object-state gate's view of the gem (see
 * object_state.c): which structs are Ruby objects' C structs, the fields a
 * reference names, what registers a function (method, initialize,
 * allocator), which functions are exempt or private to the object's
 * creation, and who calls a function (call edges and rb_ensure-style
 * runners). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "object_state.h"

bool is_object_record(const struct ostate *os, const char *rec)
{
	if (!rec)
		return false;
	for (unsigned i = 0; i < os->nrecords; i++)
		if (str_eq(os->records[i], rec))
			return true;
	return false;
}

/* "struct zstream *" -> "struct zstream" (records are spelled without '*'). */
const char *var_record(const struct mfunc *mf, int32_t var)
{
	const struct var *v = mf_var(mf, var);
	return v ? v->record : NULL;
}

void find_records(struct ostate *os)
{
	const struct model *m = os->m;
	for (uint32_t fi = 0; fi < m->fns.n && os->nrecords < MAX_RECORDS; fi++) {
		const struct mfunc *mf = &m->fns.v[fi];
		for (uint32_t ei = 0; ei < mf->f->nevents && os->nrecords < MAX_RECORDS; ei++) {
			const struct event *e = &mf->f->events[ei];
			if (e->kind != EV_ASSIGN || e->u.assign->lhs.var < 0 ||
			    (e->u.assign->lhs.path && *e->u.assign->lhs.path))
				continue;
			if (!io_typed_data_expr(mf, &e->u.assign->rhs))
				continue;
			const char *rec = var_record(mf, e->u.assign->lhs.var);
			if (rec && !is_object_record(os, rec))
				os->records[os->nrecords++] = rec;
		}
	}
	touch_tab_init(os);
}

/* The first member name of a path ("stream.avail_in" -> "stream"), interned
 * in buf. */
const char *first_field(const char *path, char *buf, size_t n)
{
	if (!path || !*path)
		return NULL;
	size_t k = strcspn(path, ".[");
	if (k >= n)
		k = n - 1;
	memcpy(buf, path, k);
	buf[k] = 0;
	return buf;
}

/* The object-state field a reference names: a pointer to an object struct,
 * followed to a member. Fills rec/field. */
bool object_field(const struct ostate *os, const struct mfunc *mf, const struct ref *r, const char **rec, char *field,
		  size_t n)
{
	if (r->var < 0 || !r->deref || !r->path || !*r->path)
		return false;
	const char *vr = var_record(mf, r->var);
	if (!is_object_record(os, vr))
		return false;
	const struct var *v = mf_var(mf, r->var);
	if (!v || !(v->flags & VF_POINTER))
		return false;
	*rec = vr;
	first_field(r->path, field, n);
	return *field != 0;
}

bool is_call(const struct event *e, const char *name)
{
	return e->kind == EV_CALL && !e->u.call->indirect && str_eq(e->u.call->name, name);
}

/* ---- roles: what registers a function ---- */

static int role_lookup(struct ostate *os, uint32_t fi)
{
	const struct model *m = os->m;
	const char *usr = m->fns.v[fi].f->usr;
	if (!usr)
		return ROLE_NONE;
	if (!os->roles_built) {
		os->roles_built = true;
		for (uint32_t k = 0; k < m->fns.n; k++) {
			const struct func *f = m->fns.v[k].f;
			for (uint32_t ei = 0; ei < f->nevents; ei++) {
				const struct event *e = &f->events[ei];
				if (e->kind != EV_CALL)
					continue;
				const struct call *c = e->u.call;
				/* Ruby 3's rb_define_method is a macro dispatching on the arity:
				 * an indirect call named by its whole text */
				if (!c->name || !str_starts(c->name, "rb_define_"))
					continue;
				bool alloc = str_starts(c->name, "rb_define_alloc_func");
				bool init = c->nargs >= 2 &&
					    ((c->args[1].text && strstr(c->args[1].text, "\"initialize\"")) ||
					     strstr(c->name, "\"initialize\""));
				for (uint32_t a = 0; a < c->nargs; a++) {
					if (c->args[a].kind != EX_FUNC || !c->args[a].func_usr)
						continue;
					uintptr_t r = (uintptr_t)hmap_get(&os->roles, c->args[a].func_usr);
					r |= alloc ? ROLE_ALLOC : init ? ROLE_INIT : ROLE_METHOD;
					hmap_put(&os->roles, c->args[a].func_usr, (void *)r);
				}
			}
		}
	}
	return (int)(uintptr_t)hmap_get(&os->roles, usr);
}

int role_of(struct ostate *os, uint32_t fi)
{
	if (!os->role_by_fn)
		os->role_by_fn = xcalloc(os->m->fns.n + 1, 1);
	if (!os->role_by_fn[fi])
		os->role_by_fn[fi] = (uint8_t)(role_lookup(os, fi) + 1);
	return os->role_by_fn[fi] - 1;
}

/* Functions that see the object before anyone else can (its allocator, the
 * method registered as initialize) or after everyone (the GC's callbacks:
 * free, mark, memsize, compact, by name, unless Ruby code can call them as a
 * method: a #free method is not exempt). */
bool makes_object(const struct func *f)
{
	static const char *const makers[] = {"rb_data_typed_object_zalloc", "rb_data_typed_object_wrap",
					     "rb_data_object_zalloc",       "rb_data_object_wrap",
					     "rb_data_typed_object_make",   "rb_data_object_make"};
	for (uint32_t ei = 0; ei < f->nevents; ei++)
		for (size_t i = 0; i < ARRAY_SIZE(makers); i++)
			if (is_call(&f->events[ei], makers[i]))
				return true;
	return false;
}

static bool exempt_lookup(struct ostate *os, uint32_t fi)
{
	int role = role_of(os, fi);
	if (role & (ROLE_ALLOC | ROLE_INIT))
		return !(role & ROLE_METHOD);
	if (role & ROLE_METHOD)
		return false;
	/* a helper that makes the object (TypedData_Make_Struct) and fills it */
	if (makes_object(os->m->fns.v[fi].f))
		return true;
	/* the GC's callbacks by name, when nothing in the gem calls them: a
	 * helper named buf_realloc that a method calls is that method's work */
	const struct mfunc *mf = &os->m->fns.v[fi];
	if (mf->in_end != mf->in_begin)
		return false;
	const char *n = mf->f->name;
	static const char *const parts[] = {"free", "mark", "memsize", "compact", "alloc", "dfree", "dmark", "dsize"};
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (strstr(n, parts[i]))
			return true;
	return false;
}

bool exempt_fn(struct ostate *os, uint32_t fi)
{
	if (!os->exempt_by_fn)
		os->exempt_by_fn = xcalloc(os->m->fns.n + 1, 1);
	if (!os->exempt_by_fn[fi])
		os->exempt_by_fn[fi] = (uint8_t)(exempt_lookup(os, fi) + 1);
	return os->exempt_by_fn[fi] - 1;
}

void free_ostate(struct ostate *os)
{
	hmap_free(&os->roles);
	free(os->role_by_fn);
	free(os->exempt_by_fn);
	touch_tab_free(os);
}

/* Ruby functions that run the function they are given before they return:
 * its caller's guard (or privacy) holds while it runs. A function handed to
 * anything else (rb_thread_create, a registered callback) runs later, on its
 * own. */
bool runs_now(const struct event *e)
{
	static const char *const runners[] = {"rb_ensure",     "rb_protect",           "rb_rescue",
					      "rb_rescue2",    "rb_mutex_synchronize", "rb_str_locktmp_ensure",
					      "rb_block_call", "rb_iterate",           "rb_catch",
					      "rb_catch_obj",  "rb_exec_recursive",    "rb_exec_recursive_paired"};
	for (size_t i = 0; i < ARRAY_SIZE(runners); i++)
		if (is_call(e, runners[i]))
			return true;
	return false;
}

/* The callers of fi: call-graph edges, and calls that run fi as a function
 * argument before they return (rb_ensure, rb_protect, rb_rescue,
 * rb_mutex_synchronize bodies). */
void callers_of(struct ostate *os, uint32_t fi, caller_vec *out)
{
	const struct model *m = os->m;
	const struct mfunc *mf = &m->fns.v[fi];
	for (uint32_t k = mf->in_begin; k < mf->in_end; k++) {
		const struct edge *e = &m->edges.v[m->in_edges.v[k]];
		struct caller c = {e->from, e->ev};
		vec_push(out, c);
	}
	const char *usr = mf->f->usr;
	if (!usr)
		return;
	/* the calls passing fi as an argument (rb_ensure bodies ...) */
	size_t np = 0;
	const struct call_at *passed = model_func_passed(m, usr, &np);
	for (size_t i = 0; i < np; i++) {
		if (!runs_now(&m->fns.v[passed[i].fn].f->events[passed[i].ev]))
			continue;
		bool dup = false;
		for (size_t j = 0; j < out->n && !dup; j++)
			dup = out->v[j].fn == passed[i].fn && out->v[j].ev == passed[i].ev;
		if (!dup) {
			struct caller c = {passed[i].fn, passed[i].ev};
			vec_push(out, c);
		}
	}
}

/* Is fi private to the object's creator: its allocator, initialize, or a
 * helper only they call? */
bool private_fn(struct ostate *os, uint32_t fi, int depth)
{
	if (exempt_fn(os, fi))
		return true;
	if (depth <= 0 || role_of(os, fi))
		return false;
	caller_vec cs = {0};
	callers_of(os, fi, &cs);
	bool ok = cs.n > 0;
	for (size_t i = 0; i < cs.n && ok; i++) {
		const struct event *ce = &os->m->fns.v[cs.v[i].fn].f->events[cs.v[i].ev];
		ok = ce->kind == EV_CALL && !str_starts(ce->u.call->name, "rb_define_") &&
		     private_fn(os, cs.v[i].fn, depth - 1);
	}
	vec_free(&cs);
	return ok;
}
