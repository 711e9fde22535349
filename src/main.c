/* main.c: nogvl-lint entry point. The only place that decides the exit code. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <clang-c/Index.h>

#include "cli.h"
#include "log.h"
#include "report.h"
#include "rules.h"
#include "run.h"

static void list_rules(FILE *out)
{
	for (unsigned i = 0; i < rule_count; i++) {
		const struct rule_desc *r = rule_list[i];
		fprintf(out, "%-28s %-8s %s%s\n", r->slug, severity_name(r->severity), r->summary,
			(r->flags & RULE_DEBUG) ? " (debug; off unless --enable)" : "");
	}
}

static int explain(FILE *out, const char *slug)
{
	const struct rule_desc *r = rule_find(slug);
	if (!r) {
		fprintf(stderr, "nogvl-lint: error: no rule '%s' (see --list-rules)\n", slug);
		return 2;
	}
	fprintf(out, "%s (%s, %s)\n\n%s\n\nWhy: %s\n\nHow to fix: %s\n", r->slug, severity_name(r->severity),
		r->category, r->summary, r->rationale, r->fix);
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	options_init(&o);
	int rc = options_parse(&o, argc, argv, stderr);
	if (rc != 0) {
		options_free(&o);
		return rc;
	}
	log_verbosity = o.verbose;
	if (o.help) {
		print_usage(stdout);
		options_free(&o);
		return 0;
	}
	if (o.version) {
		CXString v = clang_getClangVersion();
		printf("nogvl-lint %s (libclang: %s)\n", NOGVL_VERSION, clang_getCString(v) ? clang_getCString(v) : "?");
		clang_disposeString(v);
		options_free(&o);
		return 0;
	}
	if (o.list_rules) {
		list_rules(stdout);
		options_free(&o);
		return 0;
	}
	if (o.explain) {
		rc = explain(stdout, o.explain);
		options_free(&o);
		return rc;
	}
	for (size_t i = 0; i < o.enable.n; i++)
		if (!rule_find(o.enable.v[i])) {
			fprintf(stderr, "nogvl-lint: error: --enable: no rule '%s' (see --list-rules)\n", o.enable.v[i]);
			options_free(&o);
			return 2;
		}
	for (size_t i = 0; i < o.disable.n; i++)
		if (strcmp(o.disable.v[i], "all") != 0 && !rule_find(o.disable.v[i])) {
			fprintf(stderr, "nogvl-lint: error: --disable: no rule '%s' (see --list-rules)\n", o.disable.v[i]);
			options_free(&o);
			return 2;
		}

	struct run r;
	rc = run_analysis(&o, &r);
	if (rc != 0) {
		if (r.sum.files) /* files were tried and none could be analysed */
			summary_line(o.output ? stderr : stdout, &r.sum);
		run_free(&r);
		options_free(&o);
		source_cache_clear();
		return rc;
	}
	FILE *out = stdout;
	if (o.output) {
		out = fopen(o.output, "w");
		if (!out) {
			log_error("cannot write %s", o.output);
			run_free(&r);
			options_free(&o);
			return 2;
		}
	}
	if (o.dump_facts)
		dump_facts(out, &r);
	bool color = o.color_mode == 1 || (o.color_mode < 0 && !o.output && isatty(1) && getenv("NO_COLOR") == NULL);
	report_text(out, &r.findings, color);
	summary_line(o.output ? stderr : stdout, &r.sum);
	if (out != stdout)
		fclose(out);
	rc = run_exit_status(&o, &r);
	run_free(&r);
	options_free(&o);
	source_cache_clear();
	return rc;
}
