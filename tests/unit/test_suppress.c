/* Inline suppressions: the comment scanner, what lines a comment covers, use
 * counting and unused reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "rule.h"
#include "suppress.h"

static void scan(const char *text, struct suppress_file *sf)
{
	memset(sf, 0, sizeof(*sf));
	sf->path = xstrdup("/x/a.c");
	suppress_scan(sf->path, text, strlen(text), sf);
}

static void trailing_and_standalone(void **state)
{
	(void)state;
	struct suppress_file sf;
	scan("int a;\n"                                                               /* 1 */
	     "rb_raise(x); // nogvl-lint: ignore[ruby-api-without-gvl] needs GVL\n"   /* 2 */
	     "// nogvl-lint: ignore[removed-api,value-access-without-gvl] old code\n" /* 3 */
	     "\n"                                                                     /* 4 */
	     "// more explanation\n"                                                  /* 5 */
	     "TRAP_BEG;\n"                                                            /* 6 */
	     "/* nogvl-lint: ignore[with-gvl-escape] */ call();\n"                    /* 7 */
	     "x = 1; /* nogvl-lint:ignore[removed-api]*/\n",                          /* 8 */
	     &sf);
	assert_int_equal(sf.warnings.n, 0);
	assert_int_equal(sf.v.n, 4);
	assert_int_equal(sf.v.v[0].first, 2);
	assert_int_equal(sf.v.v[0].last, 2);
	assert_int_equal(sf.v.v[0].nslugs, 1);
	assert_string_equal(sf.v.v[0].slugs[0], "ruby-api-without-gvl");
	assert_string_equal(sf.v.v[0].reason, " needs GVL");
	/* alone on its line: the next line with code, past blank and comment lines */
	assert_int_equal(sf.v.v[1].first, 6);
	assert_int_equal(sf.v.v[1].last, 6);
	assert_int_equal(sf.v.v[1].nslugs, 2);
	assert_string_equal(sf.v.v[1].slugs[1], "value-access-without-gvl");
	/* code after a block comment: its own line */
	assert_int_equal(sf.v.v[2].first, 7);
	assert_int_equal(sf.v.v[3].first, 8);
	suppress_file_free(&sf);
}

static void not_fooled_by_strings_and_splices(void **state)
{
	(void)state;
	struct suppress_file sf;
	scan("const char *s = \"// nogvl-lint: ignore[removed-api]\";\n"
	     "char c = '\"'; // nogvl-lint: ignore[removed-api]\n"
	     "#define M(x) \\\n"
	     "    /* nogvl-lint: ignore[ruby-api-without-gvl] in the macro */ \\\n"
	     "    rb_raise(x)\n",
	     &sf);
	assert_int_equal(sf.warnings.n, 0);
	assert_int_equal(sf.v.n, 2);
	assert_int_equal(sf.v.v[0].first, 2); /* the string on line 1 is not a comment */
	/* alone on its line inside the #define (the splice is not code): covers line 5 */
	assert_int_equal(sf.v.v[1].first, 5);
	suppress_file_free(&sf);
}

static void blocks(void **state)
{
	(void)state;
	struct suppress_file sf;
	scan("// nogvl-lint: ignore-begin[ruby-api-without-gvl] legacy\n" /* 1 */
	     "a();\n"                                                     /* 2 */
	     "// nogvl-lint: ignore-begin[removed-api]\n"                 /* 3 */
	     "b();\n"                                                     /* 4 */
	     "// nogvl-lint: ignore-end[ruby-api-without-gvl]\n"          /* 5: closes the outer one by name */
	     "c();\n"                                                     /* 6 */
	     "// nogvl-lint: ignore-end\n"                                /* 7 */
	     "// nogvl-lint: ignore-begin[with-gvl-escape]\n"             /* 8: never closed */
	     "d();\n",
	     &sf);
	assert_int_equal(sf.v.n, 3);
	assert_true(sf.v.v[0].block);
	assert_string_equal(sf.v.v[0].slugs[0], "ruby-api-without-gvl");
	assert_int_equal(sf.v.v[0].first, 1);
	assert_int_equal(sf.v.v[0].last, 5);
	assert_string_equal(sf.v.v[1].slugs[0], "removed-api");
	assert_int_equal(sf.v.v[1].first, 3);
	assert_int_equal(sf.v.v[1].last, 7);
	assert_int_equal(sf.v.v[2].last, UINT32_MAX);
	assert_int_equal(sf.warnings.n, 1);
	assert_non_null(strstr(sf.warnings.v[0], "8:1: ignore-begin without ignore-end"));
	suppress_file_free(&sf);
}

static void malformed_directives_warn(void **state)
{
	(void)state;
	struct suppress_file sf;
	scan("x(); // nogvl-lint: ignore ruby-api-without-gvl\n"
	     "x(); // nogvl-lint: ignore[no-such-rule]\n"
	     "x(); // nogvl-lint: ignroe[removed-api]\n"
	     "x(); // nogvl-lint: ignore[removed-api\n"
	     "// nogvl-lint: ignore-end\n"
	     "x(); // NOLINT is not ours, nor is a mention of nogvl-lint: here\n",
	     &sf);
	assert_int_equal(sf.v.n, 0);
	assert_int_equal(sf.warnings.n, 5);
	assert_non_null(strstr(sf.warnings.v[0], "1:6: 'ignore' needs a list of rules"));
	assert_non_null(strstr(sf.warnings.v[1], "2:6: unknown rule 'no-such-rule'"));
	assert_non_null(strstr(sf.warnings.v[2], "3:6: unknown nogvl-lint directive 'ignroe'"));
	assert_non_null(strstr(sf.warnings.v[3], "4:6: 'ignore[' without a closing ']'"));
	assert_non_null(strstr(sf.warnings.v[4], "5:1: ignore-end without a matching ignore-begin"));
	suppress_file_free(&sf);
}

static void apply_and_unused(void **state)
{
	(void)state;
	char path[] = "/tmp/nogvl-suppress-XXXXXX.c";
	int fd = mkstemps(path, 2);
	assert_true(fd >= 0);
	const char *text = "void f(void) {\n"
			   "  rb_raise(e); // nogvl-lint: ignore[ruby-api-without-gvl,removed-api] why\n"
			   "  TRAP_BEG;\n"
			   "}\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	FILE *devnull = fopen("/dev/null", "w");
	log_stream = devnull;
	struct findings fs = {0};
	const struct rule_desc *api = rule_find("ruby-api-without-gvl"), *rem = rule_find("removed-api");
	struct loc l2 = {path, 2, 3, 0}, l3 = {path, 3, 3, 0};
	struct finding *f1 = finding_add(&fs, api, SEV_ERROR, &l2, "f", "raises");
	struct finding *f2 = finding_add(&fs, rem, SEV_ERROR, &l3, "f", "removed");
	struct suppress_set ss = {0};
	suppress_apply(&ss, &fs, NULL);
	assert_true(f1->suppressed);
	assert_non_null(f1->suppressed_by);
	assert_string_equal(f1->suppressed_by->reason, " why");
	assert_false(f2->suppressed); /* the comment covers line 2 only */
	/* removed-api named on line 2 suppressed nothing: unused */
	suppress_report_unused(&ss, &fs, rule_find("unused-suppression"), SEV_WARNING, NULL, NULL);
	assert_int_equal(fs.v.n, 3);
	const struct finding *u = fs.v.v[2];
	assert_string_equal(u->rule->slug, "unused-suppression");
	assert_int_equal(u->loc.line, 2);
	assert_non_null(strstr(u->msg, "no 'removed-api' finding on line 2"));
	suppress_set_free(&ss);
	findings_free(&fs);
	log_stream = NULL;
	fclose(devnull);
	unlink(path);
}

/* A finding in a macro's expansion is suppressed by a comment anywhere in
 * the macro's definition, continuation lines included (the file's text is not
 * kept: only which lines end with a backslash), and not by one below a
 * one-line definition. */
static void macro_definition_lines(void **state)
{
	(void)state;
	const char *text = "#define TWICE(n) \\\n"
			   "\tdo { \\\n"
			   "\t\t/* nogvl-lint: ignore[ruby-api-without-gvl] why */ \\\r\n"
			   "\t\tif (!(n)) rb_raise(e); \\\n"
			   "\t} while (0)\n"
			   "#define ONE 1\n"
			   "/* nogvl-lint: ignore[ruby-api-without-gvl] */\n"
			   "int x;\n";
	struct suppress_file *sf = xcalloc(1, sizeof(*sf));
	sf->path = xstrdup("/nowhere/m.c");
	suppress_file_load(sf, text, strlen(text));
	assert_int_equal(sf->nlines, 9); /* the empty line after the last newline counts */
	struct suppress_set ss = {0};
	hmap_put(&ss.files, sf->path, sf);
	struct tu_facts tu = {0};
	struct macro_def twice = {"TWICE", {sf->path, 1, 9, 0}, 1, ""}, one = {"ONE", {sf->path, 6, 9, 0}, 0, "1"};
	vec_push(&tu.macro_defs, twice);
	vec_push(&tu.macro_defs, one);
	struct tu_facts *tus[] = {&tu};
	struct model m = {0};
	m.tus = tus;
	m.ntus = 1;
	struct findings fs = {0};
	const struct rule_desc *api = rule_find("ruby-api-without-gvl");
	struct loc use = {"/nowhere/use.c", 3, 2, 0};
	struct finding *f1 = finding_add(&fs, api, SEV_ERROR, &use, "f", "raises");
	f1->macro = "TWICE";
	struct finding *f2 = finding_add(&fs, api, SEV_ERROR, &use, "f", "raises");
	f2->macro = "ONE";
	suppress_apply(&ss, &fs, &m);
	assert_true(f1->suppressed);
	assert_false(f2->suppressed);
	findings_free(&fs);
	vec_free(&tu.macro_defs);
	suppress_set_free(&ss);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(trailing_and_standalone),
		cmocka_unit_test(not_fooled_by_strings_and_splices),
		cmocka_unit_test(blocks),
		cmocka_unit_test(malformed_directives_warn),
		cmocka_unit_test(apply_and_unused),
		cmocka_unit_test(macro_definition_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
