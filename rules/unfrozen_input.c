/* unfrozen-input: a pointer into a Ruby string or array reaches a no-GVL
 * callback while other code can still modify the object. */
#include <stdlib.h>

#include "inputs_flow.h"
#include "rule.h"

static const char *owner_phrase(struct strbuf *sb, const struct io_input *in)
{
	sb_reset(sb);
	if (in->temporary)
		sb_printf(sb, "the result of '%s'", in->owner ? in->owner : "?");
	else
		sb_printf(sb, "'%s'", in->owner ? in->owner : "?");
	return sb_str(sb);
}

static void report(struct rule_ctx *rc, const struct msite *s, const struct io_input *in)
{
	const struct model *m = rc->m;
	const struct mfunc *sf = &m->fns.v[in->fn];
	const struct event *e = &sf->f->events[in->ev];
	const char *noun = io_kind_noun(in->kind);
	struct strbuf who = {0}, why = {0}, fix = {0};
	const char *o = owner_phrase(&who, in);

	switch (in->state) {
	case IOS_DUP:
		sb_printf(&why,
			  "%s is a copy made by '%s': an ordinary unfrozen %s that code walking ObjectSpace can still "
			  "modify during the call",
			  o, in->why ? in->why : "rb_str_dup", noun);
		break;
	case IOS_EXPOSED:
		sb_printf(&why,
			  "%s was passed to '%s' before the call, so other code can keep it and modify it during "
			  "the call",
			  o, in->why ? in->why : "?");
		break;
	default:
		if (in->owner_param && in->why_fn && in->why_arg && !in->temporary && !str_eq(in->why_arg, in->owner))
			sb_printf(&why,
				  "%s comes from '%s', an argument of '%s' that other threads or fibers can modify "
				  "or free during the call",
				  o, in->why_arg, in->why_fn);
		else if (in->owner_param && in->why_fn)
			sb_printf(&why,
				  "%s is an argument of '%s' that other threads or fibers can modify or free during "
				  "the call",
				  o, in->why_fn);
		else if (in->why)
			sb_printf(&why, "%s comes from '%s', and other code can modify or free it during the call", o,
				  in->why);
		else
			sb_printf(&why, "other code can modify or free %s during the call", o);
		break;
	}
	if (in->kind == IOK_STRING && in->state == IOS_DUP)
		sb_printf(&fix,
			  "use rb_str_new_frozen instead of %s, and keep it alive with RB_GC_GUARD after the call",
			  in->why ? in->why : "rb_str_dup");
	else if (in->kind == IOK_STRING)
		sb_puts(&fix, "pass a frozen copy (rb_str_new_frozen, kept alive with RB_GC_GUARD after the call), "
			      "copy the bytes into memory you own (ALLOCV or xmalloc, then memcpy), or lock it with "
			      "rb_str_locktmp and unlock it in rb_ensure (rb_str_locktmp_ensure)");
	else if (in->kind == IOK_ARRAY && in->state == IOS_DUP)
		sb_puts(&fix, "freeze the copy (rb_obj_freeze) before releasing the GVL, or copy the elements into "
			      "memory you own (ALLOCV_N, then MEMCPY)");
	else if (in->kind == IOK_ARRAY)
		sb_puts(&fix, "pass a frozen copy (rb_obj_freeze(rb_ary_dup(ary)), kept alive with RB_GC_GUARD), or "
			      "copy the elements into memory you own (ALLOCV_N, then MEMCPY)");
	else
		sb_puts(&fix, "copy what the callback needs into memory you own before releasing the GVL");

	bool through = in->via && !str_eq(in->via, s->called);
	/* headline: what and where; the reason and the fix in a note */
	struct finding *f =
		rule_report(rc, &e->loc, sf->f->name,
			    "'%s' gives the callback of %s%s%s%s a pointer into %s %s, which is not frozen, "
			    "copied or locked",
			    in->what, s->called, through ? " (through '" : "", through ? in->via : "",
			    through ? "')" : "", noun, o);
	finding_note(f, &e->loc, "%s; %s", sb_str(&why), sb_str(&fix));
	if (in->why_loc.line && in->why)
		finding_note(f, &in->why_loc,
			     in->state == IOS_EXPOSED ? "'%s' is given the %s here"
			     : in->state == IOS_DUP   ? "'%s' makes the copy here"
						      : "'%s' provides the %s here",
			     in->why, noun);
	if (in->dest && in->dest_loc.line && in->dest_loc.line != e->loc.line)
		finding_note(f, &in->dest_loc, "the pointer is stored in '%s' here", in->dest);
	if (in->via && in->rel_fn >= 0)
		finding_note(f, &m->fns.v[in->rel_fn].f->events[in->rel_ev].loc,
			     "the pointer is passed to '%s' here, which stores it in the data of its %s call", in->via,
			     s->called);
	if (in->helper) {
		uint32_t fn, rel;
		if (io_release_event(m, s, &fn, &rel))
			finding_note(f, &sf->f->loc, "'%s' fills the callback's data for '%s'", in->helper,
				     m->fns.v[fn].f->name);
	}
	finding_site_note(f, m, s, CTX_NOGVL, io_callback_name(m, s));
	sb_free(&who);
	sb_free(&why);
	sb_free(&fix);
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	/* one finding per pointer, however many release calls use the same data */
	VEC(uint64_t) done = {0};
	struct io_sites it;
	for (io_sites_init(&it, m, true); io_sites_next(&it);) {
		const struct msite *s = it.s;
		for (size_t k = 0; k < it.a.in.n; k++) {
			const struct io_input *in = &it.a.in.v[k];
			if (!io_unfrozen(in))
				continue;
			uint64_t key = ((uint64_t)in->fn << 32) | in->ev;
			bool seen = false;
			for (size_t j = 0; j < done.n && !seen; j++)
				seen = done.v[j] == key;
			if (seen)
				continue;
			vec_push(&done, key);
			report(rc, s, in);
		}
	}
	vec_free(&done);
}

const struct rule_desc rule_unfrozen_input = {
	.slug = "unfrozen-input",
	.severity = SEV_WARNING,
	.category = "Inputs and outputs",
	.summary = "A pointer into a Ruby string or array reaches a no-GVL callback while the object is not frozen, "
		   "copied or locked.",
	.rationale = "While the GVL is released other threads run Ruby code, and with RB_NOGVL_OFFLOAD_SAFE other "
		     "fibers of the calling thread do too: any of them can modify, resize or clear the string, which "
		     "frees or moves the buffer the callback is reading (ged/ruby-pg #721: `params.each(&:clear)` "
		     "from another thread). rb_str_dup is not enough: the copy is an ordinary unfrozen string that "
		     "code walking ObjectSpace can still modify (the review of Feature #11625).",
	.fix = "Pass a frozen copy (rb_str_new_frozen) and keep it alive with RB_GC_GUARD after the call; or copy "
	       "the bytes into memory you own (ALLOCV/xmalloc and memcpy); or lock the string with rb_str_locktmp "
	       "and unlock it in an rb_ensure handler (rb_str_locktmp_ensure). A fresh string the function made "
	       "itself (rb_str_new(NULL, n)) is fine as long as no other code has seen it.",
	.flags = 0,
	.run = run,
};
