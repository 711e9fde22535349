/* unset-result: a result is read after a release call that may return without
 * running the callback, although nothing set it before the call.
 *
 * rb_thread_call_without_gvl2 and rb_nogvl(..., RB_NOGVL_INTR_FAIL) return 0
 * without calling the callback when an interrupt is pending. With only
 * RB_NOGVL_OFFLOAD_SAFE the callback runs or the call raises (a cancelled
 * operation raises into the waiting fiber): not a finding. Looked at: fields of the data struct (a local struct whose address is
 * the callback's data), locals the struct points to (a.buf = buf, a.res =
 * &res), and the call's return value dereferenced. A read is fine when the
 * place was set before the call, or on a path where the callback's return
 * value (or a field set before the call) was checked first (design.md).
 */
#include <stdlib.h>
#include <string.h>

#include "inputs_flow.h"
#include "rule.h"

typedef VEC(struct ref) refvec;
/* A place set after the call, and where (its offset). */
struct late_set {
	struct ref ref;
	uint32_t off;
};
typedef VEC(struct late_set) latevec;

static bool encloses(const struct func *f, int32_t outer, int32_t inner)
{
	for (int32_t r = inner; r >= 0; r = f->regions[r].parent)
		if (r == outer)
			return true;
	return false;
}

struct ctx {
	const struct model *m;
	const struct msite *s;
	const struct mfunc *mf;
	uint32_t rel;
	struct ref data;       /* the data struct (a local) */
	refvec captured;       /* locals the struct points to */
	refvec init;           /* places set before the call */
	latevec late;          /* places set after the call, so far */
	int32_t result_var;    /* where the call's return value is stored, -1 */
	uint8_t *check_region; /* regions whose condition checks that the callback ran */
};

static const struct var *cvar(const struct ctx *c, int32_t v)
{
	return mf_var(c->mf, v);
}

static bool is_local(const struct var *v)
{
	return v && v->kind == VK_LOCAL;
}

/* The local struct the data points to: &a, or p after p = &a. */
static bool find_data(struct ctx *c, const struct expr *d1)
{
	if (!d1 || d1->kind != EX_REF || d1->ref.var < 0)
		return false;
	const struct var *v = cvar(c, d1->ref.var);
	if (d1->ref.addr && !d1->ref.deref && is_local(v) && !(v->flags & VF_POINTER)) {
		c->data = d1->ref;
		c->data.addr = 0;
		return true;
	}
	if (!d1->ref.addr && is_local(v) && (v->flags & VF_POINTER) && (!d1->ref.path || !*d1->ref.path)) {
		for (uint32_t i = 0; i < c->rel; i++) {
			const struct event *e = &c->mf->f->events[i];
			if (e->kind != EV_ASSIGN || e->u.assign->lhs.var != d1->ref.var)
				continue;
			const struct expr *x = &e->u.assign->rhs;
			const struct var *w = x->kind == EX_REF ? cvar(c, x->ref.var) : NULL;
			if (x->kind == EX_REF && x->ref.addr && !x->ref.deref && is_local(w)) {
				c->data = x->ref;
				c->data.addr = 0;
				return true;
			}
		}
	}
	return false;
}

static void push_unique(refvec *v, const struct ref *r)
{
	for (size_t i = 0; i < v->n; i++)
		if (ref_same(&v->v[i], r))
			return;
	struct ref x = *r;
	x.addr = 0;
	vec_push(v, x);
}

static bool tracked(const struct ctx *c, const struct ref *r)
{
	if (ref_related(&c->data, r))
		return true;
	for (size_t i = 0; i < c->captured.n; i++)
		if (c->captured.v[i].var == r->var)
			return true;
	return false;
}

static void collect(struct ctx *c)
{
	const struct func *f = c->mf->f;
	for (uint32_t i = 0; i < c->rel; i++) {
		const struct event *e = &f->events[i];
		if (e->kind != EV_ASSIGN || !ref_related(&c->data, &e->u.assign->lhs))
			continue;
		/* a.buf = buf, a.res = &res: the callback writes through them */
		const struct expr *x = &e->u.assign->rhs;
		if (x->kind != EX_REF || x->ref.deref || (x->ref.path && *x->ref.path))
			continue;
		const struct var *w = cvar(c, x->ref.var);
		if (is_local(w) && !(w->flags & VF_VALUE) && (x->ref.addr || (w->flags & VF_ARRAY)))
			push_unique(&c->captured, &x->ref);
	}
	for (uint32_t i = 0; i < c->rel; i++) {
		const struct event *e = &f->events[i];
		if (e->kind == EV_ASSIGN && e->u.assign->lhs.var >= 0 && tracked(c, &e->u.assign->lhs)) {
			struct ref r = e->u.assign->lhs;
			if (e->u.assign->whole_init)
				r.path = "";
			push_unique(&c->init, &r);
		} else if (e->kind == EV_CALL) {
			/* memset(&a, ...), init(&a.ctx), memset(buf, ...), read(fd, buf, n) */
			for (uint32_t k = 0; k < e->u.call->nargs; k++) {
				const struct expr *a = &e->u.call->args[k];
				if (a->kind != EX_REF || a->ref.var < 0 || !tracked(c, &a->ref))
					continue;
				const struct var *w = cvar(c, a->ref.var);
				if (a->ref.addr || (w && (w->flags & VF_ARRAY)))
					push_unique(&c->init, &a->ref);
			}
		}
	}
}

/* Setting place `set` sets what a read of r reads: the same variable, one
 * path a prefix of the other (the whole struct, or the field). */
static bool sets_read(const struct ref *set, const struct ref *r)
{
	return set->var == r->var && (ref_path_prefix(set->path, r->path) || ref_path_prefix(r->path, set->path));
}

static bool initialised(const struct ctx *c, const struct ref *r)
{
	for (size_t i = 0; i < c->init.n; i++)
		if (sets_read(&c->init.v[i], r))
			return true;
	return false;
}

/* Does this condition tell whether the callback ran? */
static bool checks(const struct ctx *c, const struct expr *cond)
{
	for (uint32_t k = 0; k < cond->ncalls; k++)
		if (cond->calls[k] == (int32_t)c->rel)
			return true;
	for (uint32_t k = 0; k < cond->nreads; k++) {
		const struct ref *r = &cond->reads[k];
		if (c->result_var >= 0 && r->var == c->result_var)
			return true;
		if (ref_related(&c->data, r) && r->path && *r->path && initialised(c, r))
			return true;
	}
	if (cond->kind == EX_REF) {
		if (c->result_var >= 0 && cond->ref.var == c->result_var)
			return true;
		if (ref_related(&c->data, &cond->ref) && initialised(c, &cond->ref))
			return true;
	}
	return false;
}

/* Does the condition being true mean the callback ran? `if (r)`, `!= NULL`,
 * `if (a.done)`: yes; `if (!r)`, `== NULL`, `== 0`: no. */
static bool true_means_ran(const struct region *rg)
{
	const char *t = rg->cond.text ? rg->cond.text : "";
	if (strstr(t, "!="))
		return true;
	if (rg->negated || strstr(t, "=="))
		return false;
	return true;
}

/* The first label past region rg that a forward goto inside it jumps to
 * (RG_GOTO, by offset), or UINT32_MAX: the path of an early exit `if (!ran)
 * goto out;` resumes there, so what follows the label is reached whether or
 * not the callback ran. A backward goto (a retry) leaves the path as a return
 * does, and a label inside rg keeps the path inside it. */
static uint32_t forward_label(const struct func *f, const struct region *rg)
{
	uint32_t first = UINT32_MAX;
	for (uint32_t r = 0; r < f->nregions; r++) {
		const struct region *g = &f->regions[r];
		if (g->kind == RG_GOTO && g->begin >= rg->begin && g->begin < rg->end && g->end >= rg->end &&
		    g->end < first)
			first = g->end;
	}
	return first;
}

/* Is the read at event i on a path where the callback is known to have run
 * (design.md: "fine on the path where the callback's return value was
 * checked first")? */
static bool checked_at(const struct ctx *c, uint32_t i)
{
	const struct func *f = c->mf->f;
	const struct event *e = &f->events[i];
	/* inside a branch or loop body on the "ran" side of the check */
	for (int32_t r = e->region; r >= 0; r = f->regions[r].parent) {
		if (!c->check_region[r])
			continue;
		const struct region *rg = &f->regions[r];
		bool ran = true_means_ran(rg);
		if (rg->kind == RG_THEN && ran)
			return true;
		if (rg->kind == RG_ELSE && !ran)
			return true;
		if (rg->kind == RG_LOOP && ran && e->loc.off >= rg->cond_end)
			return true; /* while ((r = ...) != NULL) { body } */
	}
	/* after an early exit on the "did not run" side, or a retry loop */
	for (uint32_t r = 0; r < f->nregions; r++) {
		if (!c->check_region[r])
			continue;
		const struct region *rg = &f->regions[r];
		if (rg->end > e->loc.off || rg->parent < 0 || !encloses(f, rg->parent, e->region))
			continue;
		bool ran = true_means_ran(rg);
		if (rg->kind == RG_LOOP && !ran)
			return true; /* while (call(...) == NULL) retry; */
		/* if (!r) return ...; and `if (!r) goto out;` for what the goto
		 * skips, not what follows its label */
		if (rg->kind == RG_THEN && rg->ends_with_return && !ran && e->loc.off < forward_label(f, rg))
			return true;
	}
	return false;
}

/* Is the assignment at offset at jumped over, on the way to the read at
 * event i, by an early exit on the "did not run" side (`if (!r) goto out;`
 * before it, the label `out:` after it and before the read)? */
static bool jumped_over(const struct ctx *c, uint32_t at, uint32_t i)
{
	const struct func *f = c->mf->f;
	const struct event *e = &f->events[i];
	for (uint32_t r = 0; r < f->nregions; r++) {
		const struct region *rg = &f->regions[r];
		if (!c->check_region[r] || rg->kind != RG_THEN || !rg->ends_with_return || true_means_ran(rg) ||
		    rg->end > at || rg->parent < 0 || !encloses(f, rg->parent, e->region))
			continue;
		uint32_t label = forward_label(f, rg);
		if (at < label && label <= e->loc.off)
			return true;
	}
	return false;
}

/* Was the place read at event i set after the call, on every path to the
 * read? */
static bool set_after_call(const struct ctx *c, const struct ref *r, uint32_t i)
{
	for (size_t k = 0; k < c->late.n; k++) {
		if (sets_read(&c->late.v[k].ref, r) && !jumped_over(c, c->late.v[k].off, i))
			return true;
	}
	return false;
}

static const char *reason(const struct msite *s)
{
	if (s->flags & NOGVL_INTR_FAIL) {
		if (s->api && s->api->kind == API_WITHOUT_GVL2 && s->inner < 0)
			return "rb_thread_call_without_gvl2 returns 0 without running it when an interrupt is pending";
		return "with RB_NOGVL_INTR_FAIL the call returns 0 without running it when an interrupt is pending";
	}
	if (s->flags & NOGVL_PENDING_INTR_FAIL)
		return "with RB_NOGVL_PENDING_INTR_FAIL the call returns 0 without running it when an interrupt is "
		       "pending";
	return "the call may return without running it";
}

static void check_site(struct rule_ctx *rc, const struct msite *s)
{
	/* RB_NOGVL_OFFLOAD_SAFE alone: the callback runs, or the call raises (a
	 * cancelled operation raises into the waiting fiber), so a read after it
	 * is never reached with the result unset */
	if (!s->flags_known || !(s->flags & (NOGVL_INTR_FAIL | NOGVL_PENDING_INTR_FAIL)))
		return;
	struct ctx c = {0};
	c.m = rc->m;
	c.s = s;
	uint32_t fn;
	if (!io_release_event(rc->m, s, &fn, &c.rel))
		return;
	c.mf = &rc->m->fns.v[fn];
	const struct func *f = c.mf->f;
	const struct event *rel = &f->events[c.rel];
	c.result_var = rel->u.call->result.var >= 0 && (!rel->u.call->result.path || !*rel->u.call->result.path)
			       ? rel->u.call->result.var
			       : -1;
	bool have_data = find_data(&c, s->data1);
	if (have_data)
		collect(&c);
	c.check_region = xcalloc(f->nregions + 1, 1);
	for (uint32_t r = 0; r < f->nregions; r++)
		if (f->regions[r].kind != RG_BODY && checks(&c, &f->regions[r].cond))
			c.check_region[r] = 1;

	refvec done = {0};
	for (uint32_t i = c.rel + 1; i < f->nevents; i++) {
		const struct event *e = &f->events[i];
		if (e->kind == EV_ASSIGN && e->u.assign->lhs.var >= 0 && have_data && tracked(&c, &e->u.assign->lhs)) {
			/* set after the call: later reads are fine, unless a goto
			 * from where the callback did not run jumps over it */
			vec_push(&c.late, ((struct late_set){e->u.assign->lhs, e->loc.off}));
			continue;
		}
		if (e->kind != EV_ACCESS || !(e->u.access->mode & ACC_READ))
			continue;
		const struct ref *r = &e->u.access->ref;
		/* the return value dereferenced */
		if (c.result_var >= 0 && r->var == c.result_var && r->deref) {
			const struct var *v = cvar(&c, r->var);
			struct ref whole = {.var = r->var, .path = ""};
			bool seen = false;
			for (size_t k = 0; k < done.n; k++)
				seen |= ref_same(&done.v[k], &whole);
			if (!seen && v && (v->flags & VF_POINTER) && !checked_at(&c, i)) {
				push_unique(&done, &whole);
				struct finding *fd = rule_report(rc, &e->loc, f->name,
								 "'%s' is dereferenced after %s without a check, but "
								 "it is NULL when the callback did "
								 "not run (%s); check it before using it",
								 v->name, s->called, reason(s));
				finding_note(fd, &rel->loc, "'%s' is the value returned by %s here", v->name,
					     s->called);
				finding_site_note(fd, rc->m, s, CTX_NOGVL, io_callback_name(rc->m, s));
			}
			continue;
		}
		if (!have_data || !tracked(&c, r))
			continue;
		bool is_data = ref_related(&c.data, r);
		if (is_data && (!r->path || !*r->path || strlen(r->path) <= strlen(c.data.path ? c.data.path : "")))
			continue; /* the struct as a whole (passed on), not a result field */
		if (initialised(&c, r) || set_after_call(&c, r, i) || checked_at(&c, i))
			continue;
		struct ref key = *r;
		if (!is_data)
			key.path = "";
		bool seen = false;
		for (size_t k = 0; k < done.n; k++)
			seen |= ref_same(&done.v[k], &key);
		if (seen)
			continue;
		push_unique(&done, &key);
		const char *name = ref_text(c.mf->tu, &key);
		struct finding *fd;
		if (is_data)
			fd = rule_report(
				rc, &e->loc, f->name,
				"'%s' is read after %s, but the callback may not have run (%s) and '%s' is not set "
				"before the call, so it holds stack garbage; initialise it before the call (e.g. "
				"`= {0}`) or check the callback's return value first",
				name, s->called, reason(s), name);
		else
			fd = rule_report(
				rc, &e->loc, f->name,
				"'%s', the callback's output buffer, is read after %s, but the callback may not "
				"have run (%s) and '%s' is not set before the call; initialise it before the call "
				"or check the callback's return value first",
				name, s->called, reason(s), name);
		finding_site_note(fd, rc->m, s, CTX_NOGVL, io_callback_name(rc->m, s));
	}
	vec_free(&done);
	vec_free(&c.captured);
	vec_free(&c.init);
	vec_free(&c.late);
	free(c.check_region);
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	struct io_sites it;
	for (io_sites_init(&it, m, false); io_sites_next(&it);)
		check_site(rc, it.s);
}

const struct rule_desc rule_unset_result = {
	.slug = "unset-result",
	.severity = SEV_WARNING,
	.category = "Inputs and outputs",
	.summary = "A result is read after a release call that may not run the callback, without having been set "
		   "before the call.",
	.rationale = "rb_thread_call_without_gvl2 and rb_nogvl(..., RB_NOGVL_INTR_FAIL) check for pending "
		     "interrupts first and, if there are any, return 0 without calling the callback (a call with "
		     "only RB_NOGVL_OFFLOAD_SAFE runs the callback or raises, so it is not reported). A result "
		     "field the callback would have written then holds stack garbage (sirupsen/sysvmq PR #3: a "
		     "segfault and rb_sys_fail with errno 0).",
	.fix = "Initialise the data struct before the call (`struct args a = {0};` or memset) and give the "
	       "results a value that means \"did not run\", or check the callback's return value (non-NULL when it "
	       "ran) before reading results, and retry or call rb_thread_check_ints when it did not run. Plain "
	       "rb_thread_call_without_gvl always runs the callback unless it raises.",
	.flags = 0,
	.run = run,
};
