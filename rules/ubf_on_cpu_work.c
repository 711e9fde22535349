/* ubf-on-cpu-work: RUBY_UBF_IO/RUBY_UBF_PROCESS around a callback that makes no
 * blocking system call. Reported at the release call. */
#include "rule.h"
#include "ubf.h"

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template || (s->ubf_kind != UBF_IO && s->ubf_kind != UBF_PROCESS))
			continue;
		struct cb_scan cs;
		ubf_scan_callback(m, s, &cs);
		/* only a proof of CPU work fires: every callee has a body or is a known
		 * non-blocking library call, nothing polls Ruby's interrupt flag, no
		 * parse error can have hidden a call, and there is work to speak of (a
		 * loop or a library call such as memcpy or deflate; an empty stub
		 * is small-work-nogvl's business) */
		if (!cs.resolved || !cs.clean || cs.nblocking || cs.nopaque || cs.npolls || !cs.nwork) {
			cb_scan_free(&cs);
			continue;
		}
		const char *ubf = site_ubf_spelling(s);
		const char *cb = cbres_name(m, &s->cb);
		bool intr_fail = s->flags_known && (s->flags & 0x1); /* RB_NOGVL_INTR_FAIL / ..._gvl2 */
		struct finding *f = rule_report(
			rc, &s->loc, m->fns.v[s->fn].f->name,
			"%s cannot interrupt '%s': it makes no blocking system call and the signal %s sends only "
			"interrupts system calls%s; pass NULL (and release the GVL only above a size threshold) or a "
			"UBF that sets a cancel flag the callback's loop polls",
			ubf, cb, ubf,
			intr_fail ? ", so cancelling waits for the whole computation"
				  : "; an interrupt that arrives meanwhile is handled after the callback returns and "
				    "discards its result");
		const struct mfunc *root = &m->fns.v[s->cb.targets[0]];
		if (cs.rs.n > 1)
			finding_note(
				f, &root->f->loc,
				"'%s' and the %u function%s it calls make no blocking system call (read, write, poll, "
				"waitpid, ...)",
				root->f->name, cs.rs.n - 1, cs.rs.n == 2 ? "" : "s");
		else
			finding_note(f, &root->f->loc,
				     "'%s' makes no blocking system call (read, write, poll, waitpid, ...)",
				     root->f->name);
		finding_branch_note(f, m, s->cb.targets[0]);
		if (s->macro)
			finding_note(f, &s->loc, "expanded from macro '%s'", s->macro);
		cb_scan_free(&cs);
	}
}

const struct rule_desc rule_ubf_on_cpu_work = {
	.slug = "ubf-on-cpu-work",
	.severity = SEV_WARNING,
	.category = "Unblocking functions",
	.summary = "RUBY_UBF_IO or RUBY_UBF_PROCESS is passed for a callback that makes no blocking system call.",
	.rationale = "Ruby turns RUBY_UBF_IO/RUBY_UBF_PROCESS into ubf_select, which sends SIGVTALRM to the thread: "
		     "that makes a blocking system call return EINTR and does nothing to a CPU loop. With flags 0 "
		     "the pending interrupt is then processed after the callback returns, so the call raises and the "
		     "callback's completed work (an updated hash context, a written buffer) is discarded "
		     "(gvl-semantics 4.2-4.3; Feature #11625 review: \"Having a UBF could even be dangerous\").",
	.fix = "Pass NULL and release the GVL only for inputs large enough to be worth it, or write a custom UBF "
	       "that sets a cancel flag (volatile or atomic) which the callback's loop checks between slices of "
	       "work, and retry or raise after the call.",
	.flags = 0,
	.run = run,
};
