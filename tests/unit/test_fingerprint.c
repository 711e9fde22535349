/* Fingerprints: stable across unrelated edits, different for different findings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fingerprint.h"
#include "rule.h"

static void normalise(void **state)
{
	(void)state;
	char *a = fingerprint_normalise_code("\t  rb_raise( e,\t\"a  b\" );   /* expect: x */  // more");
	assert_string_equal(a, "rb_raise( e, \"a  b\" );");
	char *b = fingerprint_normalise_code("rb_raise( e, \"a  b\" );");
	assert_string_equal(a, b);
	char *c = fingerprint_normalise_code("x = \"// not a comment\"; y");
	assert_string_equal(c, "x = \"// not a comment\"; y");
	char *d = fingerprint_normalise_code(NULL);
	assert_string_equal(d, "");
	free(a);
	free(b);
	free(c);
	free(d);
}

static void parts_matter(void **state)
{
	(void)state;
	char x[33], y[33];
	fingerprint_of("r", "ext/a.c", "f", "code;", 0, x);
	assert_int_equal(strlen(x), 32);
	fingerprint_of("r", "ext/a.c", "f", "code;", 0, y);
	assert_string_equal(x, y);
	const char *variants[][4] = {
		{"s", "ext/a.c", "f", "code;"},
		{"r", "ext/b.c", "f", "code;"},
		{"r", "ext/a.c", "g", "code;"},
		{"r", "ext/a.c", "f", "code2;"},
	};
	for (size_t i = 0; i < 4; i++) {
		fingerprint_of(variants[i][0], variants[i][1], variants[i][2], variants[i][3], 0, y);
		assert_string_not_equal(x, y);
	}
	fingerprint_of("r", "ext/a.c", "f", "code;", 1, y);
	assert_string_not_equal(x, y);
	/* no ambiguity from joining: ("ab","c") vs ("a","bc") */
	fingerprint_of("r", "ab", "c", "", 0, x);
	fingerprint_of("r", "a", "bc", "", 0, y);
	assert_string_not_equal(x, y);
}

/* Moving the finding down (lines inserted above) or reindenting keeps it. */
static void stable_across_unrelated_edits(void **state)
{
	(void)state;
	char dir[] = "/tmp/nogvl-fp-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = xasprintf("%s/a.c", dir);
	const struct rule_desc *rd = rule_find("ruby-api-without-gvl");
	char fp[3][33];
	const char *texts[3] = {
		"void f(void) {\n  rb_raise(e, \"x\");\n}\n",
		"/* a new comment */\n#include <x.h>\n\nvoid f(void) {\n      rb_raise(e,   \"x\"); // why\n}\n",
		"void f(void) {\n  rb_raise(e, \"y\");\n}\n",
	};
	const uint32_t lines[3] = {2, 5, 2};
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	for (int i = 0; i < 3; i++) {
		FILE *f = fopen(path, "w");
		fputs(texts[i], f);
		fclose(f);
		source_cache_clear();
		struct findings fs = {0};
		struct loc l = {path, lines[i], 3, 0};
		finding_add(&fs, rd, SEV_ERROR, &l, "f", "message that may change between versions");
		fingerprints_compute(&fs);
		strcpy(fp[i], fs.v.v[0]->fingerprint);
		findings_free(&fs);
	}
	assert_string_equal(fp[0], fp[1]);
	assert_string_not_equal(fp[0], fp[2]); /* the code itself changed */

	/* two identical lines in one function: told apart by occurrence */
	FILE *f = fopen(path, "w");
	fputs("void f(void) {\n  rb_raise(e, \"x\");\n  rb_raise(e, \"x\");\n}\n", f);
	fclose(f);
	source_cache_clear();
	struct findings fs = {0};
	struct loc l2 = {path, 2, 3, 0}, l3 = {path, 3, 3, 0};
	finding_add(&fs, rd, SEV_ERROR, &l2, "f", "m");
	finding_add(&fs, rd, SEV_ERROR, &l3, "f", "m");
	findings_sort(&fs);
	fingerprints_compute(&fs);
	assert_string_equal(fs.v.v[0]->fingerprint, fp[0]);
	assert_string_not_equal(fs.v.v[0]->fingerprint, fs.v.v[1]->fingerprint);
	findings_free(&fs);
	source_cache_clear();

	/* the path is relative to the project root, whatever the current directory */
	char *rel = fingerprint_relpath(NULL, path);
	assert_string_equal(rel, "a.c");
	free(rel);
	char *git = xasprintf("%s/sub/.git", dir);
	char *cmd = xasprintf("mkdir -p '%s' && mkdir -p '%s/sub/ext'", git, dir);
	assert_int_equal(system(cmd), 0);
	char *inner = xasprintf("%s/sub/ext/b.c", dir);
	rel = fingerprint_relpath(NULL, inner);
	assert_string_equal(rel, "ext/b.c");
	free(rel);
	assert_int_equal(chdir(cwd), 0);
	free(cmd);
	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(git);
	free(inner);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(normalise),
		cmocka_unit_test(parts_matter),
		cmocka_unit_test(stable_across_unrelated_edits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
