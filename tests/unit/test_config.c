/* .nogvl-lint.yml: parsing, errors with line numbers, layering, globs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "report.h"

static struct config *parse_ok(const char *text)
{
	struct config *c = NULL;
	char *err = NULL;
	int rc = config_parse_text("/proj/.nogvl-lint.yml", text, strlen(text), &c, &err);
	if (rc != 0)
		print_error("unexpected error: %s\n", err);
	assert_int_equal(rc, 0);
	return c;
}

/* Parses text expecting an error that contains want. */
static void parse_err(const char *text, const char *want)
{
	struct config *c = NULL;
	char *err = NULL;
	int rc = config_parse_text("/proj/.nogvl-lint.yml", text, strlen(text), &c, &err);
	assert_int_equal(rc, -1);
	assert_null(c);
	assert_non_null(err);
	if (!strstr(err, want))
		print_error("error '%s' does not contain '%s'\n", err, want);
	assert_non_null(strstr(err, want));
	free(err);
}

static void full_file(void **state)
{
	(void)state;
	struct config *c = parse_ok("# comment\n"
				    "fail_level: error\n"
				    "report_unused_suppressions: true\n"
				    "ruby_include: headers/ruby-3.4\n"
				    "include: ['ext/**/*.c']\n"
				    "exclude:\n  - ext/vendor\n  - '*_gen.c'\n"
				    "include_dirs: [ext/include, /opt/inc]\n"
				    "defines: [HAVE_FOO, 'BAR=2']\n"
				    "rules:\n"
				    "  removed-api: false\n"
				    "  value-access-without-gvl: warning\n"
				    "  ruby-api-without-gvl: {enabled: true, severity: note}\n"
				    "  debug-release-site: on\n");
	assert_int_equal(config_fail_level(c), SEV_ERROR);
	assert_int_equal(config_report_unused(c), 1);
	assert_non_null(config_ruby_include(c));
	assert_string_equal(config_ruby_include(c)->v[0], "/proj/headers/ruby-3.4");
	int sev = SEV_ERROR;
	assert_false(config_rule_enabled(c, "removed-api", true, &sev));
	assert_true(config_rule_enabled(c, "value-access-without-gvl", true, &sev));
	assert_int_equal(sev, SEV_WARNING);
	sev = SEV_ERROR;
	assert_true(config_rule_enabled(c, "ruby-api-without-gvl", true, &sev));
	assert_int_equal(sev, SEV_NOTE);
	assert_true(config_rule_enabled(c, "debug-release-site", false, NULL));
	assert_true(config_rule_named_on(c, "debug-release-site"));
	assert_true(config_rule_enabled(c, "with-gvl-escape", true, NULL));
	assert_true(config_excludes(c, "/proj/ext/vendor/lib/x.c"));
	assert_true(config_excludes(c, "/proj/ext/parser_gen.c"));
	assert_false(config_excludes(c, "/proj/ext/a.c"));
	assert_true(config_includes(c, "/proj/ext/a.c"));
	assert_true(config_includes(c, "/proj/ext/sub/a.c"));
	assert_false(config_includes(c, "/proj/test/a.c"));
	strlist args = {0};
	config_extra_args(c, &args);
	assert_int_equal(args.n, 4);
	assert_string_equal(args.v[0], "-I/proj/ext/include");
	assert_string_equal(args.v[1], "-I/opt/inc");
	assert_string_equal(args.v[2], "-DHAVE_FOO");
	assert_string_equal(args.v[3], "-DBAR=2");
	strlist_free(&args);
	config_free(c);
}

static void empty_file_is_fine(void **state)
{
	(void)state;
	config_free(parse_ok(""));
	config_free(parse_ok("# only a comment\n"));
	struct config *c = parse_ok("rules:\n  all: false\n  removed-api: true\n");
	assert_false(config_rule_enabled(c, "ruby-api-without-gvl", true, NULL));
	assert_true(config_rule_enabled(c, "removed-api", true, NULL));
	config_free(c);
}

static void errors_name_file_line_and_problem(void **state)
{
	(void)state;
	parse_err("fail_level: error\nrules:\n  no-such-rule: true\n",
		  "/proj/.nogvl-lint.yml:3:3: unknown rule 'no-such-rule'");
	parse_err("fail_level: error\nbogus: 1\n", ":2:1: unknown key 'bogus'");
	parse_err("fail_level: loud\n", ":1:13: 'fail_level' takes note, warning, error or none, not 'loud'");
	parse_err("rules:\n  removed-api: maybe\n", ":2:16: rule 'removed-api' takes true, false");
	parse_err("rules:\n  removed-api: {enabled: 3}\n", ":2:26: 'enabled' takes true or false, not '3'");
	parse_err("rules:\n  removed-api: {colour: red}\n", ":2:17: rule 'removed-api': unknown key 'colour'");
	parse_err("exclude: {a: 1}\n", ":1:10: 'exclude' takes a string or a list of strings, not a mapping");
	parse_err("exclude: [a, [b]]\n", ":1:14: 'exclude': each entry must be a string, not a list");
	parse_err("defines: ['1BAD']\n", ":1:10: 'defines': '1BAD' is not NAME or NAME=VALUE");
	parse_err("- a\n- b\n", ":1:1: the file must be a mapping");
	parse_err("fail_level: error\nfail_level: note\n", ":2:1: 'fail_level' is set twice");
	parse_err("rules: [a]\n", ":1:8: 'rules' takes a mapping");
	/* YAML syntax errors carry libyaml's position */
	parse_err("rules:\n  removed-api: [true\nfail_level: note\n", "/proj/.nogvl-lint.yml:3:");
	parse_err("rules:\n  removed-api: [true\nfail_level: note\n", "YAML syntax error");
	parse_err("fail_level: note\n---\nfail_level: error\n", ":3:1: a second YAML document");
}

static void globs(void **state)
{
	(void)state;
	assert_true(config_glob_match("*.c", "a.c"));
	assert_true(config_glob_match("*.c", "ext/a.c")); /* bare name: any depth */
	assert_true(config_glob_match("vendor", "ext/vendor/x.c"));
	assert_true(config_glob_match("vendor/", "vendor/x.c"));
	assert_false(config_glob_match("ext/*.c", "ext/sub/a.c")); /* * stays in one segment */
	assert_true(config_glob_match("ext/*.c", "ext/a.c"));
	assert_true(config_glob_match("ext/**/*.c", "ext/a.c"));
	assert_true(config_glob_match("ext/**/*.c", "ext/x/y/a.c"));
	assert_true(config_glob_match("ext/vendor", "ext/vendor/lib/x.c")); /* a directory covers its files */
	assert_false(config_glob_match("ext/vendor", "ext/vendored.c"));
	assert_true(config_glob_match("./ext/a.c", "ext/a.c"));
	assert_false(config_glob_match("", "a.c"));
}

/* Files on disk: discovery upwards, the git boundary, inherit. */
static char tmpdir[] = "/tmp/nogvl-config-XXXXXX";

static void write_at(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", tmpdir, rel);
	char *d = path_dirname(p);
	char *cmd = xasprintf("mkdir -p '%s'", d);
	assert_int_equal(system(cmd), 0);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	free(cmd);
	free(d);
	free(p);
}

static void discovery_and_inherit(void **state)
{
	(void)state;
	assert_non_null(mkdtemp(tmpdir));
	write_at("repo/.git/HEAD", "ref: x\n");
	write_at("repo/.nogvl-lint.yml", "fail_level: error\nrules:\n  removed-api: false\nexclude: [gen]\n");
	write_at("repo/ext/a.c", "");
	write_at("repo/ext/inner/.nogvl-lint.yml", "inherit: true\nrules:\n  value-access-without-gvl: note\n");
	write_at("repo/ext/inner/b.c", "");
	write_at("repo/ext/alone/.nogvl-lint.yml", "rules:\n  with-gvl-escape: false\n");
	write_at("repo/ext/alone/c.c", "");
	write_at("repo/ext/bad/.nogvl-lint.yml", "rules:\n  removed-api: sometimes\n");
	write_at("repo/ext/bad/d.c", "");
	write_at("outside/e.c", "");

	struct config_set cs;
	assert_int_equal(config_set_init(&cs, NULL, false), 0);
	char *a = xasprintf("%s/repo/ext/a.c", tmpdir);
	const struct config *ca = config_for_path(&cs, a, false);
	assert_non_null(ca);
	assert_int_equal(config_fail_level(ca), SEV_ERROR);
	assert_false(config_rule_enabled(ca, "removed-api", true, NULL));

	char *b = xasprintf("%s/repo/ext/inner/b.c", tmpdir);
	const struct config *cb = config_for_path(&cs, b, false);
	assert_ptr_not_equal(cb, ca);
	assert_int_equal(config_fail_level(cb), SEV_ERROR);               /* inherited */
	assert_false(config_rule_enabled(cb, "removed-api", true, NULL)); /* inherited */
	int sev = SEV_ERROR;
	assert_true(config_rule_enabled(cb, "value-access-without-gvl", true, &sev));
	assert_int_equal(sev, SEV_NOTE);
	char *g = xasprintf("%s/repo/gen/x.c", tmpdir);
	assert_true(config_excludes(cb, g)); /* the parent's glob, relative to the parent */

	char *c = xasprintf("%s/repo/ext/alone/c.c", tmpdir);
	const struct config *cc = config_for_path(&cs, c, false);
	assert_int_equal(config_fail_level(cc), -1); /* no inherit: nearest only */
	assert_true(config_rule_enabled(cc, "removed-api", true, NULL));
	assert_false(config_rule_enabled(cc, "with-gvl-escape", true, NULL));

	char *e = xasprintf("%s/outside/e.c", tmpdir);
	(void)config_for_path(&cs, e, false); /* may find one above /tmp; must not crash */
	assert_null(cs.error);

	char *d = xasprintf("%s/repo/ext/bad/d.c", tmpdir);
	assert_null(config_for_path(&cs, d, false));
	assert_non_null(cs.error);
	assert_non_null(strstr(cs.error, "ext/bad/.nogvl-lint.yml:2:16: rule 'removed-api'"));
	config_set_free(&cs);

	/* --config FILE: that file for everything; --no-config: none */
	char *forced = xasprintf("%s/repo/ext/alone/.nogvl-lint.yml", tmpdir);
	assert_int_equal(config_set_init(&cs, forced, false), 0);
	assert_false(config_rule_enabled(config_for_path(&cs, a, false), "with-gvl-escape", true, NULL));
	config_set_free(&cs);
	assert_int_equal(config_set_init(&cs, NULL, true), 0);
	assert_null(config_for_path(&cs, a, false));
	config_set_free(&cs);

	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(forced);
	free(a);
	free(b);
	free(c);
	free(d);
	free(e);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(full_file),
		cmocka_unit_test(empty_file_is_fine),
		cmocka_unit_test(errors_name_file_line_and_problem),
		cmocka_unit_test(globs),
		cmocka_unit_test(discovery_and_inherit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
