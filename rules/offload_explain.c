/* offload_explain.c: --explain-callback NAME, the gate checklist of every
 * release site whose callback is NAME. */
#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "offload.h"
#include "report.h"

static void print_loc(FILE *out, const struct loc *l)
{
	char *p = display_path(l->file);
	fprintf(out, "%s:%u:%u", p, l->line, l->col);
	free(p);
}

int offload_explain(FILE *out, const struct model *m, const char *name)
{
	int shown = 0;
	for (uint32_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template)
			continue;
		bool match = false;
		for (uint32_t t = 0; t < s->cb.ntargets; t++)
			match = match || str_eq(m->fns.v[s->cb.targets[t]].f->name, name);
		for (uint32_t t = 0; t < s->cb.nexternal; t++)
			match = match || str_eq(s->cb.external[t], name);
		if (!match)
			continue;
		const struct offload_info *oi = offload_info(m, i);
		if (shown++)
			fputc('\n', out);
		fprintf(out, "callback '%s' passed to %s at ", name, s->called);
		print_loc(out, &s->loc);
		fprintf(out, " (in '%s')\n", m->fns.v[s->fn].f->name);
		char fl[128];
		fprintf(out, "  flags: %s; unblocking function: %s\n",
			s->flags_known ? gvl_flags_text(s->flags, fl, sizeof(fl)) : "not a constant",
			ubf_kind_text(s->ubf_kind));
		fprintf(out, "  verdict: %s\n", offload_verdict_name(oi->verdict));
		if (oi->withheld_by) {
			fprintf(out, "  withheld (%s): move the cleanup at ", oi->withheld_by);
			print_loc(out, &oi->withheld_loc);
			fputs(" into an rb_ensure handler first: offloading adds a cancellation path that raises\n", out);
		}
		for (int g = 0; g < GATE_COUNT; g++) {
			fprintf(out, "  [%-13s] %s\n", gate_state_name(oi->g.state[g]), gate_name(g));
			for (size_t k = 0; k < oi->g.ev.n; k++) {
				const struct gate_evidence *e = &oi->g.ev.v[k];
				if (e->gate != g)
					continue;
				fputs("      ", out);
				print_loc(out, &e->loc);
				fprintf(out, ": %s\n", e->msg);
			}
			for (size_t k = 0; k < oi->g.basis.n; k++) {
				const struct gate_basis *b = &oi->g.basis.v[k];
				if (b->gate != g)
					continue;
				fputs("      model: ", out);
				fput_visible(b->lm->name, out);
				fprintf(out, " (%s, thread_safe: %s) from ", b->lm->library,
					lm_thread_safe_name(b->lm->thread_safe));
				fput_visible(b->lm->file, out);
				fprintf(out, ":%u%s, called at ", b->lm->line,
					b->lm->user ? (b->lm->overrides ? ", a user model overriding the built-in one"
									 : ", a user model")
						    : "");
				print_loc(out, &b->loc);
				fputs("; source: ", out);
				fput_visible(b->lm->source, out);
				fputc('\n', out);
			}
		}
	}
	if (!shown)
		fprintf(out, "no release site has a callback named '%s'\n", name);
	return shown;
}
