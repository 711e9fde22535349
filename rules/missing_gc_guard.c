/* missing-gc-guard: the VALUE owning memory that a no-GVL callback uses is not
 * kept alive past the release call. */
#include <string.h>

#include "inputs_flow.h"
#include <stdlib.h>

#include "rule.h"

/* A plain input: a named VALUE of the releasing frame, not guarded at all
 * (several of one release call are one finding). */
static bool plain_input(const struct io_input *in)
{
	return !in->temporary && !in->helper_local && !in->guard_before.line;
}

static bool same_release(const struct io_input *x, const struct io_input *y)
{
	return x->rel_fn == y->rel_fn && (x->rel_fn < 0 || x->rel_ev == y->rel_ev);
}

/* The function holding the release call of input in, and that call. */
static const struct mfunc *release_of(const struct model *m, const struct io_analysis *a, const struct io_input *in,
				      const struct event **rel)
{
	const struct mfunc *df = &m->fns.v[in->rel_fn >= 0 ? (uint32_t)in->rel_fn : a->fn];
	*rel = &df->f->events[in->rel_fn >= 0 ? in->rel_ev : a->rel];
	return df;
}

/* What a conversion in place puts in the argument's place when it is not a
 * String: StringValue* (#to_str), FilePathValue (rb_get_path: #to_path, then
 * #to_str), SockAddrStringValue (ext/socket: an Addrinfo's packed sockaddr,
 * else #to_str). 0 for any other call. */
enum conversion {
	CONV_NONE = 0,
	CONV_TO_STR,
	CONV_TO_PATH,
	CONV_SOCKADDR
};

static enum conversion conversion_of(const char *name)
{
	if (str_eq(name, "rb_string_value") || str_eq(name, "rb_string_value_ptr") ||
	    str_eq(name, "rb_string_value_cstr"))
		return CONV_TO_STR;
	if (str_eq(name, "rb_get_path"))
		return CONV_TO_PATH;
	if (str_eq(name, "rsock_sockaddr_string_value") || str_eq(name, "rsock_sockaddr_string_value_ptr") ||
	    str_eq(name, "rsock_sockaddr_string_value_with_addrinfo"))
		return CONV_SOCKADDR;
	return CONV_NONE;
}

/* The value a conversion puts there, as the headline ("#to_str's result")
 * and as the note ("the result of #to_str") say it. */
static const char *converted_value(const struct event *conv, bool note)
{
	static const char *const headline[] = {"", "#to_str's result", "#to_path's result",
					       "a new String (an Addrinfo's sockaddr, or #to_str's result)"};
	static const char *const in_note[] = {"", "the result of #to_str", "the result of #to_path",
					      "a new String (an Addrinfo's sockaddr, or the result of #to_str)"};
	enum conversion c = conversion_of(conv->u.call->name);
	return note ? in_note[c] : headline[c];
}

/* A method argument's conversion in place in sf (converted_by), first:
 * the conversion may put #to_str's result in the argument's place. */
static const struct event *argument_conversion(const struct mfunc *sf, const struct io_input *in)
{
	const struct event *conv = NULL;
	for (uint32_t k = 0; k < sf->f->nevents && !conv; k++) {
		const struct event *e = &sf->f->events[k];
		if (e->kind != EV_CALL || !e->u.call->nargs || conversion_of(e->u.call->name) == CONV_NONE)
			continue;
		const struct expr *a0 = &e->u.call->args[0];
		if (a0->kind == EX_REF && a0->ref.var == in->owner_ref.var)
			conv = e;
		for (uint32_t r = 0; r < a0->nreads && !conv; r++)
			if (a0->reads[r].var == in->owner_ref.var)
				conv = e;
	}
	return conv;
}

static const char *event_name(const struct event *e)
{
	return e ? (e->macro && !e->in_macro_arg ? e->macro : e->u.call->name) : NULL;
}

/* What a plain owner's finding rests on: the caller's temporary behind a
 * method argument, a conversion here or in a helper of the gem. */
struct plain_why {
	const struct var *ov;
	int temp;                   /* edge id of a C caller passing a temporary, or -1 */
	const struct event *conv;   /* StringValue* on the argument here */
	const struct mfunc *helper; /* the helper converting its own parameter */
	const struct event *hconv;  /* its conversion */
};

static void plain_why_of(const struct model *m, const struct mfunc *sf, const struct io_input *in, struct plain_why *w)
{
	w->ov = in->owner_ref.var >= 0 ? mf_var(sf, in->owner_ref.var) : NULL;
	/* a method argument: the method's frame holds what Ruby passed, so
	 * say what else it may hold: a C caller's temporary, or the result of
	 * #to_str that a StringValue conversion put in its place */
	w->temp = -1;
	w->conv = NULL;
	if (w->ov && w->ov->kind == VK_PARAM) {
		w->temp = io_param_caller_temp(m, sf, w->ov->param_index);
		if (w->temp < 0)
			w->conv = argument_conversion(sf, in);
	}
	/* the conversion happens in a helper of the gem, on its own
	 * parameter (ruby-pg pg_cstr_enc, #738) */
	w->helper = NULL;
	w->hconv = !w->conv && w->temp < 0 && w->ov && !in->temporary ? io_helper_converts(m, sf, in->ev, &w->helper)
								      : NULL;
}

/* The headline of a plain owner's finding; others are named in it. */
static struct finding *report_plain_headline(struct rule_ctx *rc, const struct msite *s, const struct mfunc *df,
					     const struct event *rel, const struct io_input *in,
					     const struct plain_why *w, const struct io_input *const *others,
					     size_t nothers)
{
	const char *o = in->owner ? in->owner : "?";
	const char *conv_name = event_name(w->conv);
	const char *hconv_name = event_name(w->hconv);
	char names[512] = "", guards[512] = "";
	size_t nl = 0, gl = 0;
	for (size_t k = 0; k < nothers && nl < sizeof(names) && gl < sizeof(guards); k++) {
		const char *on = others[k]->owner ? others[k]->owner : "?";
		nl += (size_t)snprintf(names + nl, sizeof(names) - nl, "%s'%s'", k + 1 < nothers ? ", " : " and ", on);
		gl += (size_t)snprintf(guards + gl, sizeof(guards) - gl, ", RB_GC_GUARD(%s)", on);
	}
	if (w->hconv && !nothers)
		return rule_report(rc, &rel->loc, df->f->name,
				   "nothing keeps '%s' alive past this call%s%s%s when it is not a String: '%s' "
				   "converts it with %s into its own parameter, which is gone when '%s' returns; "
				   "convert it here (StringValue(%s)) before passing it, and add RB_GC_GUARD(%s) "
				   "after the call",
				   o, in->via ? " (to '" : "", in->via ? in->via : "",
				   in->via ? "', which releases the GVL)" : "", w->helper->f->name, hconv_name,
				   w->helper->f->name, o, o);
	if (w->conv && !nothers)
		/* only when the argument is not a String: say so first */
		return rule_report(
			rc, &rel->loc, df->f->name,
			"nothing keeps '%s' alive past this call%s%s%s when it is not a String; %s then puts "
			"%s there, held only by this C local, and the callback uses its memory: "
			"add RB_GC_GUARD(%s) after the call",
			o, in->via ? " (to '" : "", in->via ? in->via : "", in->via ? "', which releases the GVL)" : "",
			conv_name, converted_value(w->conv, false), o);
	return rule_report(rc, &rel->loc, df->f->name,
			   "nothing keeps '%s'%s alive past this call%s%s%s while the callback uses %s memory; "
			   "add RB_GC_GUARD(%s)%s after the call",
			   o, names, in->via ? " (to '" : "", in->via ? in->via : "",
			   in->via ? "', which releases the GVL)" : "", nothers ? "their" : "its", o, guards);
}

/* The notes of a plain owner's finding: why the compiler may drop it, where
 * its address went, and what the argument may hold. */
static void report_plain_notes(struct finding *f, const struct model *m, const struct msite *s, const struct mfunc *sf,
			       const struct event *rel, const struct io_input *in, const struct plain_why *w)
{
	const char *o = in->owner ? in->owner : "?";
	finding_note(f, &rel->loc,
		     "the compiler may drop the VALUE once the pointer (from '%s') is taken, and the GC can then "
		     "free or move the %s while the callback of %s runs",
		     in->what, io_kind_noun(in->kind), s->called);
	/* its address went to a Ruby function (StringValue(x), rb_scan_args(..., &x)): say why that
	 * does not keep it alive (bcrypt-ruby #270 and mysql2 #1504 were this shape, fixed with
	 * RB_GC_GUARD on that very variable) */
	const struct event *esc = NULL;
	for (uint32_t k = 0; w->ov && !in->temporary && k < sf->f->nevents && !esc; k++) {
		const struct event *e = &sf->f->events[k];
		if (e->kind != EV_CALL)
			continue;
		for (uint32_t j = 0; j < e->u.call->nargs && !esc; j++) {
			const struct expr *ax = &e->u.call->args[j];
			if (ax->kind == EX_REF && ax->ref.var == in->owner_ref.var && ax->ref.addr &&
			    (!ax->ref.path || !*ax->ref.path))
				esc = e;
		}
	}
	if (esc)
		finding_note(f, &esc->loc,
			     "the address of '%s' goes to '%s' here, but only for that call: nothing promises its "
			     "stack slot is kept after it (a compiler that sees the callee may reuse it; "
			     "TruffleRuby "
			     "does not scan the C stack); only RB_GC_GUARD after the release call does",
			     o, event_name(esc));
	if (w->temp >= 0) {
		const struct edge *ed = &m->edges.v[w->temp];
		const struct mfunc *cf = &m->fns.v[ed->from];
		const struct event *ce = &cf->f->events[ed->ev];
		const char *text = ce->kind == EV_CALL && (uint32_t)w->ov->param_index < ce->u.call->nargs
					   ? ce->u.call->args[w->ov->param_index].text
					   : NULL;
		finding_note(f, &ce->loc,
			     "'%s' is an argument of '%s', which '%s' calls here with '%s': no frame but this "
			     "one is known to hold that value",
			     o, sf->f->name, cf->f->name, text && *text ? text : "?");
	} else if (w->hconv)
		finding_note(f, &w->hconv->loc,
			     "'%s' converts its parameter here: a #to_str result made by %s lives only in that "
			     "parameter, and nothing holds it after '%s' returns",
			     w->helper->f->name, event_name(w->hconv), w->helper->f->name);
	else if (w->conv)
		finding_note(f, &w->conv->loc,
			     "'%s' is an argument, but '%s' may replace it with %s, which only this C local holds "
			     "(the method's frame holds the original)",
			     o, event_name(w->conv), converted_value(w->conv, true));
}

/* The headline of a temporary, a helper's local or a guard placed too early. */
static struct finding *report_other_headline(struct rule_ctx *rc, const struct msite *s, const struct mfunc *df,
					     const struct event *rel, const struct io_input *in)
{
	const char *noun = io_kind_noun(in->kind);
	const char *o = in->owner ? in->owner : "?";
	if (in->temporary)
		return rule_report(
			rc, &rel->loc, df->f->name,
			"the %s made by '%s' is a temporary that nothing keeps alive, but the callback of %s "
			"uses its memory (taken by '%s'): the GC can free or move it while the callback runs; "
			"store it in a VALUE variable and add RB_GC_GUARD(variable) after the call",
			noun, o, s->called, in->what);
	if (in->helper_local)
		return rule_report(
			rc, &rel->loc, df->f->name,
			"'%s' is local to '%s', so nothing keeps it alive after '%s' returns, but the callback "
			"of %s uses its memory (taken by '%s'); store the VALUE in the data struct as well, or "
			"make the copy in '%s' and add RB_GC_GUARD after the call",
			in->helper_local, in->helper, in->helper, s->called, in->what, df->f->name);
	return rule_report(rc, &rel->loc, df->f->name,
			   "RB_GC_GUARD(%s) is before the call, where it protects nothing: the callback of %s uses "
			   "the memory of '%s' (taken by '%s') until the call returns; move it after the call",
			   o, s->called, o, in->what);
}

/* others: the other plain inputs of the same release call, named in the
 * headline and noted where their pointers are taken */
static struct finding *report(struct rule_ctx *rc, const struct msite *s, const struct io_analysis *a,
			      const struct io_input *in, const struct io_input *const *others, size_t nothers)
{
	const struct model *m = rc->m;
	const struct event *rel = NULL;
	const struct mfunc *df = release_of(m, a, in, &rel);
	const struct mfunc *sf = &m->fns.v[in->fn];
	const struct event *src = &sf->f->events[in->ev];
	const char *o = in->owner ? in->owner : "?";
	struct finding *f;
	if (in->temporary || in->helper_local || in->guard_before.line)
		f = report_other_headline(rc, s, df, rel, in);
	else {
		struct plain_why w;
		plain_why_of(m, sf, in, &w);
		f = report_plain_headline(rc, s, df, rel, in, &w, others, nothers);
		report_plain_notes(f, m, s, sf, rel, in, &w);
	}
	finding_note(f, &src->loc, "the pointer into %s%s%s is taken here%s%s%s",
		     in->temporary ? "the result of '" : "'", o, "'", in->helper ? " (in '" : "",
		     in->helper ? in->helper : "", in->helper ? "')" : "");
	for (size_t k = 0; k < nothers; k++) {
		const struct mfunc *of = &m->fns.v[others[k]->fn];
		finding_note(f, &of->f->events[others[k]->ev].loc, "the pointer into '%s' is taken here",
			     others[k]->owner ? others[k]->owner : "?");
	}
	if (in->guard_before.line)
		finding_note(f, &in->guard_before, "RB_GC_GUARD(%s) is here, before the call", o);
	if (in->via)
		finding_note(f, &rel->loc, "'%s' stores the pointer in the data of its %s call", in->via, s->called);
	finding_site_note(f, m, s, CTX_NOGVL, io_callback_name(m, s));
	return f;
}

/* One finding per call and owner: a call through a function pointer with
 * several targets (ruby-pg's describe helpers run gvl_PQdescribePortal or
 * gvl_PQdescribePrepared through one parameter) is one release call for
 * every site it reaches; the others become notes of the first. */
struct reported {
	struct loc at;
	const char *owner;
	bool temporary;
	struct finding *f;
};
typedef VEC(struct reported) reported_vec;

static struct reported *reported_find(reported_vec *v, const struct loc *at, const struct io_input *in)
{
	for (size_t i = 0; i < v->n; i++) {
		struct reported *r = &v->v[i];
		if (r->at.line == at->line && r->at.col == at->col && str_eq(r->at.file, at->file) &&
		    str_eq(r->owner, in->owner) && r->temporary == in->temporary)
			return r;
	}
	return NULL;
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	reported_vec done = {0};
	struct io_sites it;
	for (io_sites_init(&it, m, true); io_sites_next(&it);) {
		const struct msite *s = it.s;
		const struct io_analysis *a = &it.a;
		for (size_t k = 0; k < a->in.n; k++) {
			const struct io_input *in = &a->in.v[k];
			if (!io_not_alive(in))
				continue;
			/* one finding per owner */
			bool dup = false;
			for (size_t j = 0; j < k; j++)
				if (io_not_alive(&a->in.v[j]) && str_eq(a->in.v[j].owner, in->owner) &&
				    a->in.v[j].temporary == in->temporary && !in->temporary)
					dup = true;
			if (dup)
				continue;
			/* the plain inputs of one release call: one finding, led by the first */
			const struct io_input *others[16];
			size_t nothers = 0;
			if (plain_input(in)) {
				bool led = false;
				for (size_t j = 0; j < k && !led; j++)
					led = io_not_alive(&a->in.v[j]) && plain_input(&a->in.v[j]) &&
					      same_release(&a->in.v[j], in);
				if (led)
					continue;
				for (size_t j = k + 1; j < a->in.n && nothers < ARRAY_SIZE(others); j++) {
					const struct io_input *o2 = &a->in.v[j];
					if (!io_not_alive(o2) || !plain_input(o2) || !same_release(o2, in) ||
					    str_eq(o2->owner, in->owner))
						continue;
					bool seen = false;
					for (size_t q = 0; q < nothers; q++)
						seen = seen || str_eq(others[q]->owner, o2->owner);
					if (!seen)
						others[nothers++] = o2;
				}
			}
			const struct event *rel = NULL;
			release_of(m, a, in, &rel);
			struct reported *prev = reported_find(&done, &rel->loc, in);
			if (prev) {
				if (in->via)
					finding_note(prev->f, &rel->loc,
						     "the same call may also run '%s', which releases the GVL too",
						     in->via);
				continue;
			}
			struct reported r = {rel->loc, in->owner, in->temporary, report(rc, s, a, in, others, nothers)};
			vec_push(&done, r);
		}
	}
	vec_free(&done);
}

const struct rule_desc rule_missing_gc_guard = {
	.slug = "missing-gc-guard",
	.severity = SEV_WARNING,
	.category = "Inputs and outputs",
	.summary = "The VALUE that owns memory a no-GVL callback uses is not kept alive past the release call.",
	.rationale = "Once RSTRING_PTR (or StringValueCStr, RARRAY_CONST_PTR ...) has produced a C pointer, the "
		     "compiler may drop the VALUE from the stack and registers; nothing then stops the GC, which "
		     "other threads run while the GVL is released, from freeing the object or compaction from "
		     "moving an embedded string. doc/extension.rdoc: RB_GC_GUARD must be placed after the last use "
		     "of the pointer, and for a no-GVL call that is the end of the call (bcrypt-ruby PR #270, "
		     "mysql2 PR #1504, ged/ruby-pg #738).",
	.fix = "Add RB_GC_GUARD(v) after the release call for every VALUE whose memory the callback uses, or use "
	       "the VALUE after the call (return it, rb_str_set_len it). Pointers into the receiver's own typed "
	       "data need no guard: the method frame holds self.",
	.flags = 0,
	.run = run,
};
