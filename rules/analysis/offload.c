/* offload.c: the offload verdict per release site, and the gates that belong
 * to no other rule area (opaque callees, file descriptors, work size). */
#include "offload.h"
#include "io_fd.h"

#include <fcntl.h> /* F_GETFL ... */
#include <stdio.h> /* SEEK_SET, SEEK_CUR */
#include <stdlib.h>
#include <string.h>

#include "inputs_flow.h"
#include "knowledge.h"
#include "libmodel.h"
#include "ubf.h"

/* Every gate's checker, in GATE_LIST order (src/verdict.h). */
static const gate_checker checkers[GATE_COUNT] = {
#define GATE_CHECKER(id, name, safety, check) check,
	GATE_LIST(GATE_CHECKER)
#undef GATE_CHECKER
};

/* GATE_WITH_GVL: gate_check_ruby_api records it in the same walk. */
void gate_check_none(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	(void)m, (void)s, (void)rs, (void)g;
}

void gate_check_inputs_all(const struct model *m, const struct msite *s, const struct reach_set *rs,
			   struct gate_result *g)
{
	gate_check_inputs(m, s, rs, g);
	gate_check_object_state(m, s, rs, g);
}

void gate_check_ubf_all(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	gate_check_ubf(m, s, rs, g);
	gate_check_unbounded_wait(m, s, rs, g);
}

/* The fact a file with parse errors misses: the header clang did not find
 * ("'zlib.h' file not found"), else a clean parse of the file. */
static void parse_fact(const struct tu_facts *tu, struct gate_evidence *e)
{
	for (size_t i = 0; i < tu->diags.n; i++) {
		const char *msg = tu->diags.v[i].msg;
		const char *nf = msg && msg[0] == '\'' ? strstr(msg, "' file not found") : NULL;
		if (nf && nf > msg + 1) {
			char *h = xstrndup(msg + 1, (size_t)(nf - msg - 1));
			gate_fact(e, FACT_HEADER, h);
			free(h);
			return;
		}
	}
	gate_fact(e, FACT_PARSE, tu->display ? tu->display : tu->path);
}

/* Evidence kept per gate and site (the rest is counted: "... and N more").
 * 3,000 release sites sharing one callback chain each held every piece of
 * every gate's evidence: 3.4 GB and a 650 MB JSON report. The state of each
 * gate is computed from all of it before the cap. */
#define MAX_EVIDENCE_PER_GATE 10

/* Memo of the gates whose evidence depends on the callback alone, or on the
 * callback and one known property of the site, keyed by the callback's
 * targets (and that property): sites sharing a callback share that evidence
 * instead of re-walking the chain. Lives for one offload_compute.
 *   - Ruby API and rb_thread_call_with_gvl: gate_check_ruby_api reads
 *     rs->fns and the functions' events, nothing of the site;
 *   - thread state: the same (gate_check_thread_state ignores the site);
 *   - shared state: the reach set, the targets, and whether a lock is held
 *     at the release call or a wrapper's (shared_state_site_locked).
 * (rs->fns is the breadth-first walk from the targets: the same for every
 * site with the same targets.) The other gates read the site's function,
 * its data argument or its UBF, and run per site. */
struct cb_memo {
	struct hmap by_key; /* "t1,t2,..." -> struct gate_result * */
	struct strpool keys;
};

static void cb_memo_free(struct cb_memo *memo)
{
	hmap_foreach(&memo->by_key, e)
	{
		gate_result_free(e->val);
		free(e->val);
	}
	hmap_free(&memo->by_key);
	strpool_free(&memo->keys);
}

static void copy_evidence(struct gate_result *to, const struct gate_result *from)
{
	for (size_t i = 0; i < from->ev.n; i++) {
		const struct gate_evidence *e = &from->ev.v[i];
		struct gate_evidence *n = gate_add(to, e->gate, e->state, &e->loc, e->fn, "%s", e->msg);
		n->rule = e->rule;
		n->ev = e->ev;
		if (e->fact)
			gate_fact(n, e->fact, e->fact_name);
		for (size_t k = 0; k < e->notes.n; k++)
			gate_note_add(n, &e->notes.v[k].loc, "%s", e->notes.v[k].msg);
	}
	for (size_t i = 0; i < from->basis.n; i++)
		gate_basis_add(to, from->basis.v[i].gate, from->basis.v[i].lm, &from->basis.v[i].loc,
			       from->basis.v[i].fn);
	for (int g = 0; g < GATE_COUNT; g++)
		if (from->state[g] > to->state[g])
			to->state[g] = from->state[g];
}

/* The gate's evidence for this callback (and site property), computed once. */
static void gate_memo(struct cb_memo *memo, int gi, const char *prop, const struct model *m, const struct msite *s,
		      const struct reach_set *rs, struct gate_result *g)
{
	struct strbuf k = {0};
	sb_printf(&k, "%d:%s:", gi, prop);
	for (uint32_t i = 0; i < s->cb.ntargets; i++)
		sb_printf(&k, "%u,", s->cb.targets[i]);
	const char *key = intern(&memo->keys, sb_str(&k));
	sb_free(&k);
	struct gate_result *r = hmap_get(&memo->by_key, key);
	if (!r) {
		r = xcalloc(1, sizeof(*r));
		checkers[gi](m, s, rs, r);
		hmap_put(&memo->by_key, key, r);
	}
	copy_evidence(g, r);
}

static bool same_loc(const struct loc *a, const struct loc *b)
{
	return a->line == b->line && a->col == b->col && (a->file == b->file || str_eq(a->file, b->file));
}

static bool same_evidence(const struct gate_evidence *a, const struct gate_evidence *b)
{
	return a->gate == b->gate && a->state == b->state && same_loc(&a->loc, &b->loc) && str_eq(a->msg, b->msg) &&
	       a->notes.n == 0 && b->notes.n == 0 && a->object_owned == b->object_owned && a->rule == b->rule &&
	       a->fact == b->fact && str_eq(a->fact_name, b->fact_name);
}

/* Drops evidence that repeats earlier evidence word for word at the same
 * place: two calls written once in a macro body (ruby-magic's MAGIC_FUNCTION
 * calls its function in both branches of an if) are one line, not two. */
static void drop_repeated_evidence(struct gate_result *g)
{
	size_t w = 0;
	for (size_t i = 0; i < g->ev.n; i++) {
		struct gate_evidence *e = &g->ev.v[i];
		bool repeat = false;
		for (size_t k = 0; k < w && !repeat; k++)
			repeat = same_evidence(&g->ev.v[k], e);
		if (repeat)
			gate_evidence_free(e);
		else
			g->ev.v[w++] = *e;
	}
	g->ev.n = w;
}

/* Keeps the first MAX_EVIDENCE_PER_GATE pieces of evidence of each gate (and
 * the one at index keep, the missing fact's, wherever it is) and says how
 * many more there were. */
static void cap_evidence(const struct msite *s, struct gate_result *g, size_t keep)
{
	unsigned kept[GATE_COUNT] = {0}, more[GATE_COUNT] = {0};
	int more_state[GATE_COUNT] = {0};
	size_t w = 0;
	for (size_t i = 0; i < g->ev.n; i++) {
		struct gate_evidence *e = &g->ev.v[i];
		int gi = e->gate >= 0 && e->gate < GATE_COUNT ? e->gate : 0;
		if (kept[gi] < MAX_EVIDENCE_PER_GATE || i == keep) {
			kept[gi]++;
			g->ev.v[w++] = *e;
			continue;
		}
		more[gi]++;
		if (e->state > more_state[gi])
			more_state[gi] = e->state;
		gate_evidence_free(e);
	}
	g->ev.n = w;
	for (int gi = 0; gi < GATE_COUNT; gi++)
		if (more[gi])
			gate_add(g, gi, more_state[gi], &s->loc, -1, "... and %u more", more[gi]);
}

/* A release under `if (len > THRESHOLD)` (or any size comparison). */
static bool threshold_guarded(const struct model *m, const struct msite *s)
{
	const struct mfunc *mf = &m->fns.v[s->fn];
	if (s->ev >= mf->f->nevents)
		return false;
	int32_t r = mf->f->events[s->ev].region;
	while (r >= 0 && (uint32_t)r < mf->f->nregions) {
		const struct region *rg = &mf->f->regions[r];
		if ((rg->kind == RG_THEN || rg->kind == RG_ELSE) && rg->cond.text &&
		    (strchr(rg->cond.text, '>') || strchr(rg->cond.text, '<')))
			return true;
		r = rg->parent;
	}
	return false;
}

static void evaluate(struct cb_memo *memo, const struct model *m, const struct msite *s, struct site_verdict *oi)
{
	if (s->is_template) {
		oi->verdict = OV_NOT_EVALUATED;
		return;
	}
	if (!s->api || s->api->kind == API_IO_BLOCKING_REGION || s->api->kind == API_THREAD_IO_BLOCKING_REGION ||
	    s->api->removed) {
		oi->verdict = OV_NOT_APPLICABLE;
		return;
	}
	oi->flagged = s->flags_known && (s->flags & NOGVL_OFFLOAD_SAFE);
	oi->threshold_guard = threshold_guarded(m, s);
	struct reach_set rs;
	model_reach_from(m, &s->cb, (int32_t)s->id, &rs);
	size_t handles_from = 0;
	for (int gi = 0; gi < GATE_COUNT; gi++) {
		if (gi == GATE_INPUTS + 1)
			handles_from = oi->g.ev.n; /* the object evidence of later gates */
		if (gi == GATE_RUBY_API || gi == GATE_THREAD_STATE)
			gate_memo(memo, gi, "", m, s, &rs, &oi->g);
		else if (gi == GATE_SHARED_STATE)
			gate_memo(memo, gi, shared_state_site_locked(m, s) ? "locked" : "", m, s, &rs, &oi->g);
		else
			checkers[gi](m, s, &rs, &oi->g);
	}
	gate_check_object_handles(m, s, &rs, &oi->g, handles_from);
	reach_set_free(&rs);
	if (!s->flags_known)
		gate_fact(gate_add(&oi->g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1,
				   "the flags of this call are not a constant"),
			  FACT_FLAGS, NULL);
	if (s->token_only) {
		struct gate_evidence *e = gate_add(
			&oi->g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1,
			"the call was found by the token scan only (the parser lost it): nothing else is known");
		parse_fact(m->fns.v[s->fn].tu, e);
	}
	int worst = GATE_PASS;
	for (int gi = 0; gi < GATE_COUNT; gi++)
		if (gate_is_safety(gi) && oi->g.state[gi] > worst)
			worst = oi->g.state[gi];
	oi->small_work = oi->g.state[GATE_WORK_SIZE] == GATE_FAIL;
	if (oi->flagged)
		oi->verdict = worst == GATE_FAIL      ? OV_FLAGGED_UNSAFE
			      : worst == GATE_UNKNOWN ? OV_FLAGGED_CANNOT_VERIFY
						      : OV_FLAGGED_SAFE;
	else if (worst == GATE_FAIL || oi->small_work)
		oi->verdict = OV_NOT_SAFE;
	else if (worst == GATE_UNKNOWN)
		oi->verdict = OV_CANNOT_VERIFY;
	else
		oi->verdict = OV_CANDIDATE;
	/* offloading adds a cancellation path that raises: cleanup after the call
	 * outside rb_ensure must be fixed first (unfrozen-input and
	 * missing-gc-guard already fail the inputs gate) */
	const char *what = NULL;
	if (oi->verdict == OV_CANDIDATE && cleanup_after_release(m, s, &oi->withheld_loc, &what))
		oi->withheld_by = "cleanup-not-ensured";
	/* an unblocking function the callback ignores: offloading makes
	 * cancellation routine (a scheduler's timeout or task stop runs the UBF
	 * on the event-loop thread, then waits for the worker), and every such
	 * cancel would hold the fiber and a pool worker for the callback's whole
	 * run: fix the UBF first */
	if (oi->verdict == OV_CANDIDATE && !oi->withheld_by) {
		struct ubf_ignored ig;
		if (ubf_ignored_check(m, s, &ig)) {
			oi->withheld_by = "ubf-ignored";
			oi->withheld_loc = s->loc;
		}
		ubf_ignored_free(&ig);
	}
	/* the missing fact is chosen from all the evidence, and kept by the cap */
	drop_repeated_evidence(&oi->g);
	bool cannot = oi->verdict == OV_CANNOT_VERIFY || oi->verdict == OV_FLAGGED_CANNOT_VERIFY;
	size_t keep = (size_t)-1;
	unsigned others = 0;
	if (cannot) {
		missing_fact_choose(&oi->g, &oi->missing);
		if (oi->missing.ev)
			keep = (size_t)(oi->missing.ev - oi->g.ev.v);
		others = oi->missing.others;
	}
	cap_evidence(s, &oi->g, keep);
	if (cannot) {
		missing_fact_choose(&oi->g, &oi->missing);
		oi->missing.others = others;
	}
}

void offload_compute(struct model *m)
{
	site_verdicts_free(m->verdicts, m->nverdicts);
	m->nverdicts = m->sites.n;
	m->verdicts = xcalloc(m->nverdicts + 1, sizeof(*m->verdicts));
	struct cb_memo memo = {0};
	object_state_begin(m);
	shared_state_begin(m);
	for (uint32_t i = 0; i < m->sites.n; i++)
		evaluate(&memo, m, &m->sites.v[i], &m->verdicts[i]);
	shared_state_end();
	object_state_end();
	cb_memo_free(&memo);
}

/* ---- opaque callees ---- */

/* The first call anywhere in the project to one of names (a function that
 * registers a handler), or NULL. The function making it is memoised. */
static const struct event *find_registration(const struct model *m, const char *const *names, uint32_t *pfn)
{
	char key[MODEL_MEMO_KEY_MAX + 1] = "registration";
	size_t len = strlen(key);
	for (size_t k = 0; names[k] && len < sizeof(key); k++)
		len += (size_t)snprintf(key + len, sizeof(key) - len, "\x01%s", names[k]);
	uintptr_t fn1 = 0; /* that function's index + 1; 0: none */
	bool known = len < sizeof(key) && model_memo_get(m, key, &fn1);
	struct call_walk w;
	for (call_walk_init(&w, m, known ? (int32_t)fn1 - 1 : -1, CALLS_DIRECT); (!known || fn1) && call_walk_next(&w);)
		for (size_t k = 0; names[k]; k++)
			if (str_eq(w.c->name, names[k])) {
				if (len < sizeof(key))
					model_memo_put(m, key, w.fi + 1);
				*pfn = w.fi;
				return w.e;
			}
	if (len < sizeof(key))
		model_memo_put(m, key, 0);
	return NULL;
}

static bool makes_handle(const struct mfunc *mf, int32_t ev)
{
	return io_makes_handle(mf, ev);
}

/* Whether the handle argument of a per-handle library call belongs to this
 * call of fn: the address of a local object (`&strm`, `&st.ctx`) never
 * overwritten by a copy, or a local pointer every assignment of which is a new
 * handle (makes_handle) or NULL, or that such a call fills through its address
 * (sqlite3_open(path, &db)). */
static bool handle_owned(const struct mfunc *mf, const struct event *e, int arg)
{
	const struct call *c = e->u.call;
	if (arg < 0 || (uint32_t)arg >= c->nargs)
		return false;
	const struct expr *a = &c->args[arg];
	if (a->kind != EX_REF || a->ref.var < 0 || a->ref.deref || a->ref.ptr_deref)
		return false;
	const struct var *v = mf_var(mf, a->ref.var);
	if (!v || v->kind != VK_LOCAL)
		return false;
	if (!a->ref.addr && a->ref.path && *a->ref.path)
		return false;
	/* every store to the variable as a whole: a new handle, NULL, or a
	 * `= {0}` initialiser (not a copy of another handle) */
	bool made = false;
	for (uint32_t ei = 0; ei < mf->f->nevents; ei++) {
		const struct event *x = &mf->f->events[ei];
		if (x->kind == EV_ASSIGN && x->u.assign->lhs.var == a->ref.var) {
			const struct assign *as = x->u.assign;
			if (as->lhs.deref)
				continue; /* a write through the pointer, not to it */
			if (as->lhs.path && *as->lhs.path)
				continue; /* a member (next_in ...): data, the inputs gate's business; a copy of
					     the whole object below is what could share a handle's state */
			const struct expr *r = &as->rhs;
			if (as->compound)
				return false;
			if (r->kind == EX_CALL && makes_handle(mf, r->call))
				made = true;
			else if (!(r->kind == EX_NULL || (as->is_init && as->whole_init)))
				return false;
		} else if (x->kind == EV_CALL && x != e) {
			for (uint32_t k = 0; k < x->u.call->nargs; k++) {
				const struct expr *xa = &x->u.call->args[k];
				if (xa->kind == EX_REF && xa->ref.var == a->ref.var && xa->ref.addr && !xa->ref.deref &&
				    !(xa->ref.path && *xa->ref.path) && makes_handle(mf, (int32_t)ei))
					made = true;
			}
		}
	}
	/* a local object is this call's; a local pointer must be made here */
	return a->ref.addr ? true : made;
}

/* A call thread-safe only per handle whose handle is not the frame's own:
 * where the handle comes from, as gate evidence (the object-state part
 * judges an object's guard). Returns true when nothing was added. */
static bool per_handle_ok(const struct model *m, const struct msite *s, const struct mfunc *mf, const struct event *e,
			  const struct lib_model *lm, const char *where, struct gate_result *g)
{
	const struct call *c = e->u.call;
	/* follow the handle out of the callback's data to where it is made */
	struct io_handle ho;
	io_handle_origin(m, s, mf, e, lm->handle_arg, &ho);
	const char *h = ho.name;
	struct gate_evidence *ge = NULL;
	if (ho.origin == IOH_OBJECT && ho.whole) {
		ge = gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &e->loc, (int32_t)mf->id,
			      "'%s' calls '%s', which is thread-safe only per handle (model %s); its handle is the "
			      "typed data of the Ruby object '%s' (in '%s'), taken by '%s': other fibers can use "
			      "that "
			      "object during the call unless an in-progress guard stops them: cannot verify",
			      mf->f->name, c->name, where, ho.obj ? ho.obj : "?", ho.obj_fn ? ho.obj_fn : "?", h);
		gate_note_add(ge, &ho.loc, "the handle comes from '%s' here", h);
		/* the object-state part judges the object's guard */
		ge->object_owned = true;
		ge->obj_rec = ho.rec;
		ge->obj_field = ho.obj;
		ge->obj_whole = true;
	} else if (ho.origin == IOH_OBJECT) {
		ge = gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &e->loc, (int32_t)mf->id,
			      "'%s' calls '%s', which is thread-safe only per handle (model %s); its handle is '%s' "
			      "(in '%s'), state kept in a Ruby object's C struct: other fibers can use that object "
			      "during the call unless an in-progress guard stops them: cannot verify",
			      mf->f->name, c->name, where, h, ho.fn ? ho.fn : "?");
		gate_note_add(ge, &ho.loc, "the handle comes from '%s' here", h);
		/* the object-state part judges that field's guard */
		ge->object_owned = true;
		ge->obj_rec = ho.rec;
		ge->obj_field = ho.field;
	} else if (ho.origin == IOH_UNKNOWN && (!ho.fn || ho.fn == mf->f->name)) {
		ge = gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &e->loc, (int32_t)mf->id,
			      "'%s' calls '%s', which is thread-safe only per handle (model %s); its handle '%s' "
			      "comes from outside the callback, and nothing shows that no other fiber or thread "
			      "uses it during the call",
			      mf->f->name, c->name, where, h);
	} else if (ho.origin == IOH_UNKNOWN) {
		ge = gate_add(g, GATE_INPUTS, GATE_UNKNOWN, &e->loc, (int32_t)mf->id,
			      "'%s' calls '%s', which is thread-safe only per handle (model %s); its handle comes "
			      "from '%s' (in '%s'), %s: nothing shows that no other fiber or thread uses it during "
			      "the "
			      "call",
			      mf->f->name, c->name, where, h, ho.fn,
			      ho.escapes ? "made there but also stored or handed out"
					 : "which is not followed further");
		gate_note_add(ge, &ho.loc, "'%s' is here", h);
	}
	if (ge) {
		gate_fact(ge, FACT_DATA, h);
		gate_basis_add(g, GATE_INPUTS, lm, &e->loc, (int32_t)mf->id);
		return false;
	}
	/* IOH_OWNED: made in the frame that releases (or above it) and never
	 * handed out: this call's own */
	return true;
}

/* The properties of a thread-safe modelled call that still keep a gate from
 * passing: it allocates through Ruby's allocator, runs a handler the gem
 * registered, or blocks in a way a cancelled offloaded operation would wait
 * for. Returns true when none applies. */
static bool model_call_ok(const struct model *m, const struct msite *s, const struct mfunc *mf, const struct event *e,
			  const struct lib_model *lm, struct gate_result *g)
{
	char where[512];
	model_where(lm, where, sizeof(where));
	bool ok = true;
	if (lm->ruby_alloc == 1) {
		/* gvl-semantics rule 9, as for ruby_xmalloc itself: the gate fails */
		struct gate_evidence *ge = gate_add(
			g, GATE_RUBY_API, GATE_FAIL, &e->loc, (int32_t)mf->id,
			"'%s' calls '%s', which allocates through Ruby's allocator (model %s): it needs a Ruby "
			"thread and may raise NoMemoryError, and an offloaded callback's worker may be neither "
			"(gvl-semantics rule 9)",
			mf->f->name, e->u.call->name, where);
		gate_fact(ge, FACT_OTHER, e->u.call->name);
		gate_basis_add(g, GATE_RUBY_API, lm, &e->loc, (int32_t)mf->id);
		ok = false;
	}
	if (lm->registered_by) {
		uint32_t rfn = 0;
		const struct event *reg = find_registration(m, lm->registered_by, &rfn);
		if (reg) {
			struct gate_evidence *ge = gate_add(
				g, GATE_OPAQUE, GATE_UNKNOWN, &e->loc, (int32_t)mf->id,
				"'%s' calls '%s', which may run the handler registered with '%s' (model %s); handlers "
				"that resolve to the gem's functions are followed like the callback's own code, but "
				"not the data a registration hands them, nor a handler that does not resolve",
				mf->f->name, e->u.call->name, reg->u.call->name, where);
			gate_note_add(ge, &reg->loc, "'%s' registers a handler here", reg->u.call->name);
			gate_fact(ge, FACT_OTHER, reg->u.call->name);
			ok = false;
		}
	}
	if (lm->thread_safe == LM_TS_PER_HANDLE && !handle_owned(mf, e, lm->handle_arg) &&
	    !per_handle_ok(m, s, mf, e, lm, where, g))
		ok = false;
	bool ubf_cancels = s->ubf_kind != UBF_NULL && s->ubf_kind != UBF_NONE;
	/* a signal (RUBY_UBF_IO/PROCESS) does not end a wait the library
	 * restarts; a custom UBF is the UBF gate's to judge */
	if ((((lm->blocks == LM_BLOCKS_UNINTERRUPTIBLE || lm->blocks == LM_BLOCKS_RETRIES_EINTR) &&
	      s->ubf_kind != UBF_FUNC) ||
	     (lm->blocks == LM_BLOCKS_INTERRUPTIBLE && !ubf_cancels)) &&
	    !ubf_blocking_call(e->u.call->name)) {
		struct gate_evidence *ge = gate_add(
			g, GATE_UBF, GATE_UNKNOWN, &e->loc, (int32_t)mf->id,
			"'%s' calls '%s', which may block (%s, model %s)%s: a cancelled offloaded operation would wait "
			"for it",
			mf->f->name, e->u.call->name,
			lm->blocks == LM_BLOCKS_RETRIES_EINTR     ? "and retries on EINTR"
			: lm->blocks == LM_BLOCKS_UNINTERRUPTIBLE ? "no signal interrupts it"
								  : "interruptible by a signal",
			where, lm->blocks == LM_BLOCKS_INTERRUPTIBLE ? " and the UBF is NULL" : "");
		gate_fact(ge, FACT_OTHER, e->u.call->name);
		gate_basis_add(g, GATE_UBF, lm, &e->loc, (int32_t)mf->id);
		ok = false;
	}
	return ok;
}

/* A callback without a body in the project: a library function (modelled
 * or not) or a pointer that could not be resolved. */
static void opaque_no_body(const struct msite *s, struct gate_result *g)
{
	const struct lib_model *lm = s->cb.nexternal ? model_find(s->cb.external[0]) : NULL;
	int ts = lm_thread_safety(lm);
	char where[512];
	if (lm && ts == LM_TS_NEVER) {
		/* a library function run directly as the callback (tiny_tds'
		 * dbsqlok) that its model says is not thread-safe */
		gate_add(g, GATE_OPAQUE, GATE_FAIL, &s->loc, -1,
			 "the callback '%s' is a library function that is not thread-safe (model %s)",
			 s->cb.external[0], model_where(lm, where, sizeof(where)));
		gate_basis_add(g, GATE_OPAQUE, lm, &s->loc, -1);
	} else if (lm && ts != LM_TS_UNKNOWN) {
		/* modelled, but the gates do not analyse a library function run
		 * as the callback itself: what is open is its handle, the data
		 * argument */
		gate_fact(gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1,
				   "the callback '%s' is a library function (model %s: thread-safe %s): the "
				   "gates do "
				   "not follow the data argument '%s' into it",
				   s->cb.external[0], model_where(lm, where, sizeof(where)), lm_thread_safe_name(ts),
				   s->data1 && s->data1->text ? s->data1->text : "?"),
			  FACT_DATA, s->data1 && s->data1->text ? s->data1->text : NULL);
		gate_basis_add(g, GATE_OPAQUE, lm, &s->loc, -1);
	} else if (s->cb.nexternal)
		gate_fact(gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1,
				   "the callback '%s' has no body in the project (a library function)",
				   s->cb.external[0]),
			  FACT_MODEL, s->cb.external[0]);
	else
		gate_fact(gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1, "the callback '%s' could not be resolved",
				   s->cb.text ? s->cb.text : "?"),
			  FACT_FNPTR, s->cb.text);
}

/* The functions the gates read that the engine may not see whole: in a file
 * with parse errors (which may have lost the very call that matters; one
 * note per file, at most 8 files), or nested too deep to walk whole
 * (extract.h: EXTRACT_MAX_DEPTH). */
static void opaque_unseen(const struct model *m, const struct msite *s, const struct reach_set *rs,
			  struct gate_result *g)
{
	const struct tu_facts *seen_bad[8];
	unsigned nbad = 0;
	struct site_fns_walk w;
	for (site_fns_walk_init(&w, m, rs, s); site_fns_walk_next(&w);) {
		const struct mfunc *mf = w.mf;
		const struct tu_facts *tu = mf->tu;
		if (!tu->nerrors)
			continue;
		bool dup = false;
		for (unsigned k = 0; k < nbad; k++)
			dup = dup || seen_bad[k] == tu;
		if (dup || nbad == ARRAY_SIZE(seen_bad))
			continue;
		seen_bad[nbad++] = tu;
		parse_fact(tu, gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &mf->f->loc, (int32_t)mf->id,
					"'%s' is in a file that did not parse cleanly (%u error%s): a call may be "
					"missing from what the engine sees",
					mf->f->name, tu->nerrors, tu->nerrors == 1 ? "" : "s"));
	}
	for (site_fns_walk_init(&w, m, rs, s); site_fns_walk_next(&w);)
		if (w.mf->f->flags & FN_TRUNCATED)
			gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &w.mf->f->loc, (int32_t)w.mf->id,
				 "'%s' nests statements or expressions too deeply for the engine to see all of it",
				 w.mf->f->name);
}

/* A call of mf (id fi) to a library function: thread-safe by its model (a
 * basis of the verdict, per-handle calls on their own handle), or open. */
static void opaque_call(const struct model *m, const struct msite *s, const struct mfunc *mf, uint32_t fi,
			const struct event *e, struct gate_result *g)
{
	const struct call *c = e->u.call;
	if (ruby_class_of_call(c) != RC_NONE || ruby_thread_api(c->name))
		return;
	const struct lib_model *lm = model_find(c->name);
	int ts = lm_thread_safety(lm);
	if (ts == LM_TS_ALWAYS || ts == LM_TS_PER_HANDLE) {
		if (model_call_ok(m, s, mf, e, lm, g))
			gate_basis_add(g, GATE_OPAQUE, lm, &e->loc, (int32_t)fi);
		return;
	}
	char where[512];
	struct gate_evidence *ge;
	if (lm && ts == LM_TS_UNKNOWN)
		ge = gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &e->loc, (int32_t)fi,
			      "'%s' calls '%s', whose model (%s) does not say it is thread-safe", mf->f->name, c->name,
			      model_where(lm, where, sizeof(where)));
	else
		ge = gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &e->loc, (int32_t)fi,
			      "'%s' calls '%s', which has no body here and is not a known thread-safe "
			      "library "
			      "call",
			      mf->f->name, c->name);
	if (lm && lm->thread_safe == LM_TS_NEVER)
		gate_basis_add(g, GATE_SHARED_STATE, lm, &e->loc, (int32_t)fi);
	else
		gate_fact(ge, FACT_MODEL, c->name);
}

void gate_check_opaque(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	if (!s->cb.ntargets) {
		opaque_no_body(s, g);
		return;
	}
	opaque_unseen(m, s, rs, g);
	if (s->cb.partial)
		gate_fact(
			gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &s->loc, -1,
				 "the callback variable '%s' is also assigned values the engine cannot follow (or more "
				 "functions than the 64 it analyses)",
				 s->cb.text ? s->cb.text : "?"),
			FACT_FNPTR, s->cb.text);
	struct nogvl_walk w;
	for (nogvl_walk_init(&w, m, rs, NOGVL_SKIP_GEM_CALLS); nogvl_walk_next_fn(&w);) {
		uint32_t fi = w.fi;
		const struct mfunc *mf = w.mf;
		while (nogvl_walk_next_unresolved(&w)) {
			const struct event *ev = w.e;
			gate_fact(gate_add(g, GATE_OPAQUE, GATE_UNKNOWN, &ev->loc, (int32_t)fi,
					   "'%s' calls through a function pointer ('%s') the engine cannot resolve",
					   mf->f->name, ev->u.call->callee.text ? ev->u.call->callee.text : "?"),
				  FACT_FNPTR, ev->u.call->callee.text);
		}
		while (nogvl_walk_next_event(&w))
			if (w.e->kind == EV_CALL)
				opaque_call(m, s, mf, fi, w.e, g);
	}
}

/* ---- file descriptors and FILE * from Ruby IO objects ---- */

/* What a Ruby IO accessor returns belongs to an IO object that another fiber
 * on the calling thread can close while the operation is in flight
 * (gvl-semantics 2.7, RMagick's keep_thread): a descriptor stored into the
 * callback's data fails the gate (design.md, December 2026 revision); any
 * other use of an IO accessor before the call cannot be verified. The
 * recognition (io_fd.c) is io-fd-without-io-region's. */
void gate_check_fd(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g)
{
	(void)rs;
	const struct mfunc *mf = &m->fns.v[s->data_fn];
	const char *what = NULL;
	uint32_t into_fn = s->data_fn;
	int32_t into = io_fd_into_data(m, s, &what, &into_fn);
	if (into >= 0) {
		const struct mfunc *inf = &m->fns.v[into_fn];
		struct gate_evidence *ev =
			gate_add(g, GATE_FD, GATE_FAIL, &inf->f->events[into].loc, (int32_t)into_fn,
				 "'%s' passes a descriptor taken from a Ruby IO (%s) to the callback: another fiber "
				 "can close the IO mid-call",
				 inf->f->name, what);
		ev->ev = into;
		return;
	}
	uint32_t limit = s->data_fn == s->fn ? s->ev : mf->f->nevents;
	for (uint32_t ei = 0; ei < limit && ei < mf->f->nevents; ei++) {
		if (!io_fd_event(m, mf, ei, &what))
			continue;
		gate_add(g, GATE_FD, GATE_UNKNOWN, &mf->f->events[ei].loc, (int32_t)s->data_fn,
			 "'%s' takes %s from a Ruby IO before the release: another fiber could close it mid-call",
			 mf->f->name, what);
		return;
	}
}

/* ---- work size ---- */

/* Whether a call does a small, bounded amount of work: a call of the gem
 * (looked at in its own function), a constant-size library or Ruby call. */
static bool small_call(const struct model *m, const struct call *c)
{
	if (c->indirect)
		return false;
	if (model_func_by_usr(m, c->usr))
		return true;
	/* lseek with SEEK_SET/SEEK_CUR only updates the file offset: no I/O
	 * (SEEK_END may ask a network filesystem for the size, SEEK_DATA/HOLE
	 * read the extent map) */
	if (str_eq(c->name, "lseek") || str_eq(c->name, "lseek64")) {
		const struct expr *wh = c->nargs > 2 ? &c->args[2] : NULL;
		return wh && wh->has_ival && (wh->ival == SEEK_SET || wh->ival == SEEK_CUR);
	}
	/* fcntl reading or setting descriptor and status flags only
	 * updates the file table (F_SETLKW, F_OFD_SETLKW, F_SETLEASE ...
	 * can wait) */
	if (str_eq(c->name, "fcntl") || str_eq(c->name, "fcntl64")) {
		const struct expr *cmd = c->nargs > 1 ? &c->args[1] : NULL;
		return cmd && cmd->has_ival &&
		       (cmd->ival == F_GETFD || cmd->ival == F_SETFD || cmd->ival == F_GETFL || cmd->ival == F_SETFL);
	}
	int sa = cheap_call_size_arg(c->name);
	if (sa >= 0) {
		const struct expr *a = (uint32_t)sa < c->nargs ? &c->args[sa] : NULL;
		return a && a->has_ival && a->ival >= 0 && a->ival <= 65536;
	}
	int rc = ruby_class_of_call(c);
	if ((rc == RC_PURE || rc == RC_ALLOWED) && !waiting_call(c->name)) /* rb_native_cond_wait */
		return true;
	return cheap_call(c->name);
}

/* Whether the i-th function of rs (mf) runs straight through: a clean parse
 * (a missing library header can hide the call that does the real work), no
 * loop, no recursion or call back up the chain. */
static bool straight_fn(const struct model *m, const struct reach_set *rs, uint32_t i, const struct mfunc *mf)
{
	/* a claim of absence needs a clean parse: a missing library header can
	 * hide the call that does the real work */
	if (mf->tu->nerrors || mf->tu->degraded || (mf->f->flags & FN_TRUNCATED))
		return false;
	for (uint32_t r = 0; r < mf->f->nregions; r++)
		if (mf->f->regions[r].kind == RG_LOOP)
			return false;
	for (uint32_t k = mf->edge_begin; k < mf->edge_end; k++) {
		const struct edge *e = &m->edges.v[k];
		/* recursion or a call back up the chain: unbounded */
		if (e->to >= 0 && rs->by_fn[e->to].reached && (uint32_t)e->to != rs->fns[i]) {
			for (uint32_t j = 0; j <= i; j++)
				if (rs->fns[j] == (uint32_t)e->to)
					return false;
		} else if (e->to >= 0 && (uint32_t)e->to == rs->fns[i]) {
			return false;
		}
	}
	return true;
}

void gate_check_work_size(const struct model *m, const struct msite *s, const struct reach_set *rs,
			  struct gate_result *g)
{
	if (!s->cb.ntargets || s->cb.nexternal || rs->n > 8 || rs->nopaque)
		return;
	bool small = true;
	struct nogvl_walk w;
	uint32_t i = 0;
	for (nogvl_walk_init(&w, m, rs, NOGVL_GUARDED_TOO); small && nogvl_walk_next_fn(&w); i++) {
		small = straight_fn(m, rs, i, w.mf);
		while (small && nogvl_walk_next_event(&w))
			if (w.e->kind == EV_CALL)
				small = small_call(m, w.e->u.call);
	}
	if (!small || threshold_guarded(m, s))
		return;
	const struct mfunc *cb = &m->fns.v[s->cb.targets[0]];
	gate_add(g, GATE_WORK_SIZE, GATE_FAIL, &cb->f->loc, (int32_t)s->cb.targets[0],
		 "'%s' does a bounded, small amount of work (no loop, only constant-size calls)", cb->f->name);
}

/* ---- waits nothing can interrupt ---- */

/* With a NULL UBF, a callback that can block without bound cannot be
 * cancelled: under a worker pool the cancelled fiber waits for it forever
 * (io-event waits for every queued or running operation to finish). */
void gate_check_unbounded_wait(const struct model *m, const struct msite *s, const struct reach_set *rs,
			       struct gate_result *g)
{
	(void)rs;
	if (s->ubf_kind != UBF_NULL && s->ubf_kind != UBF_NONE)
		return;
	struct cb_scan cs;
	ubf_scan_callback(m, s, &cs);
	for (size_t i = 0; i < cs.items.n; i++) {
		const struct cb_item *it = &cs.items.v[i];
		if (it->kind != CI_BLOCKING || it->bound == CB_BOUNDED)
			continue;
		const struct mfunc *mf = &m->fns.v[it->fn];
		gate_add(g, GATE_UBF, GATE_UNKNOWN, &mf->f->events[it->ev].loc, (int32_t)it->fn,
			 "'%s' %s ('%s'%s%s) and the UBF is NULL: a cancelled offloaded operation would wait for it",
			 mf->f->name, it->bound == CB_UNBOUNDED ? "can block without bound" : "may block without bound",
			 it->name, it->why ? ", " : "", it->why ? it->why : "");
		break;
	}
	cb_scan_free(&cs);
}
