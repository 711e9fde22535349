/* ubf-ignored: a custom UBF sets a flag (or writes a pipe/eventfd) that the
 * callback never reads (or waits on). Reported at the release call; the proof
 * is ubf_ignored_check (rules/analysis/ubf_ignored_scan.c). */
#include <string.h>

#include "rule.h"
#include "ubf.h"

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		struct ubf_ignored ig;
		if (!ubf_ignored_check(m, s, &ig)) {
			ubf_ignored_free(&ig);
			continue;
		}
		const struct ubf_scan *us = &ig.us;
		const struct cb_scan *cs = &ig.cs;
		const struct ubf_item *first_flag = ig.first_flag, *first_pipe = ig.first_pipe;
		bool waits_other = ig.waits_other;
		const char *ubf = cbres_name(m, &s->ubf);
		const char *cb = cbres_name(m, &s->cb);
		const char *flag = first_flag ? first_flag->name : NULL;
		struct finding *f;
		if (first_flag && first_pipe)
			f = rule_report(
				rc, &s->loc, m->fns.v[s->fn].f->name,
				"the unblocking function '%s' sets '%s' and writes to a pipe, but nothing reads the "
				"flag and the callback '%s' never waits on the pipe: cancelling has no effect and "
				"Thread#kill or Ctrl-C wait for the callback to finish; check '%s' in the "
				"callback's loop",
				ubf, flag, cb, flag);
		else if (first_flag)
			f = rule_report(
				rc, &s->loc, m->fns.v[s->fn].f->name,
				"the unblocking function '%s' sets '%s', but nothing reads it: the callback '%s' "
				"never checks it, so cancelling has no effect and Thread#kill or Ctrl-C wait for the "
				"callback to "
				"finish; check '%s' in the callback's loop and return early",
				ubf, flag, cb, flag);
		else
			f = rule_report(
				rc, &s->loc, m->fns.v[s->fn].f->name,
				"the unblocking function '%s' writes to a pipe or eventfd, but the callback '%s' "
				"never waits on it: cancelling has no effect and Thread#kill or Ctrl-C wait for "
				"the callback to finish; poll the pipe's read end together with the callback's "
				"own descriptors",
				ubf, cb);
		for (size_t k = 0; k < us->items.n; k++) {
			const struct ubf_item *it = &us->items.v[k];
			if (it->kind != UI_FLAG && it->kind != UI_PIPE)
				continue;
			const struct mfunc *mf = &m->fns.v[it->fn];
			const struct event *e = &mf->f->events[it->ev];
			if (it->kind == UI_FLAG)
				finding_note(f, &e->loc, "'%s' sets '%s' here", mf->f->name,
					     ref_text(mf->tu, &it->ref));
			else
				finding_note(f, &e->loc, "'%s' writes with '%s' here", mf->f->name, it->name);
		}
		const struct mfunc *root = &m->fns.v[s->cb.targets[0]];
		finding_note(f, &root->f->loc, "'%s'%s never %s", root->f->name,
			     cs->rs.n > 1 ? " (and the functions it calls)" : "",
			     first_flag && first_pipe ? "reads the flag or waits on a descriptor"
			     : first_flag             ? "reads the flag"
			     : waits_other            ? "waits on the pipe's descriptor (only on others)"
						      : "waits on a descriptor");
		if (s->macro)
			finding_note(f, &s->loc, "expanded from macro '%s'", s->macro);
		ubf_ignored_free(&ig);
	}
}

const struct rule_desc rule_ubf_ignored = {
	.slug = "ubf-ignored",
	.severity = SEV_WARNING,
	.category = "Unblocking functions",
	.summary = "A custom unblocking function sets a flag (or writes a pipe or eventfd) that the callback never "
		   "reads (or waits on).",
	.rationale = "Ruby calls the UBF to stop the callback on Thread#kill, Thread#raise, Timeout and Ctrl-C, then "
		     "waits for the callback to return. A flag nobody checks and a pipe nobody polls change nothing: "
		     "the interrupt waits for the callback to finish on its own. The working patterns poll the flag "
		     "between slices of work (zlib `while (!args->interrupt)`, bignum `if (bds->stop)`) or wait on "
		     "the pipe's read end (gvl-semantics 4.4).",
	.fix = "Check the flag in the callback's loop and return early (then retry or raise after the call), or "
	       "add the pipe's read end to the poll/select the callback blocks in and return when it is readable.",
	.flags = 0,
	.run = run,
};
