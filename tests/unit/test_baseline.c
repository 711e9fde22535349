/* Baseline files: write, read back, hide recorded findings, list fixed ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "baseline.h"
#include "fingerprint.h"
#include "rule.h"

static char dir[] = "/tmp/nogvl-bl-XXXXXX";
static char cwd[4096];

static void put(const char *name, const char *text)
{
	FILE *f = fopen(name, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct finding *add(struct findings *fs, const char *slug, const char *file, uint32_t line, const char *fn)
{
	char *abs = path_absolute(file);
	static struct strpool pool;
	struct loc l = {intern(&pool, abs), line, 3, 0};
	free(abs);
	return finding_add(fs, rule_find(slug), SEV_ERROR, &l, fn, "msg with \"quotes\" and \xff bytes");
}

static void round_trip(void **state)
{
	(void)state;
	put("a.c", "void f(void) {\n  rb_raise(e);\n  TRAP_BEG;\n}\n");
	put("b.c", "void g(void) {\n  rb_funcall(x);\n}\n");
	source_cache_clear();
	struct findings fs = {0};
	add(&fs, "ruby-api-without-gvl", "a.c", 2, "f");
	add(&fs, "removed-api", "a.c", 3, "f");
	struct finding *sup = add(&fs, "ruby-api-without-gvl", "b.c", 2, "g");
	sup->suppressed = 1; /* suppressed findings are not recorded */
	findings_sort(&fs);
	fingerprints_compute(&fs);
	char *err = NULL;
	assert_int_equal(baseline_write("base.json", &fs, &err), 0);
	findings_free(&fs);

	struct baseline b;
	assert_int_equal(baseline_read("base.json", &b, &err), 0);
	assert_int_equal(b.v.n, 2);
	assert_string_equal(b.tool_version, NOGVL_VERSION);
	assert_string_equal(b.v.v[0].file, "a.c");
	assert_string_equal(b.v.v[0].code, "TRAP_BEG;"); /* sorted by file, function, rule */
	assert_string_equal(b.v.v[0].rule, "removed-api");

	/* next run: a.c moved down two lines, TRAP_BEG fixed, a new finding in b.c */
	put("a.c", "/* header */\n\nvoid f(void) {\n  rb_raise(e);\n}\n");
	source_cache_clear();
	struct findings now = {0};
	struct finding *old = add(&now, "ruby-api-without-gvl", "a.c", 4, "f");
	struct finding *neu = add(&now, "ruby-api-without-gvl", "b.c", 2, "g");
	findings_sort(&now);
	fingerprints_compute(&now);
	struct hmap analysed = {0};
	hmap_put(&analysed, "a.c", (void *)1);
	hmap_put(&analysed, "b.c", (void *)1);
	baseline_apply(&b, &now, &analysed);
	assert_true(old->baselined);
	assert_false(neu->baselined);
	assert_int_equal(b.hidden, 1);
	assert_int_equal(b.fixed, 1);
	assert_int_equal(b.v.v[0].state, BL_FIXED);
	assert_int_equal(b.v.v[1].state, BL_MATCHED);
	hmap_free(&analysed);
	baseline_free(&b);

	/* entries of files not analysed in this run are not called fixed */
	assert_int_equal(baseline_read("base.json", &b, &err), 0);
	struct hmap only_b = {0};
	hmap_put(&only_b, "b.c", (void *)1);
	baseline_apply(&b, &now, &only_b);
	assert_int_equal(b.fixed, 0);
	assert_int_equal(b.v.v[0].state, BL_NOT_CHECKED);
	hmap_free(&only_b);
	baseline_free(&b);
	findings_free(&now);
	source_cache_clear();
}

static void bad_files(void **state)
{
	(void)state;
	struct baseline b;
	char *err = NULL;
	assert_int_equal(baseline_read("missing.json", &b, &err), -1);
	assert_non_null(strstr(err, "missing.json: cannot read the baseline"));
	free(err);
	baseline_free(&b);
	put("bad.json", "{\"nogvl_lint_baseline\": 1,\n \"findings\": [\n");
	assert_int_equal(baseline_read("bad.json", &b, &err), -1);
	assert_non_null(strstr(err, "bad.json:3:"));
	free(err);
	baseline_free(&b);
	put("other.json", "{\"version\": \"2.1.0\"}\n");
	assert_int_equal(baseline_read("other.json", &b, &err), -1);
	assert_non_null(strstr(err, "not a nogvl-lint baseline"));
	free(err);
	baseline_free(&b);
	put("future.json", "{\"nogvl_lint_baseline\": 99, \"findings\": []}\n");
	assert_int_equal(baseline_read("future.json", &b, &err), -1);
	assert_non_null(strstr(err, "format 99"));
	free(err);
	baseline_free(&b);
}

static int setup(void **state)
{
	(void)state;
	if (!getcwd(cwd, sizeof(cwd)) || !mkdtemp(dir) || chdir(dir) != 0)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (chdir(cwd) != 0)
		return -1;
	char *cmd = xasprintf("rm -rf '%s'", dir);
	int rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(round_trip),
		cmocka_unit_test(bad_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
