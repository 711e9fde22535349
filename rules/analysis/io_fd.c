/* io_fd.c: descriptors taken from Ruby IO objects (io_fd.h).
 *
 * Sources: Ruby 3.1-3.4 ruby/io.h (rb_io_descriptor, GetOpenFile, FPTR_TO_FD,
 * struct rb_io / rb_io_t's fd), gvl-semantics.md 2.7 and 1.4: an IO's
 * operations registered through rb_thread_io_blocking_region are waited for
 * and interrupted by IO#close; a plain blocking region is not.
 */
#include "io_fd.h"

#include <string.h>

#include "inputs_flow_int.h"
#include "libmodel.h"
#include "util.h"

/* Ruby IO accessors (ruby/io.h) whose result belongs to an IO object. */
static const char *const io_accessors[] = {
	"rb_io_check_closed", "rb_io_descriptor", "rb_io_get_fptr",   "rb_io_get_io",
	"rb_io_get_write_io", "rb_io_mode",       "rb_io_stdio_file", "rb_io_taint_check",
};

static bool rb_io_record(const char *r)
{
	return r && (strcmp(r, "struct rb_io_t") == 0 || strcmp(r, "struct rb_io") == 0);
}

/* rb_funcall(io, rb_intern("fileno"), 0) and friends */
static bool fileno_funcall(const struct call *c)
{
	if (c->nargs < 2 || (!str_eq(c->name, "rb_funcall") && !str_eq(c->name, "rb_funcallv") &&
			     !str_eq(c->name, "rb_funcall2") && !str_eq(c->name, "rb_funcall3")))
		return false;
	const char *t = c->args[1].text;
	return t && (strstr(t, "\"fileno\"") || strstr(t, "\"to_i\""));
}

static int helper_state(const struct model *m, uint32_t fn, int depth);

static bool io_fd_event_d(const struct model *m, const struct mfunc *mf, uint32_t ev, const char **what, int depth)
{
	const struct event *e = &mf->f->events[ev];
	if (e->kind == EV_CALL && !e->u.call->indirect) {
		const struct call *c = e->u.call;
		if (str_in_sorted(c->name, io_accessors, ARRAY_SIZE(io_accessors)) && !model_func_by_usr(m, c->usr)) {
			*what = e->macro && !e->in_macro_arg ? e->macro : c->name;
			return true;
		}
		if (fileno_funcall(c)) {
			*what = "IO#fileno";
			return true;
		}
		const struct mfunc *callee = model_func_by_usr(m, c->usr);
		if (callee && depth < 3 && helper_state(m, callee->id, depth + 1) == 1) {
			*what = callee->f->name;
			return true;
		}
		return false;
	}
	if (e->kind == EV_ACCESS && rb_io_record(e->u.access->ref.record) && str_eq(e->u.access->ref.field, "fd") &&
	    (e->u.access->mode & ACC_READ)) {
		*what = "the fd of a Ruby IO";
		return true;
	}
	return false;
}

/* 1: fn is a gem helper returning a Ruby IO's descriptor (an int-returning
 * function whose return value is computed from one); 0: not. */
/* Local or parameter var of mf is assigned, before event `before`, a value
 * that takes a Ruby IO's descriptor (a call io_fd_event_d recognises, or a
 * read of an rb_io_t's fd). */
static bool local_from_fd(const struct model *m, const struct mfunc *mf, int32_t var, uint32_t before, int depth)
{
	for (uint32_t i = 0; i < before && i < mf->f->nevents; i++) {
		const struct event *e = &mf->f->events[i];
		if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != var ||
		    (e->u.assign->lhs.path && *e->u.assign->lhs.path))
			continue;
		const struct expr *x = &e->u.assign->rhs;
		const char *w;
		if (x->kind == EX_CALL && x->call >= 0 && (uint32_t)x->call < mf->f->nevents &&
		    io_fd_event_d(m, mf, (uint32_t)x->call, &w, depth))
			return true;
		for (uint32_t k = 0; k < x->ncalls; k++)
			if (x->calls[k] >= 0 && (uint32_t)x->calls[k] < mf->f->nevents &&
			    io_fd_event_d(m, mf, (uint32_t)x->calls[k], &w, depth))
				return true;
		for (uint32_t k = 0; k < x->nreads; k++)
			if (x->reads[k].record && rb_io_record(x->reads[k].record) && str_eq(x->reads[k].field, "fd"))
				return true;
	}
	return false;
}

static int helper_state(const struct model *m, uint32_t fn, int depth)
{
	const struct mfunc *mf = &m->fns.v[fn];
	const char *rt = mf->f->ret_type;
	if (!rt || (strcmp(rt, "int") != 0 && strcmp(rt, "long") != 0))
		return 0;
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *r = &mf->f->events[ei];
		if (r->kind != EV_RETURN)
			continue;
		/* the returned expression calls or reads the descriptor */
		for (uint32_t k = 0; k < r->u.ret->ncalls; k++) {
			const char *w;
			int32_t ci = r->u.ret->calls[k];
			if (ci >= 0 && (uint32_t)ci < mf->f->nevents && io_fd_event_d(m, mf, (uint32_t)ci, &w, depth))
				return 1;
		}
		for (uint32_t k = 0; k < r->u.ret->nreads; k++) {
			const struct ref *rr = &r->u.ret->reads[k];
			if (rr->record && rb_io_record(rr->record) && str_eq(rr->field, "fd"))
				return 1;
			/* o = rb_funcall(o, rb_intern("fileno"), 0); return NUM2INT(o); */
			if (rr->var >= 0 && (!rr->path || !*rr->path) && local_from_fd(m, mf, rr->var, ei, depth))
				return 1;
		}
	}
	return 0;
}

bool io_fd_event(const struct model *m, const struct mfunc *mf, uint32_t ev, const char **what)
{
	return io_fd_event_d(m, mf, ev, what, 0);
}

/* Whether the expression uses event `ev` (a call) or, for an access event,
 * reads the same member. */
static bool expr_uses(const struct func *f, const struct expr *x, uint32_t ev)
{
	const struct event *e = &f->events[ev];
	if (e->kind == EV_CALL) {
		if (x->kind == EX_CALL && x->call == (int32_t)ev)
			return true;
		for (uint32_t k = 0; k < x->ncalls; k++)
			if (x->calls[k] == (int32_t)ev)
				return true;
		return false;
	}
	for (uint32_t k = 0; k < x->nreads; k++)
		if (x->reads[k].var == e->u.access->ref.var && str_eq(x->reads[k].field, e->u.access->ref.field))
			return true;
	return false;
}

/* The first event of mf before `limit` that takes a Ruby IO's descriptor and
 * stores it into variable dvar (or into a local later stored there); -1. */
static int32_t fd_into_var(const struct model *m, const struct mfunc *mf, int32_t dvar, uint32_t limit,
			   const char **what)
{
	const struct func *f = mf->f;
	for (uint32_t ei = 0; ei < limit && ei < f->nevents; ei++) {
		const char *w = NULL;
		if (!io_fd_event(m, mf, ei, &w))
			continue;
		/* where it is stored: the data struct itself, or a local later
		 * stored into it */
		for (uint32_t ai = ei; ai < limit && ai < f->nevents; ai++) {
			const struct event *a = &f->events[ai];
			if (a->kind != EV_ASSIGN || !expr_uses(f, &a->u.assign->rhs, ei))
				continue;
			int32_t lhs = a->u.assign->lhs.var;
			if (lhs == dvar) {
				*what = w;
				return (int32_t)ei;
			}
			for (uint32_t bi = ai + 1; bi < limit && bi < f->nevents && lhs >= 0; bi++) {
				const struct event *b = &f->events[bi];
				if (b->kind == EV_ASSIGN && b->u.assign->lhs.var == dvar &&
				    expr_reads_var(&b->u.assign->rhs, lhs)) {
					*what = w;
					return (int32_t)ei;
				}
			}
		}
	}
	return -1;
}

/* The variable an expression names or reads alone (`&args`, `(VALUE)&args`). */
static int32_t expr_var(const struct expr *x)
{
	if (x->kind == EX_REF)
		return x->ref.var;
	return x->nreads == 1 ? x->reads[0].var : -1;
}

struct body_fd {
	const struct model *m;
	const char *what;
	int32_t ev;
	uint32_t fn;
};

static bool body_fd_visit(void *ctx, const struct mfunc *cf, uint32_t ev, const struct expr *data)
{
	struct body_fd *b = ctx;
	int32_t var = expr_var(data);
	int32_t at = var >= 0 ? fd_into_var(b->m, cf, var, ev, &b->what) : -1;
	if (at < 0)
		return false;
	b->ev = at;
	b->fn = cf->id;
	return true;
}

int32_t io_fd_into_data(const struct model *m, const struct msite *s, const char **what, uint32_t *fn)
{
	if (!s->data1)
		return -1;
	int32_t dvar = expr_var(s->data1);
	if (dvar < 0)
		return -1;
	const struct mfunc *mf = &m->fns.v[s->data_fn];
	uint32_t limit = s->data_fn == s->fn ? s->ev : mf->f->nevents;
	*fn = s->data_fn;
	int32_t ev = fd_into_var(m, mf, dvar, limit, what);
	if (ev >= 0)
		return ev;
	/* the data function is a body run on its parameter (rb_ensure(body,
	 * (VALUE)&args, ...), or through the gem's own locking helper): the
	 * descriptor may be stored in the caller */
	const struct var *dv = mf_var(mf, dvar);
	if (!dv || (dv->kind != VK_PARAM && !root_from_param(mf, dvar, limit)))
		return -1;
	struct body_fd b = {.m = m, .ev = -1};
	io_body_runs(m, mf, body_fd_visit, &b);
	if (b.ev < 0)
		return -1;
	*what = b.what;
	*fn = b.fn;
	return b.ev;
}

/* A call that can block on the descriptor it is given: its library model's
 * blocking: {on_fd: true} (POSIX.1-2017 read, recv, poll, accept ...). */
bool io_fd_blocking_call(const char *name)
{
	const struct lib_model *lm = name ? model_find(name) : NULL;
	return lm && str_eq(lm->name, name) && lm->blocking && lm->blocking->on_fd;
}
