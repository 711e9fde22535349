/* explain_callback.c: --explain-callback NAME, the gate checklist of every
 * release site whose callback is NAME: the verdict data on the model
 * (verdict.h), and for "cannot verify" the one missing fact as the next step. */
#include "explain_callback.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "report.h"

static void print_loc(FILE *out, const struct loc *l)
{
	char *p = display_path(l->file);
	fput_visible(p, out);
	fprintf(out, ":%u:%u", l->line, l->col);
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
		const struct site_verdict *oi = site_verdict_of(m, i);
		if (!oi)
			continue;
		if (shown++)
			fputc('\n', out);
		/* names, paths and messages come from the analysed tree: control
		 * characters are shown, never sent to the terminal */
		fputs("callback '", out);
		fput_visible(name, out);
		fputs("' passed to ", out);
		fput_visible(s->called, out);
		fputs(" at ", out);
		print_loc(out, &s->loc);
		fputs(" (in '", out);
		fput_visible(m->fns.v[s->fn].f->name, out);
		fputs("')\n", out);
		char fl[128];
		fprintf(out, "  flags: %s; unblocking function: %s\n",
			s->flags_known ? gvl_flags_text(s->flags, fl, sizeof(fl)) : "not a constant",
			ubf_kind_text(s->ubf_kind));
		fprintf(out, "  verdict: %s\n", offload_verdict_name(oi->verdict));
		if (oi->withheld_by) {
			const char *pre, *post;
			offload_withheld_advice(oi, &pre, &post);
			fprintf(out, "  withheld (%s): %s ", oi->withheld_by, pre);
			print_loc(out, &oi->withheld_loc);
			fprintf(out, " %s\n", post);
		}
		if (oi->missing.kind != FACT_NONE) {
			char *t = missing_fact_text(&oi->missing);
			fputs("  next step: ", out);
			fput_visible(t, out);
			fputc('\n', out);
			free(t);
		}
		for (int g = 0; g < GATE_COUNT; g++) {
			fprintf(out, "  [%-13s] %s\n", gate_state_name(oi->g.state[g]), gate_name(g));
			for (size_t k = 0; k < oi->g.ev.n; k++) {
				const struct gate_evidence *e = &oi->g.ev.v[k];
				if (e->gate != g)
					continue;
				fputs("      ", out);
				print_loc(out, &e->loc);
				fputs(": ", out);
				fput_visible(e->msg, out);
				fputc('\n', out);
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
	return shown; /* none: the caller says so */
}
