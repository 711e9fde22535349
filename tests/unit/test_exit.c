/* test_exit.c: what a finished run amounts to (run_verdict, which main.c
 * maps to the exit codes) and command-line errors (options_parse). The
 * binary's own exit codes are tested in tests/cli/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli.h"
#include "helpers.h"
#include "report.h"
#include "rule.h"
#include "run.h"

static const struct rule_desc test_rule = {
	.slug = "test-rule",
	.severity = SEV_WARNING,
	.category = "test",
	.summary = "s",
	.rationale = "r",
	.fix = "f",
};

static void add(struct run *r, int sev)
{
	struct loc l = {"/x.c", 1, 1, 0};
	finding_add(&r->findings, &test_rule, sev, &l, "fn", "msg");
}

static enum run_verdict status(const struct run *r, const char *fail_level)
{
	struct options o;
	options_init(&o);
	if (fail_level)
		o.fail_level = severity_parse(fail_level);
	enum run_verdict s = run_verdict(&o, r);
	options_free(&o);
	return s;
}

static void test_exit__fail_levels(void **state)
{
	(void)state;
	struct run r;
	memset(&r, 0, sizeof(r));
	r.sum.files = 2;
	assert_int_equal(status(&r, NULL), RUNV_CLEAN); /* clean */
	add(&r, SEV_NOTE);
	assert_int_equal(status(&r, NULL), RUNV_CLEAN); /* notes only: still clean by default */
	assert_int_equal(status(&r, "note"), RUNV_FAILS);
	add(&r, SEV_WARNING);
	assert_int_equal(status(&r, NULL), RUNV_FAILS); /* default level: warning */
	assert_int_equal(status(&r, "warning"), RUNV_FAILS);
	assert_int_equal(status(&r, "error"), RUNV_CLEAN);
	assert_int_equal(status(&r, "none"), RUNV_CLEAN);
	add(&r, SEV_ERROR);
	assert_int_equal(status(&r, "error"), RUNV_FAILS);
	assert_int_equal(status(&r, "none"), RUNV_CLEAN);
	/* suppressed findings do not count */
	for (size_t i = 0; i < r.findings.v.n; i++)
		r.findings.v.v[i]->suppressed = 1;
	assert_int_equal(status(&r, "note"), RUNV_CLEAN);
	findings_free(&r.findings);
	config_set_free(&r.cfg); /* fail levels are looked up per file and cached */
}

static void test_exit__nothing_analysed(void **state)
{
	(void)state;
	struct run r;
	memset(&r, 0, sizeof(r));
	r.sum.files = 3;
	r.sum.files_failed = 3;
	assert_int_equal(status(&r, "none"), RUNV_NOTHING_ANALYSED);
	r.sum.files_failed = 2; /* one file analysed and clean: incomplete, not clean */
	assert_int_equal(status(&r, NULL), RUNV_INCOMPLETE);
	add(&r, SEV_ERROR); /* its findings decide when they fail the run */
	assert_int_equal(status(&r, NULL), RUNV_FAILS);
	r.sum.files_failed = 0;
	findings_free(&r.findings);
	config_set_free(&r.cfg); /* fail levels are looked up per file and cached */
	assert_int_equal(status(&r, NULL), RUNV_CLEAN);
}

/* Parses a command line; returns the status and what went to stderr. */
static int parse_cmdline(struct options *o, char **err_text, ...)
{
	VEC(char *) argv = {0};
	vec_push(&argv, "nogvl-lint");
	va_list ap;
	va_start(ap, err_text);
	for (char *a = va_arg(ap, char *); a; a = va_arg(ap, char *))
		vec_push(&argv, a);
	va_end(ap);
	vec_push(&argv, NULL);
	size_t len = 0;
	FILE *err = open_memstream(err_text, &len);
	options_init(o);
	int rc = options_parse(o, (int)argv.n - 1, argv.v, err);
	fclose(err);
	vec_free(&argv);
	return rc;
}

static void assert_one_line(const char *text, const char *sub)
{
	const char *nl = strchr(text, '\n');
	if (!nl || nl[1] != '\0')
		fail_msg("not exactly one line: '%s'", text);
	if (!strstr(text, sub))
		fail_msg("'%s' does not contain '%s'", text, sub);
}

static void test_exit__usage_errors(void **state)
{
	(void)state;
	struct options o;
	char *e = NULL;
	assert_int_equal(parse_cmdline(&o, &e, "--no-such-option", "x.c", NULL), -1);
	assert_one_line(e, "unknown option '--no-such-option'");
	free(e);
	options_free(&o);
	assert_int_equal(parse_cmdline(&o, &e, "-Z", NULL), -1);
	assert_one_line(e, "unknown option '-Z'");
	free(e);
	options_free(&o);
	assert_int_equal(parse_cmdline(&o, &e, "--jobs", "zero", NULL), -1);
	assert_one_line(e, "--jobs takes a number");
	free(e);
	options_free(&o);
	assert_int_equal(parse_cmdline(&o, &e, "--fail-level", "fatal", NULL), -1);
	assert_one_line(e, "--fail-level takes note, warning, error or none");
	free(e);
	options_free(&o);
	assert_int_equal(parse_cmdline(&o, &e, "--ruby-include", NULL), -1);
	assert_one_line(e, "needs a value");
	free(e);
	options_free(&o);
}

static void test_exit__options(void **state)
{
	(void)state;
	struct options o;
	char *e = NULL;
	char *dir = th_mkdtemp();
	assert_int_equal(parse_cmdline(&o, &e, "-p", dir, "-j", "3", "-v", "-v", "--fail-level=error", "--ruby-include",
				       "/r1", "--ruby-include=/r2", "-DX=1", "-Iinc", "a.c", NULL),
			 0);
	assert_string_equal(e, "");
	free(e);
	char *want = path_join(dir, "compile_commands.json");
	assert_string_equal(o.compile_commands, want);
	free(want);
	assert_int_equal(o.jobs, 3);
	assert_int_equal(o.verbose, 2);
	assert_int_equal(o.fail_level, SEV_ERROR);
	assert_int_equal(o.ruby_includes.n, 2);
	assert_string_equal(o.extra_args.v[0], "-DX=1");
	assert_string_equal(o.extra_args.v[1], "-Iinc");
	assert_int_equal(o.paths.n, 1);
	options_free(&o);
	/* -p FILE names the database itself */
	assert_int_equal(parse_cmdline(&o, &e, "-p", "/some/db.json", NULL), 0);
	assert_string_equal(o.compile_commands, "/some/db.json");
	free(e);
	options_free(&o);
	assert_int_equal(parse_cmdline(&o, &e, "--version", NULL), 0);
	assert_true(o.version);
	free(e);
	options_free(&o);
	th_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit__fail_levels),
		cmocka_unit_test(test_exit__nothing_analysed),
		cmocka_unit_test(test_exit__usage_errors),
		cmocka_unit_test(test_exit__options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
