/* run.c: the driver. */
#include "run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "rules.h"

#define STUB_HEADER_NAME "nogvl-lint-stubs.h"

bool rule_enabled(const struct options *o, const struct rule_desc *rd)
{
	for (size_t i = 0; i < o->disable.n; i++)
		if (strcmp(o->disable.v[i], rd->slug) == 0 || strcmp(o->disable.v[i], "all") == 0)
			return false;
	if (rd->flags & RULE_DEBUG) {
		for (size_t i = 0; i < o->enable.n; i++)
			if (strcmp(o->enable.v[i], rd->slug) == 0)
				return true;
		return false;
	}
	return true;
}

static void progress_cb(void *ctx, size_t done, size_t total, const char *file)
{
	(void)ctx;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, total, file);
	if (done == total)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

int run_analysis(const struct options *o, struct run *r)
{
	memset(r, 0, sizeof(*r));
	char *err = NULL;
	int rc = inputs_build(o, &r->in, &err);
	for (size_t i = 0; i < r->in.warnings.n; i++)
		log_warning("%s", r->in.warnings.v[i]);
	if (rc != 0) {
		log_error("%s", err ? err : "bad input");
		free(err);
		return 2;
	}
	log_verbose(1, "Ruby headers (%s): %s%s", r->in.rh.source, r->in.rh.dirs.n ? r->in.rh.dirs.v[0] : "",
		    r->in.rh.has_offload_flag ? "" : " (no RB_NOGVL_OFFLOAD_SAFE: analysing as Ruby 3.4+ with 0x4)");
	if (!r->in.jobs.n) {
		log_error("no C or C++ source files found");
		return 2;
	}
	struct file_classifier fc = {0};
	fc.ruby_dirs = (const char *const *)r->in.rh.dirs.v;
	fc.nruby_dirs = r->in.rh.dirs.n;
	fc.project_roots = (const char *const *)r->in.roots.v;
	fc.nproject_roots = r->in.roots.n;
	fc.stub_name = STUB_HEADER_NAME;
	struct parse_opts po = {0};
	po.jobs = o->jobs ? o->jobs : cpu_count();
	po.fc = &fc;
	po.verbose = o->verbose;
	po.recover = !o->no_recover;
	/* buildless: an extconf.h for `#include RUBY_EXTCONF_H` (found after the
	 * gem's own directories, so a generated one wins) */
	char *vpath = path_join(r->in.virtual_dir, "extconf.h");
	struct CXUnsavedFile vf = {vpath, "/* nogvl-lint: buildless stand-in for extconf.h */\n", 0};
	vf.Length = (unsigned long)strlen(vf.Contents);
	po.virtual_files = &vf;
	po.nvirtual = 1;
	if (isatty(2) && r->in.jobs.n > 8 && !o->verbose) {
		po.progress = progress_cb;
	}
	double t0 = now_seconds();
	r->ntus = r->in.jobs.n;
	r->tus = parse_all(r->in.jobs.v, r->in.jobs.n, &po);
	double t1 = now_seconds();
	r->t_parse = t1 - t0;
	free(vpath);

	size_t usable = 0;
	for (size_t i = 0; i < r->ntus; i++) {
		struct tu_facts *tu = r->tus[i];
		r->sum.files++;
		if (tu->status == TU_FAILED) {
			r->sum.files_failed++;
			log_warning("%s: not analysed: %s", tu->display, tu->fail_reason ? tu->fail_reason : "?");
			continue;
		}
		usable++;
		if (tu->nerrors) {
			r->sum.files_with_errors++;
			log_verbose(1, "%s: %u parse error%s%s", tu->display, tu->nerrors, tu->nerrors == 1 ? "" : "s",
				    tu->degraded ? " (analysed degraded, with recovery stubs)" : "");
			for (size_t k = 0; k < tu->diags.n && k < 3; k++)
				log_verbose(2, "  %s:%u:%u: %s", tu->diags.v[k].loc.file ? tu->diags.v[k].loc.file : "?",
					    tu->diags.v[k].loc.line, tu->diags.v[k].loc.col, tu->diags.v[k].msg);
		}
		if (tu->degraded)
			r->sum.files_degraded++;
		for (size_t k = 0; k < tu->dropped_flags.n; k++)
			log_verbose(1, "%s: dropped flag %s", tu->display, tu->dropped_flags.v[k]);
	}

	r->model = model_link(r->tus, r->ntus);
	double t2 = now_seconds();
	r->t_link = t2 - t1;

	for (unsigned i = 0; i < rule_count; i++) {
		const struct rule_desc *rd = rule_list[i];
		if (!rule_enabled(o, rd))
			continue;
		struct rule_ctx rc2 = {r->model, rd, &r->findings, rd->severity};
		rd->run(&rc2);
	}
	findings_sort(&r->findings);
	r->t_rules = now_seconds() - t2;

	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (f->suppressed)
			continue;
		if (f->severity == SEV_ERROR)
			r->sum.errors++;
		else if (f->severity == SEV_WARNING)
			r->sum.warnings++;
		else
			r->sum.notes++;
	}
	for (size_t i = 0; i < r->model->sites.n; i++)
		if (!r->model->sites.v[i].is_template)
			r->sum.sites++;
	r->sum.callbacks = r->model->ncallbacks;
	r->sum.unresolved = r->model->nsites_unresolved;
	if (o->verbose) {
		for (size_t i = 0; i < r->model->sites.n; i++) {
			const struct msite *s = &r->model->sites.v[i];
			if (s->is_template || s->cb.ntargets || s->cb.nexternal)
				continue;
			char *p = display_path(s->loc.file);
			log_verbose(1, "%s:%u: callback of %s not resolved (%s: '%s')", p, s->loc.line, s->called,
				    cb_how_text(s->cb.how), s->cb.text ? s->cb.text : "");
			free(p);
		}
		for (size_t t = 0; t < r->ntus; t++) {
			const struct tu_facts *tu = r->tus[t];
			for (size_t i = 0; i < tu->token_sites.n; i++) {
				const struct token_site *ts = &tu->token_sites.v[i];
				if (ts->in_ast)
					continue;
				if (ts->inactive)
					log_verbose(1, "%s:%u: %s not compiled in this configuration", tu->display,
						    ts->loc.line, ts->api);
				else
					log_verbose(1, "%s:%u: %s found only by the token scan (the parser lost it)",
						    tu->display, ts->loc.line, ts->api);
			}
		}
		log_verbose(1, "%zu release sites, %zu callbacks resolved, %zu unresolved; parse %.2fs, link %.3fs, "
			       "rules %.3fs",
			    r->sum.sites, r->sum.callbacks, r->sum.unresolved, r->t_parse, r->t_link, r->t_rules);
	}
	if (!usable) {
		log_error("nothing could be analysed");
		return 2;
	}
	return 0;
}

int run_exit_status(const struct options *o, const struct run *r)
{
	if (r->sum.files_failed == r->sum.files)
		return 2;
	if (o->fail_level == SEV_NONE)
		return 0;
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (!f->suppressed && f->severity >= o->fail_level)
			return 1;
	}
	return 0;
}

void run_free(struct run *r)
{
	findings_free(&r->findings);
	model_free(r->model);
	for (size_t i = 0; i < r->ntus; i++)
		tu_facts_free(r->tus[i]);
	free(r->tus);
	inputs_free(&r->in);
	memset(r, 0, sizeof(*r));
}

/* ---- --dump-facts ---- */

static const char *ev_kind_name(int k)
{
	switch (k) {
	case EV_CALL: return "call";
	case EV_ASSIGN: return "assign";
	case EV_ACCESS: return "access";
	case EV_RETURN: return "return";
	default: return "?";
	}
}

static void dump_ref(FILE *out, const struct tu_facts *tu, const struct ref *r)
{
	const struct var *v = tu_var(tu, r->var);
	fprintf(out, "%s%s%s%s%s%s", r->addr ? "&" : "", v ? v->name : "?", r->path && *r->path ? "." : "",
		r->path ? r->path : "", r->deref ? "(deref)" : "", r->ptr_deref ? "(ptr)" : "");
}

void dump_facts(FILE *out, struct run *r)
{
	for (size_t t = 0; t < r->ntus; t++) {
		const struct tu_facts *tu = r->tus[t];
		fprintf(out, "TU %s status=%d errors=%u degraded=%d stubs=%u\n", tu->display, tu->status, tu->nerrors,
			tu->degraded, tu->nstubs);
		for (size_t i = 0; i < tu->funcs.n; i++) {
			const struct func *f = &tu->funcs.v[i];
			fprintf(out, " fn %s %s:%u\n", f->name, path_basename(f->loc.file ? f->loc.file : "?"), f->loc.line);
			for (uint32_t k = 0; k < f->nevents; k++) {
				const struct event *e = &f->events[k];
				fprintf(out, "  [%u] %u:%u %s%s%s%s rg=%d ", k, e->loc.line, e->loc.col, ev_kind_name(e->kind),
					e->macro ? " macro=" : "", e->macro ? e->macro : "", e->in_macro_arg ? "(arg)" : "",
					e->region);
				if (e->gvl_guard)
					fputs("GUARD ", out);
				switch (e->kind) {
				case EV_CALL:
					fprintf(out, "%s%s origin=%d nargs=%u parent=%d", e->u.call.indirect ? "*" : "",
						e->u.call.name, e->u.call.origin, e->u.call.nargs, e->u.call.parent);
					for (uint32_t a = 0; a < e->u.call.nargs; a++)
						fprintf(out, " |%s| k%d%s", e->u.call.args[a].text, e->u.call.args[a].kind,
							e->u.call.args[a].has_ival ? "=" : "");
					if (e->u.call.result.var >= 0) {
						fputs(" -> ", out);
						dump_ref(out, tu, &e->u.call.result);
					}
					break;
				case EV_ASSIGN:
					dump_ref(out, tu, &e->u.assign.lhs);
					fprintf(out, " = |%s| k%d%s%s", e->u.assign.rhs.text, e->u.assign.rhs.kind,
						e->u.assign.whole_init ? " whole" : "", e->u.assign.is_init ? " init" : "");
					break;
				case EV_ACCESS:
					dump_ref(out, tu, &e->u.access.ref);
					fprintf(out, " mode=%d%s rec=%s", e->u.access.mode,
						e->u.access.atomic_op ? " atomic" : "",
						e->u.access.ref.record ? e->u.access.ref.record : "");
					break;
				case EV_RETURN:
					fprintf(out, "|%s|", e->u.ret.text);
					break;
				}
				fputc('\n', out);
			}
		}
		for (size_t i = 0; i < tu->bindings.n; i++)
			fprintf(out, " binding %s.%s = %s\n", tu->bindings.v[i].record ? tu->bindings.v[i].record : "",
				tu->bindings.v[i].field, tu->bindings.v[i].fn_name);
		for (size_t i = 0; i < tu->token_sites.n; i++)
			fprintf(out, " token %s line %u inactive=%d in_ast=%d cb=%s\n", tu->token_sites.v[i].api,
				tu->token_sites.v[i].loc.line, tu->token_sites.v[i].inactive, tu->token_sites.v[i].in_ast,
				tu->token_sites.v[i].callback ? tu->token_sites.v[i].callback : "");
	}
}
