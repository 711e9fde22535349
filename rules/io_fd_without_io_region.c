/* io-fd-without-io-region: a descriptor taken from a Ruby IO is given to a
 * callback of rb_thread_call_without_gvl / rb_nogvl that blocks on a
 * descriptor, rather than to rb_thread_io_blocking_region. IO#close in another
 * thread neither waits for nor interrupts that call, and the descriptor number
 * can be reused by a new file meanwhile. Recognition: io_fd.c (shared with the
 * offload gate "file descriptors"). */
#include "io_fd.h"
#include "rule.h"

static bool io_region(const struct msite *s)
{
	return s->api && (s->api->kind == API_THREAD_IO_BLOCKING_REGION || s->api->kind == API_IO_BLOCKING_REGION);
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (size_t si = 0; si < m->sites.n; si++) {
		const struct msite *s = &m->sites.v[si];
		if (s->is_template || io_region(s) || s->token_only)
			continue;
		const char *what = NULL;
		uint32_t into_fn = s->data_fn;
		int32_t into = io_fd_into_data(m, s, &what, &into_fn);
		if (into < 0)
			continue;
		struct reach_set rs;
		model_reach_from(m, &s->cb, (int32_t)si, &rs);
		const struct mfunc *bf = NULL;
		uint32_t bev = 0;
		struct nogvl_walk w;
		for (nogvl_walk_init(&w, m, &rs, NOGVL_SKIP_GEM_CALLS); !bf && nogvl_walk_next(&w);)
			if (w.e->kind == EV_CALL && io_fd_blocking_call(w.e->u.call->name)) {
				bf = w.mf;
				bev = w.ei;
			}
		if (bf) {
			const struct event *be = &bf->f->events[bev];
			const struct mfunc *df = &m->fns.v[into_fn];
			struct finding *f = rule_report(
				rc, &be->loc, bf->f->name,
				"'%s' blocks on a Ruby IO's descriptor outside rb_thread_io_blocking_region: IO#close "
				"cannot interrupt it",
				be->u.call->name);
			finding_note(f, &df->f->events[into].loc, "the descriptor is taken from a Ruby IO here (%s)",
				     what);
			finding_chain_set(f, m, rs.by_fn, bf->id, CTX_NOGVL);
			finding_macro_note(f, be);
		}
		reach_set_free(&rs);
	}
}

const struct rule_desc rule_io_fd_without_io_region = {
	.slug = "io-fd-without-io-region",
	.severity = SEV_WARNING,
	.category = "Unblocking functions",
	.summary = "A descriptor taken from a Ruby IO is used by a blocking call in a callback of "
		   "rb_thread_call_without_gvl/rb_nogvl rather than rb_thread_io_blocking_region.",
	.rationale = "rb_thread_io_blocking_region registers the operation on the IO: IO#close in another thread "
		     "interrupts it and waits until it has left the descriptor. A plain blocking region does "
		     "neither: close returns while the callback still blocks in read/recv/poll on the number, the "
		     "kernel may hand that number to the next open() or accept(), and the callback then reads from "
		     "or writes to somebody else's file or socket.",
	.fix = "Use rb_thread_io_blocking_region (or rb_io_blocking_region on Ruby 3.3+) for calls on a Ruby IO's "
	       "descriptor, or wait with rb_io_wait/rb_wait_for_single_fd under the GVL and do the "
	       "non-blocking call after it; a descriptor the extension owns itself (not an IO's) is fine.",
	.flags = 0,
	.run = run,
};
