/* test_changed.c: the unified-diff reader behind --changed-lines, the rule
 * name suggestions and the libclang search. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "changed.h"
#include "clang_api.h"
#include "rule.h"

static struct changed_lines parse_ok(const char *diff)
{
	struct changed_lines cl = {0};
	char *err = NULL;
	int rc = changed_parse(diff, strlen(diff), "/p", &cl, &err);
	if (rc != 0)
		fail_msg("parse failed: %s", err);
	return cl;
}

static void test_changed__git_u0(void **state)
{
	(void)state;
	struct changed_lines cl = parse_ok("diff --git a/ext/a.c b/ext/a.c\n"
					   "--- a/ext/a.c\n+++ b/ext/a.c\n"
					   "@@ -3,0 +4,2 @@ ctx\n+x\n+y\n"
					   "@@ -10 +12 @@\n-a\n+b\n"
					   "@@ -20,2 +21,0 @@\n-c\n-d\n");
	assert_true(changed_touches(&cl, "/p/ext/a.c", 4));
	assert_true(changed_touches(&cl, "/p/ext/a.c", 5));
	assert_false(changed_touches(&cl, "/p/ext/a.c", 6));
	assert_false(changed_touches(&cl, "/p/ext/a.c", 3));
	assert_true(changed_touches(&cl, "/p/ext/a.c", 12));
	assert_false(changed_touches(&cl, "/p/ext/a.c", 11));
	assert_false(changed_touches(&cl, "/p/ext/a.c", 13));
	/* a deletion after line 21: the lines either side */
	assert_true(changed_touches(&cl, "/p/ext/a.c", 21));
	assert_true(changed_touches(&cl, "/p/ext/a.c", 22));
	assert_false(changed_touches(&cl, "/p/ext/a.c", 20));
	assert_false(changed_touches(&cl, "/p/ext/b.c", 4));
	assert_int_equal(cl.nlines, 5);
	changed_free(&cl);
}

static void test_changed__context_and_names(void **state)
{
	(void)state;
	/* diff -u with context, a time stamp after a tab, a quoted git name, a
	 * deleted file, "\ No newline" */
	struct changed_lines cl = parse_ok("--- old.c\t2024-01-01\n+++ new.c\t2024-01-01\n"
					   "@@ -1,4 +1,4 @@\n a\n-b\n+B\n c\n d\n"
					   "diff --git \"a/sp ace\\t.c\" \"b/sp ace\\t.c\"\n"
					   "--- \"a/sp ace\\t.c\"\n+++ \"b/sp ace\\t.c\"\n@@ -0,0 +1 @@\n+q\n"
					   "\\ No newline at end of file\n"
					   "--- a/gone.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n");
	assert_false(changed_touches(&cl, "/p/new.c", 1));
	assert_true(changed_touches(&cl, "/p/new.c", 2));
	assert_false(changed_touches(&cl, "/p/new.c", 3));
	assert_true(changed_touches(&cl, "/p/sp ace\t.c", 1));
	assert_int_equal(cl.files.n, 2);
	changed_free(&cl);
}

static void test_changed__not_a_diff(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"hello\nworld\n",
		"--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n",      /* ends inside a hunk */
		"@@ -1 +1 @@\n-a\n+b\n",                        /* a hunk before any file */
		"--- a/x\n+++ b/x\n@@ -1 +1 @\n",               /* malformed header */
		"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\nzzz\n", /* not a hunk line */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct changed_lines cl = {0};
		char *err = NULL;
		assert_int_equal(changed_parse(bad[i], strlen(bad[i]), "/p", &cl, &err), -1);
		assert_non_null(err);
		free(err);
		changed_free(&cl);
	}
	/* empty: no changes */
	struct changed_lines cl = parse_ok("");
	assert_int_equal(cl.files.n, 0);
	changed_free(&cl);
}

static void test_changed__rule_suggest(void **state)
{
	(void)state;
	assert_string_equal(rule_suggest("ruby-api-without-gl"), "ruby-api-without-gvl");
	assert_string_equal(rule_suggest("unfrozen-imput"), "unfrozen-input");
	assert_string_equal(rule_suggest("offload-candiate"), "offload-candidate");
	assert_string_equal(rule_suggest("al"), "all");
	assert_null(rule_suggest("completely-different-name"));
	assert_null(rule_suggest(""));
}

static void test_changed__libclang_search(void **state)
{
	(void)state;
	char dir[] = "/tmp/nogvl-search-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char a[128], b[128], c[128], d[128];
	snprintf(a, sizeof(a), "%s/libclang-14.so.1", dir);
	snprintf(b, sizeof(b), "%s/libclang-16.so.16.0.6", dir);
	snprintf(c, sizeof(c), "%s/libclang-20.so.1", dir);
	snprintf(d, sizeof(d), "%s/libclang-16.so", dir);
	const char *files[] = {a, b, c};
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(files[i], "w");
		assert_non_null(f);
		fclose(f);
	}
	assert_int_equal(symlink("/nonexistent", d), 0);
	const char *dirs[] = {dir, NULL};
	char *got = clang_api_search(dirs);
	assert_non_null(got);
	assert_string_equal(got, b); /* 20 is out of range, the dangling link skipped */
	free(got);
	const char *none[] = {"/nonexistent-dir", NULL};
	assert_null(clang_api_search(none));
	unlink(a);
	unlink(b);
	unlink(c);
	unlink(d);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changed__git_u0),          cmocka_unit_test(test_changed__context_and_names),
		cmocka_unit_test(test_changed__not_a_diff),      cmocka_unit_test(test_changed__rule_suggest),
		cmocka_unit_test(test_changed__libclang_search),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
