/* run.c: the driver. */
#include "run.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clang_api.h"
#include "facts_io.h"
#include <xxhash.h>
#include "gvlapi.h"
#include "fingerprint.h"
#include "libmodel.h"
#include "log.h"
#include "offload.h"
#include "invariant.h"
#include "run_parts.h"
#include "json_text.h"
#include "rule.h"
#include "sysprobe.h"

#define STUB_HEADER_NAME "nogvl-lint-stubs.h"

/* Progress on a terminal: drawn only once the run has taken a while, and at
 * most ten times a second, so short runs and logs stay clean. */
struct progress {
	double start, last;
	bool drawn;
};

static void progress_cb(void *ctx, size_t done, size_t total, const char *file)
{
	struct progress *p = ctx;
	double now = now_seconds();
	/* the log's stream: while libclang runs here, fd 2 is not the terminal (outguard.h) */
	FILE *err = log_stream ? log_stream : stderr;
	if (done == total) {
		if (p->drawn)
			fputs("\r\033[K", err);
		fflush(err);
		return;
	}
	if (now - p->start < 1.0 || now - p->last < 0.1)
		return;
	p->last = now;
	p->drawn = true;
	fprintf(err, "\r\033[K[%zu/%zu] ", done, total);
	fput_visible(path_basename(file), err);
	fflush(err);
}

/* The Ruby headers a .nogvl-lint.yml names (ruby_include), read from the
 * configuration of the first input; the command line wins. */
static const strlist *config_ruby_dirs(const struct options *o, struct run *r)
{
	if (o->ruby_includes.n)
		return NULL;
	const char *first = o->compile_commands ? o->compile_commands : o->paths.n ? o->paths.v[0] : ".";
	char *abs = path_absolute(first);
	bool dir = path_is_dir(abs);
	const strlist *l = config_ruby_include(config_for_path(&r->cfg, abs, dir));
	free(abs);
	return l;
}

/* What every cache entry of this run depends on besides its own file: the
 * tool, the facts format, libclang, the Ruby headers and the parse options. */
static uint64_t cache_salt(const struct options *o, const struct run *r)
{
	struct strbuf sb = {0};
	/* libclang by its file (size and time: a package upgrade changes
	 * them), so this process need not load it (clang_api.h) */
	struct stat lst;
	const char *lib = clang_api_path() ? clang_api_path() : "";
	bool have = stat(lib, &lst) == 0;
	sb_printf(&sb, "%s\n%d\n%s %lld %lld\n%d%d\n", NOGVL_VERSION, FACTS_FORMAT_VERSION, lib,
		  have ? (long long)lst.st_size : -1LL, have ? (long long)lst.st_mtime : -1LL, !o->no_recover,
		  o->ruby34_view);
	for (size_t i = 0; i < r->in.rh.dirs.n; i++) {
		sb_printf(&sb, "%s\n", r->in.rh.dirs.v[i]);
		char *cfg = path_join(r->in.rh.dirs.v[i], "ruby/config.h");
		size_t len = 0;
		char *text = read_file(cfg, &len, 16u * 1024 * 1024);
		if (text)
			sb_printf(&sb, "%016llx\n", (unsigned long long)XXH3_64bits(text, len));
		free(text);
		free(cfg);
	}
	/* the stand-in headers a parse can find (create_header names) */
	for (size_t i = 0; i < r->vpaths.n; i++)
		sb_printf(&sb, "virtual %s\n", r->vpaths.v[i]);
	uint64_t h = XXH3_64bits(sb_str(&sb), sb.len);
	sb_free(&sb);
	return h;
}

static bool in_report_scope(const struct finding *f, void *ctx)
{
	return run_in_report_scope(ctx, f->loc.file);
}

static bool in_project(const struct finding *f, void *ctx)
{
	const struct file_classifier *fc = ctx;
	if (f->loc.file && classify_path(fc, f->loc.file) == ORIGIN_PROJECT)
		return true;
	log_verbose(1, "%s:%u: finding outside the project's files not shown: %s [%s]", f->loc.file ? f->loc.file : "?",
		    f->loc.line, f->msg, f->rule->slug);
	return false;
}

/* --changed-lines: git runs where the analysed tree is (the first path, or
 * the compile database's directory). */
static int load_changed(const struct options *o, struct run *r)
{
	if (!o->changed_lines)
		return 0;
	const char *first = o->paths.n ? o->paths.v[0] : o->compile_commands ? o->compile_commands : ".";
	char *dir = path_is_dir(first) ? xstrdup(first) : path_dirname(first);
	char *err = NULL;
	int rc = changed_load(o->changed_lines, dir && *dir ? dir : ".", &r->changed, &err);
	free(dir);
	if (rc != 0) {
		log_error("%s", err);
		free(err);
		return -1;
	}
	r->changed_on = true;
	log_verbose(1, "--changed-lines %s: %zu changed line%s in %zu file%s", o->changed_lines, r->changed.nlines,
		    r->changed.nlines == 1 ? "" : "s", r->changed.files.n, r->changed.files.n == 1 ? "" : "s");
	return 0;
}

static bool touches_changed(const struct finding *f, void *ctx)
{
	struct run *r = ctx;
	if (changed_finding(&r->changed, f))
		return true;
	r->changed_hidden++;
	return false;
}

static int cmp_str_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The library models: the built-in ones, then the files each configuration's
 * `models:` names (in path order), then --models FILE (which may override
 * both). A bad file is a configuration error. */
static int load_models(const struct options *o, struct run *r)
{
	char *err = NULL;
	models_reset();
	if (models_init(&err) != 0)
		goto bad;
	strlist files = {0};
	hmap_foreach(&r->cfg.by_path, e)
	{
		for (const struct config *c = e->val; c; c = c->parent)
			for (size_t i = 0; i < c->models.n; i++) {
				/* below the configuration's directory after symlinks too */
				char *real = path_absolute(c->models.v[i]), *rdir = path_absolute(c->dir);
				bool ok = path_is_below(real, rdir);
				free(rdir);
				if (!ok) {
					err = xasprintf(
						"%s: models: '%s' leads outside the directory of the configuration",
						c->path, c->models.v[i]);
					free(real);
					strlist_free(&files);
					goto bad;
				}
				bool dup = false;
				for (size_t k = 0; k < files.n && !dup; k++)
					dup = str_eq(files.v[k], real);
				if (dup)
					free(real);
				else
					vec_push(&files, real);
			}
	}
	if (files.n > 1)
		xqsort(files.v, files.n, sizeof(files.v[0]), cmp_str_ptr);
	for (size_t i = 0; i < files.n && !err; i++)
		if (models_load_file(files.v[i], &err) == 0)
			log_verbose(1, "library models: %s", files.v[i]);
	strlist_free(&files);
	for (size_t i = 0; i < o->models.n && !err; i++)
		if (models_load_file(o->models.v[i], &err) == 0)
			log_verbose(1, "library models: %s", o->models.v[i]);
	if (!err)
		return 0;
bad:
	log_error("%s", err);
	free(err);
	return -1;
}

/* ---- the phases of run_analysis: each returns 0, or -1 after logging why ---- */

/* A configuration error met by a phase (include/exclude globs, rules). */
static int config_error(const struct run *r)
{
	if (!r->cfg.error)
		return 0;
	log_error("%s", r->cfg.error);
	return -1;
}

static void add_stop_dir_of(struct run *r, const char *path)
{
	char *abs = path_absolute(path);
	char *d = path_dirname(abs);
	config_set_add_stop(&r->cfg, d);
	free(d);
	free(abs);
}

/* The configuration files, the baseline and the changed lines. Without a
 * .git, configuration discovery stops at the named roots, the compile
 * database's directory and $HOME. */
static int phase_config(const struct options *o, struct run *r)
{
	if (config_set_init(&r->cfg, o->config_file, o->no_config) != 0) {
		log_error("%s", r->cfg.error);
		return -1;
	}
	for (size_t i = 0; i < o->paths.n; i++) {
		if (path_is_dir(o->paths.v[i]))
			config_set_add_stop(&r->cfg, o->paths.v[i]);
		else
			add_stop_dir_of(r, o->paths.v[i]);
	}
	if (!o->paths.n && !o->compile_commands)
		config_set_add_stop(&r->cfg, ".");
	if (o->compile_commands)
		add_stop_dir_of(r, o->compile_commands);
	const char *home = getenv("HOME");
	if (home && home[0] == '/')
		config_set_add_stop(&r->cfg, home);
	if (read_baseline(o, r) != 0 || load_changed(o, r) != 0)
		return -1;
	return 0;
}

/* The files to analyse and the Ruby headers (inputs.h). */
static int phase_inputs(const struct options *o, struct run *r)
{
	/* a copy of the options that carries the configuration into inputs_build */
	struct options oc = *o;
	oc.configs = &r->cfg;
	const strlist *cfg_ruby = config_ruby_dirs(o, r);
	if (cfg_ruby) {
		memset(&oc.ruby_includes, 0, sizeof(oc.ruby_includes));
		for (size_t i = 0; i < cfg_ruby->n; i++)
			vec_push(&oc.ruby_includes, cfg_ruby->v[i]);
	}
	char *err = NULL;
	int rc = r->cfg.error ? -1 : inputs_build(&oc, &r->in, &err);
	if (cfg_ruby)
		vec_free(&oc.ruby_includes);
	if (r->cfg.error) {
		free(err);
		return config_error(r);
	}
	for (size_t i = 0; i < r->in.warnings.n; i++)
		log_warning("%s", r->in.warnings.v[i]);
	for (size_t i = 0; i < r->in.notes.n; i++)
		log_verbose(1, "%s", r->in.notes.v[i]);
	if (rc != 0) {
		log_error("%s", err ? err : "bad input");
		free(err);
		return -1;
	}
	log_verbose(1, "Ruby headers (%s): %s%s", r->in.rh.source, r->in.rh.dirs.n ? r->in.rh.dirs.v[0] : "",
		    r->in.rh.has_offload_flag ? ""
		    : o->ruby34_view
			    ? " (no RB_NOGVL_OFFLOAD_SAFE: analysing as Ruby 3.4+ with 0x4)"
			    : " (no RB_NOGVL_OFFLOAD_SAFE; --no-offload-view: analysing as these headers are)");
	if (!r->in.jobs.n && !r->in.foreign.n) {
		log_error("no C or C++ source files found");
		return -1;
	}
	return 0;
}

/* The include/exclude globs of each file's configuration, and the library
 * models. */
static int phase_select(const struct options *o, struct run *r)
{
	size_t kept = 0, total_jobs = r->in.jobs.n;
	for (size_t i = 0; i < r->in.jobs.n; i++) {
		struct tu_job *j = &r->in.jobs.v[i];
		const struct config *c = config_for_path(&r->cfg, j->file, false);
		if (config_excludes(c, j->file) || !config_includes(c, j->file)) {
			log_verbose(1, "%s: excluded by %s", j->display, c ? c->path : "the configuration");
			tu_job_free(j);
			continue;
		}
		r->in.jobs.v[kept++] = *j;
	}
	r->in.jobs.n = kept;
	if (config_error(r) != 0 || load_models(o, r) != 0)
		return -1;
	if (!kept && total_jobs) {
		log_error("all %zu source files are excluded by the configuration (.nogvl-lint.yml include/exclude)",
			  total_jobs);
		return -1;
	}
	return 0;
}

/* How the files are parsed (parse.h): the file classifier, the limits, the
 * buildless extconf.h and the cache. */
static int phase_parse_options(const struct options *o, struct run *r)
{
	struct file_classifier *fc = &r->fc;
	fc->ruby_dirs = (const char *const *)r->in.rh.dirs.v;
	fc->nruby_dirs = r->in.rh.dirs.n;
	fc->project_roots = (const char *const *)r->in.roots.v;
	fc->nproject_roots = r->in.roots.n;
	fc->stub_name = STUB_HEADER_NAME;
	struct parse_opts *po = &r->po;
	po->jobs = o->jobs ? o->jobs : cpu_count();
	po->fc = fc;
	po->verbose = o->verbose;
	po->recover = !o->no_recover;
	po->tu_timeout = o->tu_timeout;
	po->memory_limit_mb = o->memory_limit_mb;
	po->deadline = o->time_budget > 0 ? now_seconds() + o->time_budget : 0;
	po->no_pch = o->no_pch;
	/* buildless: an extconf.h for `#include RUBY_EXTCONF_H` (found after the
	 * gem's own directories, so a generated one wins) */
	static const char stand_in[] = "/* nogvl-lint: buildless stand-in for extconf.h */\n";
	vec_push(&r->vpaths, path_join(r->in.virtual_dir, "extconf.h"));
	/* and for the headers named with create_header (its $defs are -D flags
	 * already): curb's curb_config.h */
	for (size_t i = 0; i < r->in.extconf_headers.n; i++)
		if (strcmp(r->in.extconf_headers.v[i], "extconf.h") != 0)
			vec_push(&r->vpaths, path_join(r->in.virtual_dir, r->in.extconf_headers.v[i]));
	r->vf = xcalloc(r->vpaths.n, sizeof(*r->vf));
	for (size_t i = 0; i < r->vpaths.n; i++)
		r->vf[i] = (struct CXUnsavedFile){r->vpaths.v[i], stand_in, (unsigned long)strlen(stand_in)};
	po->virtual_files = r->vf;
	po->nvirtual = (unsigned)r->vpaths.n;
	if (o->cache_dir) {
		char *cerr = NULL;
		if (cache_open(&r->cache, o->cache_dir, cache_salt(o, r), &cerr) != 0) {
			log_error("%s", cerr);
			free(cerr);
			return -1;
		}
		r->cache_on = true;
		r->cache.search_roots = r->in.buildless ? &r->in.search_roots : NULL;
		po->cache = &r->cache;
	}
	return 0;
}

/* debug (--roundtrip-facts): every TU through the serialised forms, the
 * binary one the cache and the isolated parsers carry, then the JSON one;
 * the results must not change */
static void roundtrip_facts(struct run *r)
{
	for (size_t k = 0; k < 2 * r->ntus; k++) {
		size_t i = k / 2, len = 0;
		char *buf = k % 2 == 0 ? facts_pack(r->tus[i], &len) : facts_dump(r->tus[i], &len);
		char *ferr = NULL;
		struct tu_facts *back = buf ? facts_load(buf, len, &ferr) : NULL;
		if (!back) {
			log_error("%s: facts did not survive serialisation: %s", r->tus[i]->display,
				  ferr ? ferr : "no output");
			free(ferr);
		} else {
			if (r->tus[i]->build_probe) /* from the job, not the facts */
				back->build_probe = intern(&back->pool, r->tus[i]->build_probe);
			tu_facts_free(r->tus[i]);
			r->tus[i] = back;
		}
		free(buf);
	}
}

/* Every file parsed into facts (or taken from the cache). */
static void phase_parse(const struct options *o, struct run *r)
{
	struct parse_opts *po = &r->po;
	struct progress prog = {now_seconds(), 0, false};
	const char *term = getenv("TERM");
	if (isatty(2) && !o->verbose && !o->progress_off && !(term && strcmp(term, "dumb") == 0)) {
		po->progress = progress_cb;
		po->progress_ctx = &prog;
	}
	double t0 = now_seconds();
	r->ntus = r->in.jobs.n;
	r->tus = parse_all(r->in.jobs.v, r->in.jobs.n, po);
	if (r->in.buildless)
		resolve_missing_headers(r, po);
	if (o->roundtrip_facts)
		roundtrip_facts(r);
	po->progress = NULL; /* prog lives on this stack frame */
	po->progress_ctx = NULL;
	r->t_parse = now_seconds() - t0;
}

/* The files' outcome in the summary and the log; returns how many can be
 * analysed. */
static size_t tally_files(struct run *r)
{
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
				log_verbose(2, "  %s:%u:%u: %s",
					    tu->diags.v[k].loc.file ? tu->diags.v[k].loc.file : "?",
					    tu->diags.v[k].loc.line, tu->diags.v[k].loc.col, tu->diags.v[k].msg);
		}
		if (tu->degraded)
			r->sum.files_degraded++;
		for (size_t k = 0; k < tu->dropped_flags.n; k++)
			log_verbose(str_ends(tu->dropped_flags.v[k], DROP_ROUTINE) ? 2 : 1, "%s: dropped flag %s",
				    tu->display, tu->dropped_flags.v[k]);
	}
	return usable;
}

/* The linked model (model.h). */
static void phase_link(struct run *r)
{
	double t1 = now_seconds();
	r->model = model_link(r->tus, r->ntus);
	r->t_link = now_seconds() - t1;
}

/* Every enabled rule over the model. */
static void phase_rules(const struct options *o, struct run *r)
{
	for (unsigned i = 0; i < rule_count; i++) {
		const struct rule_desc *rd = rule_list[i];
		bool run_it = rule_enabled(o, rd);
		/* a debug rule switched on in some .nogvl-lint.yml */
		if (!run_it && !rule_cli_disabled(o, rd))
			hmap_foreach(&r->cfg.by_path, e) run_it = run_it || config_rule_named_on(e->val, rd->slug);
		if (!run_it)
			continue;
		r->ran[i] = 1;
		struct rule_ctx rc2 = {r->model, rd, &r->findings, rd->severity};
		rd->run(&rc2);
	}
	findings_macro_evidence(&r->findings, r->model);
	findings_unreachable_evidence(&r->findings, r->model);
}

/* What is reported of the findings: the project's files only, the
 * configurations, suppressions, the report scope, the baseline and the
 * changed lines. */
static int phase_findings(const struct options *o, struct run *r)
{
	findings_sort(&r->findings);
	/* findings only in the project's own files, never in Ruby or system headers */
	findings_filter(&r->findings, in_project, &r->fc);
	apply_configs(o, r);
	apply_suppressions(o, r);
	/* -p DIR FILE... (or named files of an extension): the report narrows,
	 * the analysis took everything */
	if (r->in.report_only.n)
		findings_filter(&r->findings, in_report_scope, &r->in);
	fingerprints_compute(&r->findings);
	if (config_error(r) != 0 || apply_baseline(o, r) != 0)
		return -1;
	if (r->changed_on) {
		findings_filter(&r->findings, touches_changed, r);
		log_verbose(1, "--changed-lines: %zu finding%s outside the changed lines not shown", r->changed_hidden,
			    r->changed_hidden == 1 ? "" : "s");
	}
	return 0;
}

/* The summary's counts of findings and sites. */
static void count_summary(struct run *r)
{
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (f->suppressed) {
			r->sum.suppressed++;
			continue;
		}
		if (f->baselined) {
			r->sum.baselined++;
			continue;
		}
		r->sum.findings_unreachable += f->unreachable;
		if (f->severity == SEV_ERROR)
			r->sum.errors++;
		else if (f->severity == SEV_WARNING)
			r->sum.warnings++;
		else
			r->sum.notes++;
	}
	for (size_t i = 0; i < r->model->sites.n; i++)
		if (!r->model->sites.v[i].is_template) {
			r->sum.sites++;
			r->sum.sites_unreachable += r->model->sites.v[i].unreachable;
		}
	r->sum.callbacks = r->model->ncallbacks;
	r->sum.unresolved = r->model->nsites_unresolved;
}

/* -v: callbacks not resolved, and release-API calls the parser lost or
 * that are not compiled. */
static void log_sites(const struct run *r)
{
	for (size_t i = 0; i < r->model->sites.n; i++) {
		const struct msite *s = &r->model->sites.v[i];
		if (s->is_template || s->cb.ntargets || s->cb.nexternal)
			continue;
		char *p = display_path(s->loc.file);
		log_verbose(1, "%s:%u: callback of %s not resolved (%s: '%s')", p, s->loc.line, s->called,
			    cb_how_text(s->cb.how), s->cb.text ? s->cb.text : "");
		free(p);
	}
	for (size_t i = 0; i < r->model->sites.n; i++) {
		const struct msite *s = &r->model->sites.v[i];
		if (s->is_template || !s->unreachable)
			continue;
		char *p = display_path(s->loc.file);
		log_verbose(1,
			    "%s:%u: %s in '%s' is unreachable: that function is static and nothing in the gem refers "
			    "to it (no call, no address taken, no other spelling); not counted as a site to fix",
			    p, s->loc.line, s->called, r->model->fns.v[s->fn].f->name);
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
}

/* -v: how the release-API calls were found. */
static void log_api_counts(const struct run *r)
{
	size_t active = 0, parsed = 0, inactive = 0, token_only = 0;
	for (size_t i = 0; i < r->model->sites.n; i++)
		token_only += r->model->sites.v[i].token_only;
	for (size_t t = 0; t < r->ntus; t++) {
		const struct tu_facts *tu = r->tus[t];
		for (size_t i = 0; i < tu->token_sites.n; i++) {
			const struct token_site *ts = &tu->token_sites.v[i];
			if (!gvl_api_find(ts->api))
				continue;
			if (ts->inactive) {
				inactive++;
				continue;
			}
			active++;
			parsed += ts->in_ast;
		}
	}
	log_verbose(1,
		    "release-API calls spelled in active code: %zu (%zu in project headers and macro bodies), "
		    "found by the parser: %zu, by the token scan: %zu; %zu more in preprocessor branches not "
		    "compiled",
		    active + r->header_sp.n, r->header_sp.n, parsed, token_only, inactive);
}

/* -v: one site's offload verdict, where it rests on a user model, is
 * withheld, or cannot be verified. */
static void log_verdict(const struct run *r, size_t i)
{
	const struct site_verdict *oi = site_verdict_of(r->model, (uint32_t)i);
	const struct msite *s = &r->model->sites.v[i];
	const struct lib_model *ul = oi ? gate_user_basis(&oi->g) : NULL;
	if (ul && (oi->verdict == OV_CANDIDATE || oi->verdict == OV_FLAGGED_SAFE)) {
		char *p = display_path(s->loc.file);
		log_verbose(1,
			    "%s:%u: offload: the verdict '%s' for the callback of %s rests on a user model: "
			    "'%s' (%s:%u)%s",
			    p, s->loc.line, offload_verdict_name(oi->verdict), s->called, ul->name, ul->file, ul->line,
			    ul->overrides ? ", which overrides the built-in model" : "");
		free(p);
	}
	if (oi && oi->withheld_by) {
		char *p = display_path(s->loc.file), *wp = display_path(oi->withheld_loc.file);
		const char *pre, *post;
		offload_withheld_advice(oi, &pre, &post);
		log_verbose(1,
			    "%s:%u: offload: the callback of %s could take RB_NOGVL_OFFLOAD_SAFE, but the "
			    "suggestion is withheld (%s): %s %s:%u %s",
			    p, s->loc.line, s->called, oi->withheld_by, pre, wp, oi->withheld_loc.line, post);
		free(p);
		free(wp);
	}
	if (!oi || (oi->verdict != OV_CANNOT_VERIFY && oi->verdict != OV_FLAGGED_CANNOT_VERIFY))
		return;
	const char *why = "?";
	for (size_t k = 0; k < oi->g.ev.n; k++)
		if (oi->g.ev.v[k].state == GATE_UNKNOWN) {
			why = oi->g.ev.v[k].msg;
			break;
		}
	char *p = display_path(s->loc.file);
	log_verbose(1, "%s:%u: offload%s: cannot verify the callback of %s: %s (see --explain-callback)", p,
		    s->loc.line, oi->flagged ? " (flagged)" : "", s->called, why);
	free(p);
}

/* -v: what the log tells after the rules. */
static void log_details(const struct run *r)
{
	log_sites(r);
	log_api_counts(r);
	for (size_t i = 0; i < r->model->sites.n; i++)
		log_verdict(r, i);
	if (r->cache_on)
		log_verbose(1, "cache %s: %zu reused, %zu parsed, %zu stored", r->cache.dir,
			    atomic_load(&r->cache.hits), atomic_load(&r->cache.misses), atomic_load(&r->cache.stores));
	log_verbose(1,
		    "%zu release sites, %zu callbacks resolved, %zu unresolved; parse %.2fs, link %.3fs, "
		    "rules %.3fs",
		    r->sum.sites, r->sum.callbacks, r->sum.unresolved, r->t_parse, r->t_link, r->t_rules);
}

int run_analysis(const struct options *o, struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->ran = xcalloc(rule_count, 1);
	if (phase_config(o, r) != 0 || phase_inputs(o, r) != 0 || phase_select(o, r) != 0)
		return -1;
	if (o->dump_commands)
		return dump_commands(stdout, r) == 0 ? 0 : -1;
	if (phase_parse_options(o, r) != 0)
		return -1;
	phase_parse(o, r);
	size_t usable = tally_files(r);
	phase_link(r);
	double t2 = now_seconds();
	/* the offload phase: every site's verdict, before the rules read them */
	offload_compute(r->model);
	phase_rules(o, r);
	if (phase_findings(o, r) != 0)
		return -1;
	r->t_rules = now_seconds() - t2;
	count_summary(r);
	assess_incomplete(o, r);
	if (o->verbose)
		log_details(r);
	if (!usable && !r->in.foreign.n) {
		log_error("nothing could be analysed");
		return -1;
	}
	return 0;
}

/* A reported finding at or above its fail level (the command line's, else its
 * file's .nogvl-lint.yml, else warning). */
static bool finding_fails(const struct options *o, const struct run *r, const struct finding *f)
{
	if (f->suppressed || f->baselined)
		return false;
	int level = o->fail_level;
	if (!o->fail_level_set) {
		/* config_for_path memoises lookups: the set is a cache, not the run's state */
		struct config_set *cfg = (struct config_set *)&r->cfg;
		int cl = config_fail_level(config_for_path(cfg, f->loc.file, false));
		if (cl >= 0)
			level = cl;
	}
	return level != SEV_NONE && f->severity >= level;
}

size_t run_failing_count(const struct options *o, const struct run *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->findings.v.n; i++)
		n += finding_fails(o, r, r->findings.v.v[i]);
	return n;
}

enum run_verdict run_verdict(const struct options *o, const struct run *r)
{
	if (r->sum.files && r->sum.files_failed == r->sum.files)
		return RUNV_NOTHING_ANALYSED;
	if (o->write_baseline)
		return RUNV_CLEAN; /* the findings are recorded now */
	if (run_failing_count(o, r))
		return RUNV_FAILS;
	/* nothing to fail on, but not everything was analysed: not "clean" */
	if (r->sum.files_failed)
		return RUNV_INCOMPLETE;
	return r->sum.incomplete && !r->sum.incomplete_allowed ? RUNV_INCOMPLETE : RUNV_CLEAN;
}

void run_free(struct run *r)
{
	strlist_free(&r->vpaths);
	free(r->vf);
	spellings_free(&r->foreign_sp);
	spellings_free(&r->header_sp);
	strlist_free(&r->sum.missing_headers);
	strlist_free(&r->sum.generated_files);
	strlist_free(&r->sum.generated_from);
	if (r->cache_on)
		cache_close(&r->cache);
	findings_free(&r->findings);
	suppress_set_free(&r->sup);
	config_set_free(&r->cfg);
	if (r->baseline) {
		baseline_free(r->baseline);
		free(r->baseline);
	}
	free(r->ran);
	model_free(r->model);
	for (size_t i = 0; i < r->ntus; i++)
		tu_facts_free(r->tus[i]);
	free(r->tus);
	inputs_free(&r->in);
	changed_free(&r->changed);
	memset(r, 0, sizeof(*r));
}
