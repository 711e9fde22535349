/* Unit tests for fix.c: edits, unified diffs, atomic replacement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "fix.h"

static void test_apply_edits(void **state)
{
	(void)state;
	const char *src = "rb_thread_call_without_gvl(f, a, NULL, NULL);\n";
	struct edit e[] = {
		{0, 26, "rb_nogvl"},
		{43, 0, ", RB_NOGVL_OFFLOAD_SAFE"},
	};
	size_t n = 0;
	char *out = apply_edits(src, strlen(src), e, 2, &n);
	assert_string_equal(out, "rb_nogvl(f, a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);\n");
	assert_int_equal(n, strlen(out));
	free(out);
}

static char *diff_of(const char *a, const char *b)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	write_unified_diff(f, "x.c", a, strlen(a), b, strlen(b));
	fclose(f);
	return buf;
}

static void test_diff_one_change(void **state)
{
	(void)state;
	const char *a = "1\n2\n3\n4\n5\n6\n7\n8\n9\n";
	const char *b = "1\n2\n3\n4\nFIVE\n6\n7\n8\n9\n";
	char *d = diff_of(a, b);
	assert_string_equal(d, "--- a/x.c\n+++ b/x.c\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+FIVE\n 6\n 7\n 8\n");
	free(d);
}

static void test_diff_insertion_and_two_hunks(void **state)
{
	(void)state;
	const char *a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
	const char *b = "a\nINS\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n";
	char *d = diff_of(a, b);
	assert_non_null(strstr(d, "@@ -1,4 +1,5 @@\n a\n+INS\n b\n c\n d\n"));
	assert_non_null(strstr(d, "-l\n+L\n m\n"));
	free(d);
}

static void test_diff_identical_is_empty(void **state)
{
	(void)state;
	char *d = diff_of("same\n", "same\n");
	assert_string_equal(d, "--- a/x.c\n+++ b/x.c\n");
	free(d);
}

static void test_atomic_write_keeps_mode(void **state)
{
	(void)state;
	char dir[] = "/tmp/nogvl-fix-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = path_join(dir, "f.c");
	FILE *f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	chmod(path, 0640);
	char *err = NULL;
	assert_int_equal(atomic_write(path, "new text\n", 9, &err), 0);
	size_t len = 0;
	char *text = read_file(path, &len, 0);
	assert_string_equal(text, "new text\n");
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	free(text);
	/* a missing file is an error, not a crash */
	char *missing = path_join(dir, "nope.c");
	assert_int_equal(atomic_write(missing, "x", 1, &err), -1);
	assert_non_null(err);
	free(err);
	unlink(path);
	rmdir(dir);
	free(missing);
	free(path);
}

/* atomic_replace: the content must still be what was analysed; no temporary
 * file is left either way; the file's mode and a symlink next to it stay. */
static void test_atomic_replace_checks_hash(void **state)
{
	(void)state;
	char dir[] = "/tmp/nogvl-fix-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *path = path_join(dir, "f.c");
	FILE *f = fopen(path, "w");
	fputs("old\n", f);
	fclose(f);
	chmod(path, 0751);
	uint64_t old_hash = XXH3_64bits("old\n", 4), other = old_hash ^ 1;
	char *err = NULL;
	assert_int_equal(atomic_replace(path, "new\n", 4, &other, &err), -1);
	assert_non_null(strstr(err, "changed while it was being fixed"));
	free(err);
	err = NULL;
	char *text = read_file(path, NULL, 0);
	assert_string_equal(text, "old\n");
	free(text);
	assert_int_equal(atomic_replace(path, "new\n", 4, &old_hash, &err), 0);
	text = read_file(path, NULL, 0);
	assert_string_equal(text, "new\n");
	free(text);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0751);
	/* only f.c in the directory: no temporary file */
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.' || (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0);
	closedir(d);
	assert_int_equal(n, 1);
	/* not a regular file */
	assert_int_equal(atomic_replace(dir, "x", 1, NULL, &err), -1);
	assert_non_null(strstr(err, "not a regular file"));
	free(err);
	unlink(path);
	rmdir(dir);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_apply_edits),
		cmocka_unit_test(test_diff_one_change),
		cmocka_unit_test(test_diff_insertion_and_two_hunks),
		cmocka_unit_test(test_diff_identical_is_empty),
		cmocka_unit_test(test_atomic_write_keeps_mode),
		cmocka_unit_test(test_atomic_replace_checks_hash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
