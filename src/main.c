/* main.c: nogvl-lint entry point. The only place that decides the exit code
 * (README "Exit codes"): the library functions return 0 or -1 (the reason
 * logged), run_verdict (run.h) says what a finished run amounts to, and
 * main.c maps them. */
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <sys/stat.h>
#include <unistd.h>

#include "clang_api.h"

#include "cli.h"
#include "baseline.h"
#include "fix.h"
#include "isolate.h"
#include "facts_io.h"
#include "log.h"
#include "explain_callback.h"
#include "invariant.h"
#include "output.h"
#include "report.h"
#include "ruledoc.h"
#include "rule.h"
#include "run.h"
#include "sigclean.h"

/* the exit codes (README "Exit codes") */
enum {
	EXIT_CLEAN = 0,
	EXIT_FINDINGS = 1,   /* findings at or above the fail level */
	EXIT_USAGE = 2,      /* a usage error, an output not written, nothing analysed */
	EXIT_INCOMPLETE = 3, /* nothing fails, but not everything was analysed */
};

static int exit_status(enum run_verdict oc)
{
	switch (oc) {
	case RUNV_CLEAN:
		return EXIT_CLEAN;
	case RUNV_FAILS:
		return EXIT_FINDINGS;
	case RUNV_INCOMPLETE:
		return EXIT_INCOMPLETE;
	case RUNV_NOTHING_ANALYSED:
		return EXIT_USAGE;
	}
	INVARIANT(!"a run outcome main.c does not map");
	return EXIT_USAGE;
}

static void list_rules(FILE *out)
{
	for (unsigned i = 0; i < rule_count; i++) {
		const struct rule_desc *r = rule_list[i];
		fprintf(out, "%-28s %-8s %s%s\n", r->slug, severity_name(r->severity), r->summary,
			(r->flags & RULE_DEBUG) ? " (debug; off unless --enable)" : "");
	}
}

/* "no rule 'X'" with a suggestion when one is close; the name is shown
 * escaped (it may come from a script). */
static void no_rule(const char *what, const char *slug, bool all_ok)
{
	const char *hint = rule_suggest(slug);
	if (hint && !all_ok && strcmp(hint, "all") == 0)
		hint = NULL;
	struct strbuf sb = {0};
	sb_put_visible(&sb, slug);
	if (hint)
		fprintf(stderr, "nogvl-lint: error: %sno rule '%s'; did you mean '%s'? (see --list-rules)\n", what,
			sb_str(&sb), hint);
	else
		fprintf(stderr, "nogvl-lint: error: %sno rule '%s' (see --list-rules)\n", what, sb_str(&sb));
	sb_free(&sb);
}

static int explain(FILE *out, const char *slug)
{
	const struct rule_desc *r = rule_find(slug);
	if (!r) {
		no_rule("", slug, false);
		return -1;
	}
	const char *page = rule_doc_find(slug);
	if (page) {
		fputs(page, out);
		return 0;
	}
	/* debug rules have no page: the descriptor */
	fprintf(out, "# %s\n\n**Severity:** %s · **Category:** %s\n\n%s\n\n## Why\n\n%s\n\n## How to fix\n\n%s\n",
		r->slug, severity_name(r->severity), r->category, r->summary, r->rationale, r->fix);
	return 0;
}

/* Baseline entries whose finding is gone: the file can shrink. */
static void report_fixed(FILE *out, const struct run *r, const char *baseline)
{
	if (!r->baseline || !r->baseline->fixed)
		return;
	fprintf(out,
		"nogvl-lint: %zu finding%s recorded in %s %s fixed; write the baseline again (--write-baseline) "
		"to drop %s:\n",
		r->baseline->fixed, r->baseline->fixed == 1 ? "" : "s", baseline,
		r->baseline->fixed == 1 ? "is" : "are", r->baseline->fixed == 1 ? "it" : "them");
	for (size_t i = 0; i < r->baseline->v.n; i++) {
		const struct baseline_entry *e = &r->baseline->v.v[i];
		if (e->state != BL_FIXED)
			continue;
		/* the baseline file comes from the repository: shown, never obeyed */
		struct strbuf sb = {0};
		sb_puts(&sb, "  fixed: ");
		sb_put_visible(&sb, e->file);
		sb_puts(&sb, ": ");
		sb_put_visible(&sb, e->function);
		sb_puts(&sb, *e->function ? ": [" : "[");
		sb_put_visible(&sb, e->rule);
		sb_puts(&sb, "] ");
		sb_put_visible(&sb, e->message);
		fprintf(out, "%s\n", sb_str(&sb));
		sb_free(&sb);
	}
}

/* An output file that cannot be written fails before the analysis: its
 * directory must exist and be writable (the file may be replaced), and it
 * must not be a directory. */
static int check_output_file(const char *what, const char *path)
{
	struct stat st;
	const char *why = NULL;
	char *dir = path_dirname(path);
	struct stat dst;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		why = "is a directory";
	else if (stat(dir && *dir ? dir : ".", &dst) != 0 || !S_ISDIR(dst.st_mode))
		why = "its directory does not exist";
	else if (access(dir && *dir ? dir : ".", W_OK) != 0 && (stat(path, &st) != 0 || access(path, W_OK) != 0))
		why = "cannot be written (permissions)";
	free(dir);
	if (!why)
		return 0;
	struct strbuf sb = {0};
	sb_put_visible(&sb, path);
	fprintf(stderr, "nogvl-lint: error: %s %s: %s\n", what, sb_str(&sb), why);
	sb_free(&sb);
	return -1;
}

static int check_outputs(const struct options *o)
{
	for (size_t i = 0; i < o->outputs.n; i++)
		if (o->outputs.v[i].file && check_output_file("-o", o->outputs.v[i].file) != 0)
			return -1;
	if (o->write_baseline && check_output_file("--write-baseline", o->write_baseline) != 0)
		return -1;
	return 0;
}

/* --fix / --fix-dry-run: the patch (or the files rewritten), then the
 * findings the fixes do not remove, with the summary; exit 1 when one of
 * them is at or above the fail level. With --fix-dry-run they go to stderr,
 * after the diff on stdout. */
static int fix_flow(const struct options *o, struct run *r)
{
	int n = fix_run(r, o->fix_dry_run, stdout);
	if (o->fix && n >= 0)
		log_info("%d file%s fixed", n, n == 1 ? "" : "s");
	fflush(stdout);
	FILE *out = o->fix_dry_run ? stderr : stdout;
	size_t w = 0;
	struct findings gone = {0};
	for (size_t i = 0; i < r->findings.v.n; i++) {
		struct finding *f = r->findings.v.v[i];
		if (n >= 0 && finding_reported(f) && f->fixes.n)
			vec_push(&gone.v, f);
		else
			r->findings.v.v[w++] = f;
	}
	r->findings.v.n = w;
	findings_free(&gone);
	r->sum.errors = r->sum.warnings = r->sum.notes = 0;
	struct findings shown = {0};
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (!finding_reported(f))
			continue;
		vec_push(&shown.v, (struct finding *)f);
		if (f->severity == SEV_ERROR)
			r->sum.errors++;
		else if (f->severity == SEV_WARNING)
			r->sum.warnings++;
		else
			r->sum.notes++;
	}
	report_text(out, &shown, false);
	vec_free(&shown.v);
	summary_line(out, &r->sum);
	if (n < 0)
		return EXIT_USAGE;
	return exit_status(run_verdict(o, r));
}

/* --help, --version, --list-rules, --explain: answered without an analysis
 * (*done set); returns the exit status. */
static int info_mode(const struct options *o, bool *done)
{
	*done = true;
	if (o->help) {
		print_usage(stdout);
		return EXIT_CLEAN;
	}
	if (o->version) {
		const char *lerr = NULL;
		if (!clang_api_load(&lerr)) {
			printf("nogvl-lint %s\n", NOGVL_VERSION);
			fprintf(stderr, "nogvl-lint: error: %s\n", lerr);
			return EXIT_USAGE;
		}
		CXString v = clang_getClangVersion();
		printf("nogvl-lint %s (libclang: %s, %s)\n", NOGVL_VERSION, clang_api_path(),
		       clang_getCString(v) ? clang_getCString(v) : "?");
		clang_disposeString(v);
		return EXIT_CLEAN;
	}
	if (o->list_rules) {
		list_rules(stdout);
		return EXIT_CLEAN;
	}
	if (o->explain)
		return explain(stdout, o->explain) == 0 ? EXIT_CLEAN : EXIT_USAGE;
	*done = false;
	return EXIT_CLEAN;
}

/* The rules named by --enable and --disable exist. */
static int check_rule_names(const struct options *o)
{
	for (size_t i = 0; i < o->enable.n; i++)
		if (!rule_find(o->enable.v[i])) {
			no_rule("--enable: ", o->enable.v[i], false);
			return -1;
		}
	for (size_t i = 0; i < o->disable.n; i++)
		if (strcmp(o->disable.v[i], "all") != 0 && !rule_find(o->disable.v[i])) {
			no_rule("--disable: ", o->disable.v[i], true);
			return -1;
		}
	return 0;
}

/* libclang is loaded here only when this process parses (in-process
 * threads, or --fix's re-parse); otherwise only the parser processes load
 * it, and here it is only checked for. */
static int check_libclang(const struct options *o)
{
	if (o->dump_commands)
		return 0;
	const char *lerr = NULL;
	char cerr[1024];
	bool here = o->tu_timeout <= 0 || o->fix || o->fix_dry_run; /* (isolate_enable() in main) */
	if (here ? !clang_api_load(&lerr) : !clang_api_check(cerr, sizeof(cerr))) {
		fprintf(stderr, "nogvl-lint: error: %s\n", here ? lerr : cerr);
		return -1;
	}
	/* the parser processes load the very same file */
	setenv("NOGVL_LINT_LIBCLANG", clang_api_path(), 1);
	return 0;
}

/* --explain-callback: the checklist of one callback, in place of the report. */
static int explain_callback(const struct options *o, const struct run *r)
{
	if (offload_explain(stdout, r->model, o->explain_callback))
		return EXIT_CLEAN;
	struct strbuf sb = {0};
	sb_put_visible(&sb, o->explain_callback);
	fprintf(stderr, "nogvl-lint: error: --explain-callback: no release site has a callback named '%s'\n",
		sb_str(&sb));
	sb_free(&sb);
	return EXIT_USAGE;
}

/* --write-baseline: the findings recorded. */
static int write_baseline(const struct options *o, const struct run *r, FILE *sum)
{
	char *err = NULL;
	if (baseline_write(o->write_baseline, &r->findings, &err) != 0) {
		log_error("%s", err);
		free(err);
		return -1;
	}
	size_t n = 0;
	for (size_t i = 0; i < r->findings.v.n; i++)
		n += !r->findings.v.v[i]->suppressed;
	fprintf(sum, "nogvl-lint: recorded %zu finding%s in %s\n", n, n == 1 ? "" : "s", o->write_baseline);
	return 0;
}

/* What a finished run shows: the checklist, the patch, or the reports with
 * the summary (and the baseline written). */
static int show_run(const struct options *o, struct run *r, FILE *sum)
{
	if (o->dump_facts)
		dump_facts(stdout, r);
	/* these replace the findings report: the checklist or the patch */
	if (o->explain_callback)
		return explain_callback(o, r);
	if (o->fix_dry_run || o->fix)
		return fix_flow(o, r);
	int written = output_write_all(o, r);
	report_fixed(sum, r, o->baseline);
	summary_line(sum, &r->sum);
	if (o->write_baseline && write_baseline(o, r, sum) != 0)
		written = -1;
	return written != 0 ? EXIT_USAGE : exit_status(run_verdict(o, r));
}

/* The analysis and what it shows; returns the exit status. */
static int analyse(const struct options *o)
{
	/* the summary follows text on stdout; next to machine output it goes to stderr */
	bool text_on_stdout = !o->outputs.n;
	for (size_t i = 0; i < o->outputs.n; i++)
		text_on_stdout = text_on_stdout || (o->outputs.v[i].format == FMT_TEXT && !o->outputs.v[i].file);
	FILE *sum = text_on_stdout ? stdout : stderr;
	struct run r;
	int rc;
	if (run_analysis(o, &r) != 0) {
		if (r.sum.files) { /* files were tried and none could be analysed */
			/* JSON and SARIF stay documents, written where asked
			 * (executionSuccessful: false, a notification per file) */
			if (!o->dump_commands && !o->fix && !o->fix_dry_run && !o->explain_callback && o->outputs.n)
				output_write_all(o, &r);
			summary_line(sum, &r.sum);
		}
		rc = EXIT_USAGE;
	} else if (o->dump_commands) { /* printed by run_analysis, before parsing */
		rc = EXIT_CLEAN;
	} else {
		rc = show_run(o, &r, sum);
	}
	run_free(&r);
	source_cache_clear();
	return rc;
}

/* One command line, parsed; returns the exit status. */
static int lint(const struct options *o)
{
	log_verbosity = o->verbose;
	if (o->libclang)
		clang_api_set_path(o->libclang);
#ifdef __GLIBC__
	/* Files are parsed in worker processes: this process's threads only
	 * decode their facts, and one malloc arena keeps the facts of a whole
	 * gem from spreading over one arena per thread (tens of MB of RSS on
	 * Ruby's ext/). In-process parsing keeps glibc's default. */
	if (o->tu_timeout > 0)
		mallopt(M_ARENA_MAX, 1);
#endif
	bool done;
	int rc = info_mode(o, &done);
	if (done)
		return rc;
	if (check_rule_names(o) != 0 || check_libclang(o) != 0 || check_outputs(o) != 0)
		return EXIT_USAGE;
	return analyse(o);
}

int main(int argc, char **argv)
{
	int rc;
	facts_io_init();
	if (argc == 2 && strcmp(argv[1], "--internal-parse-worker") == 0) {
		rc = isolate_worker_main(); /* a parser process (isolate.h) */
	} else {
		isolate_enable();
		sigclean_install(); /* the PCH directory, --fix's temporary file */
		struct options o;
		options_init(&o);
		rc = options_parse(&o, argc, argv, stderr) == 0 ? lint(&o) : EXIT_USAGE;
		options_free(&o);
	}
	return rc;
}
