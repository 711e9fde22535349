/* state_gates_static.c: pointers that only ever point at static storage, and
 * code that runs in a fork child (state_ctx.h). */
#include "state_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "process_state.h"
#include "rule.h"
#include "state_knowledge.h"

/* ---- static-only pointers ----
 *
 * A pointer "can only point at statics" when every value it can hold is the
 * address of a global or static object (or a pointer into one):
 *   - a local pointer: every assignment to it (initialiser included) stores
 *     such an address, or moves it with += / ++; its own address is never
 *     taken;
 *   - a parameter: every call that reaches the function (direct, through a
 *     resolved pointer, as a release site's callback with its data1, or from
 *     rb_thread_call_with_gvl) passes such an address in that position, and
 *     no library is handed the function (it could call it with anything).
 * Static pointer variables are not static-only: what they point at is not
 * known (writes through them are "cannot verify" for the gate). */

static size_t tu_index(const struct model *m, const struct tu_facts *tu)
{
	for (size_t i = 0; i < m->ntus; i++)
		if (m->tus[i] == tu)
			return i;
	return 0;
}

/* Whether expression e, evaluated in mf, is the address of static storage
 * (witness: that static). */
bool so_expr(struct state_ctx *c, const struct mfunc *mf, const struct expr *e, const struct var **witness)
{
	if (!e)
		return false;
	if (e->kind == EX_OTHER && e->nreads >= 1 && e->text) {
		/* pointer arithmetic: buf + n, p - 1 */
		const struct var *v = mf_var(mf, e->reads[0].var);
		if (!v || !plain_path(&e->reads[0]))
			return false;
		size_t n = strlen(v->name);
		const char *t = e->text;
		while (*t == '(')
			t++;
		if (strncmp(t, v->name, n) != 0)
			return false;
		t += n;
		while (*t == ' ')
			t++;
		if (*t != '+' && *t != '-')
			return false;
		struct expr tmp = {0};
		tmp.kind = EX_REF;
		tmp.ref = e->reads[0];
		return so_expr(c, mf, &tmp, witness);
	}
	if (e->kind != EX_REF)
		return false;
	const struct var *v = mf_var(mf, e->ref.var);
	if (!v)
		return false;
	if (static_storage(v)) {
		uint32_t fl = var_flags(c->m, v);
		if (fl & (VF_TLS | VF_CONST | VF_RUBY_HEADER | VF_SYSTEM_HEADER))
			return false;
		/* &g, an array g, or the value of a pointer g: a copy of the one
		 * pointer every thread reads points at the one shared object */
		bool ok = (e->ref.addr && !e->ref.ptr_deref) ||
			  (!e->ref.addr && !e->ref.deref && (fl & (VF_ARRAY | VF_POINTER)) && plain_path(&e->ref));
		if (ok)
			*witness = v;
		return ok;
	}
	if (v->kind != VK_LOCAL && v->kind != VK_PARAM)
		return false;
	if (!e->ref.addr && !e->ref.deref && plain_path(&e->ref))
		return so_var(c, mf, e->ref.var, witness);
	if (e->ref.addr && e->ref.ptr_deref) /* &p->f, &p[i] */
		return so_var(c, mf, e->ref.var, witness);
	return false;
}

static bool fn_handed_to_library(const struct model *m, const struct mfunc *mf)
{
	struct caller_walk w;
	for (caller_walk_init(&w, m, mf); caller_walk_next(&w);)
		if (w.edge->kind == EDGE_FNARG)
			return true;
	return false;
}

static bool so_param(struct state_ctx *c, const struct mfunc *mf, const struct var *v, const struct var **witness)
{
	const struct model *m = c->m;
	if (fn_handed_to_library(m, mf))
		return false;
	unsigned sources = 0;
	struct caller_walk cw;
	for (caller_walk_init(&cw, m, mf); caller_walk_next(&cw);) {
		const struct call *call = cw.e->u.call;
		if ((uint32_t)v->param_index >= call->nargs)
			return false;
		if (!so_expr(c, cw.caller, &call->args[v->param_index], witness))
			return false;
		sources++;
	}
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template)
			continue;
		for (uint32_t t = 0; t < s->cb.ntargets; t++) {
			if (s->cb.targets[t] != mf->id)
				continue;
			if (v->param_index != 0 || !so_expr(c, &m->fns.v[s->data_fn], s->data1, witness))
				return false;
			sources++;
		}
		for (uint32_t t = 0; t < s->ubf.ntargets; t++) {
			if (s->ubf.targets[t] != mf->id)
				continue;
			if (v->param_index != 0 || !so_expr(c, &m->fns.v[s->data_fn], s->data2, witness))
				return false;
			sources++;
		}
	}
	for (size_t i = 0; i < m->withgvl.n; i++) {
		const struct withgvl_call *w = &m->withgvl.v[i];
		for (uint32_t t = 0; t < w->target.ntargets; t++) {
			if (w->target.targets[t] != mf->id)
				continue;
			const struct mfunc *caller = &m->fns.v[w->fn];
			const struct call *call = caller->f->events[w->ev].u.call;
			if (v->param_index != 0 || call->nargs < 2 || !so_expr(c, caller, &call->args[1], witness))
				return false;
			sources++;
		}
	}
	return sources > 0;
}

static bool so_local(struct state_ctx *c, const struct mfunc *mf, int32_t var, const struct var **witness)
{
	unsigned assigns = 0;
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *e = &mf->f->events[ei];
		if (e->kind == EV_ACCESS && e->u.access->ref.var == var && (e->u.access->mode & ACC_ADDR) &&
		    plain_path(&e->u.access->ref))
			return false; /* &p: may be set anywhere */
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var || !plain_path(&e->u.assign->lhs) ||
		    e->u.assign->lhs.deref)
			continue;
		if (e->u.assign->compound)
			continue; /* p += n stays inside the same object */
		if (!so_expr(c, mf, &e->u.assign->rhs, witness))
			return false;
		assigns++;
	}
	return assigns > 0;
}

bool so_var(struct state_ctx *c, const struct mfunc *mf, int32_t var, const struct var **witness)
{
	const struct var *v = mf_var(mf, var);
	if (!v || !(v->flags & VF_POINTER))
		return false;
	size_t ti = tu_index(c->m, mf->tu);
	if (!c->so_memo[ti]) {
		c->so_memo[ti] = xcalloc(mf->tu->vars.n + 1, 1);
		c->so_witness[ti] = xcalloc(mf->tu->vars.n + 1, sizeof(const struct var *));
	}
	uint8_t *memo = &c->so_memo[ti][var];
	if (*memo == 2) {
		*witness = c->so_witness[ti][var];
		return true;
	}
	if (*memo)
		return false; /* no, or a cycle: stay silent */
	*memo = 1;
	const struct var *w = NULL;
	bool ok = false;
	if (v->kind == VK_LOCAL)
		ok = so_local(c, mf, var, &w);
	else if (v->kind == VK_PARAM && v->fn == (int32_t)(mf->f - mf->tu->funcs.v))
		ok = so_param(c, mf, v, &w);
	c->so_memo[ti][var] = ok ? 2 : 3;
	if (ok) {
		c->so_witness[ti][var] = w;
		*witness = w;
	}
	return ok;
}

/* ---- fork children ----
 *
 * After fork() returns 0 the child process has one thread, the one that
 * called fork: the code of a child branch (`if (pid == 0) {...}`, the else
 * of `if (pid) ... else {...}`) runs alone, whatever other threads of the
 * parent do. The parent branch and the code after the if are concurrent as
 * usual. The pid must come from fork()/vfork() (or a project function whose
 * body returns fork()'s result) and from nothing else. */

static bool fork_name(const char *n)
{
	return str_eq(n, "fork") || str_eq(n, "vfork") || str_eq(n, "__fork") || str_eq(n, "__libc_fork");
}

/* A call that returns a fork() result: fork itself, or a project function
 * every return of which is `return fork();`. */
static bool fork_call(const struct model *m, const struct call *c)
{
	if (!c || c->indirect || !c->name)
		return false;
	if (fork_name(c->name))
		return !model_func_by_usr(m, c->usr);
	const struct mfunc *mf = project_callee(m, c);
	if (!mf)
		return false;
	const struct func *f = mf->f;
	bool any = false;
	for (uint32_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_RETURN)
			continue;
		const struct expr *r = e->u.ret;
		if (r->kind != EX_CALL || r->call < 0 || (uint32_t)r->call >= f->nevents ||
		    f->events[r->call].kind != EV_CALL || f->events[r->call].u.call->indirect ||
		    !fork_name(f->events[r->call].u.call->name))
			return false;
		any = true;
	}
	return any;
}

/* Local var of f holds a fork() result: it is stored from a fork call and
 * from nothing else (no other assignment, no address taken). */
static bool fork_pid_var(const struct model *m, const struct func *f, int32_t var)
{
	bool from_fork = false;
	for (uint32_t i = 0; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind == EV_CALL && e->u.call->result.var == var && plain_path(&e->u.call->result)) {
			if (!fork_call(m, e->u.call))
				return false;
			from_fork = true;
		} else if (e->kind == EV_ASSIGN && e->u.assign->lhs.var == var) {
			const struct expr *r = &e->u.assign->rhs;
			if (r->kind != EX_CALL || r->call < 0 || (uint32_t)r->call >= f->nevents ||
			    f->events[r->call].kind != EV_CALL || !fork_call(m, f->events[r->call].u.call))
				return false;
		} else if (e->kind == EV_ACCESS && e->u.access->ref.var == var &&
			   (e->u.access->ref.addr || (e->u.access->mode & ACC_ADDR))) {
			return false;
		}
	}
	return from_fork;
}

/* Event ei of f runs only in a fork child: some region around it is taken
 * only when a fork pid variable is 0. */
bool in_fork_child(const struct model *m, const struct mfunc *mf, uint32_t ei)
{
	const struct func *f = mf->f;
	int32_t r = f->events[ei].region;
	for (unsigned guard = 0; r >= 0 && (uint32_t)r < f->nregions && guard < 4096; guard++) {
		const struct region *rg = &f->regions[r];
		if ((rg->kind == RG_THEN || rg->kind == RG_ELSE) && rg->cond.nreads == 1 && rg->cond.ncalls == 0 &&
		    plain_path(&rg->cond.reads[0]) && !rg->cond.reads[0].deref) {
			const struct var *v = mf_var(mf, rg->cond.reads[0].var);
			/* then-branch of `v == 0` or `0 == v`, else-branch of `v != 0` */
			if (v && v->kind == VK_LOCAL && zero_branch(rg, v->name) &&
			    fork_pid_var(m, f, rg->cond.reads[0].var))
				return true;
		}
		r = rg->parent;
	}
	return false;
}
