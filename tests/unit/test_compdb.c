/* test_compdb.c: reading compile_commands.json (compdb.c) and turning its
 * entries into jobs (inputs.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli.h"
#include "compdb.h"
#include "helpers.h"
#include "inputs.h"

static int parse(const char *json, const char *base, struct compdb *db, char **err)
{
	memset(db, 0, sizeof(*db));
	*err = NULL;
	return compdb_parse(json, strlen(json), base, db, err);
}

static void test_compdb__arguments_and_command(void **state)
{
	(void)state;
	struct compdb db;
	char *err;
	const char *json = "[\n"
			   " {\"directory\": \"/proj/ext\", \"file\": \"a.c\",\n"
			   "  \"arguments\": [\"cc\", \"-DX=1\", \"-c\", \"a.c\", \"-o\", \"a.o\"]},\n"
			   " {\"directory\": \"/proj/ext\", \"file\": \"/proj/ext/b.c\",\n"
			   "  \"command\": \"cc -DX=1 -c b.c -o b.o\"}\n"
			   "]\n";
	assert_int_equal(parse(json, "/elsewhere", &db, &err), 0);
	assert_int_equal(db.entries.n, 2);
	assert_int_equal(db.warnings.n, 0);
	const struct compdb_entry *a = &db.entries.v[0], *b = &db.entries.v[1];
	assert_string_equal(a->file, "/proj/ext/a.c");
	assert_string_equal(a->directory, "/proj/ext");
	assert_int_equal(a->argv.n, 6);
	assert_string_equal(a->argv.v[0], "cc");
	assert_string_equal(a->argv.v[1], "-DX=1");
	assert_string_equal(b->file, "/proj/ext/b.c");
	assert_int_equal(b->argv.n, 6);
	assert_string_equal(b->argv.v[5], "b.o");
	compdb_free(&db);
}

static void test_compdb__arguments_win_over_command(void **state)
{
	(void)state;
	struct compdb db;
	char *err;
	const char *json = "[{\"directory\": \"/d\", \"file\": \"a.c\", \"arguments\": [\"cc\", \"-DFROM_ARGS\"],"
			   " \"command\": \"cc -DFROM_COMMAND\"}]";
	assert_int_equal(parse(json, "/", &db, &err), 0);
	assert_int_equal(db.entries.n, 1);
	assert_string_equal(db.entries.v[0].argv.v[1], "-DFROM_ARGS");
	compdb_free(&db);
}

static void test_compdb__shell_quoting(void **state)
{
	(void)state;
	struct compdb db;
	char *err;
	/* as bear writes -DGREETING="hello world" and a directory with a space */
	const char *json =
		"[{\"directory\": \"/d\", \"file\": \"a.c\","
		" \"command\": \"cc \\\"-DGREETING=\\\\\\\"hello world\\\\\\\"\\\" '-I/my dir/inc' -c a.c\"}]";
	assert_int_equal(parse(json, "/", &db, &err), 0);
	assert_int_equal(db.entries.n, 1);
	const strlist *v = &db.entries.v[0].argv;
	assert_int_equal(v->n, 5);
	assert_string_equal(v->v[1], "-DGREETING=\"hello world\"");
	assert_string_equal(v->v[2], "-I/my dir/inc");
	compdb_free(&db);
}

static void test_compdb__relative_paths(void **state)
{
	(void)state;
	struct compdb db;
	char *err;
	const char *json = "[{\"directory\": \"build/../ext\", \"file\": \"src/../a.c\", \"arguments\": [\"cc\"]},"
			   " {\"directory\": \".\", \"file\": \"../other/b.c\", \"arguments\": [\"cc\"]},"
			   " {\"file\": \"c.c\", \"arguments\": [\"cc\"]}]";
	assert_int_equal(parse(json, "/proj", &db, &err), 0);
	assert_int_equal(db.entries.n, 3);
	/* a relative "directory" is resolved against the database's own directory */
	assert_string_equal(db.entries.v[0].directory, "/proj/ext");
	/* a relative "file" against the entry's "directory" */
	assert_string_equal(db.entries.v[0].file, "/proj/ext/a.c");
	assert_string_equal(db.entries.v[1].directory, "/proj");
	assert_string_equal(db.entries.v[1].file, "/other/b.c");
	/* no "directory" at all: the database's directory */
	assert_string_equal(db.entries.v[2].file, "/proj/c.c");
	compdb_free(&db);
}

static void test_compdb__load_relative_to_db_file(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *dbp = th_write(dir, "build/compile_commands.json",
			     "[{\"directory\": \"../ext\", \"file\": \"x.c\", \"command\": \"cc -c x.c\"}]");
	char *cwd = getcwd(NULL, 0);
	assert_int_equal(chdir("/"), 0); /* the current directory must not matter */
	struct compdb db = {0};
	char *err = NULL;
	assert_int_equal(compdb_load(dbp, &db, &err), 0);
	assert_int_equal(db.entries.n, 1);
	char *want = path_join(dir, "ext/x.c");
	assert_string_equal(db.entries.v[0].file, want);
	free(want);
	compdb_free(&db);
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	th_rm_rf(dir);
	free(dbp);
	free(dir);
}

static void test_compdb__not_json(void **state)
{
	(void)state;
	struct compdb db;
	char *err;
	assert_int_equal(parse("[\n  {\"file\": \"a.c\",\n  oops\n]", "/", &db, &err), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "not valid JSON"));
	assert_non_null(strstr(err, "line 3"));
	assert_non_null(strstr(err, "column"));
	assert_null(strchr(err, '\n')); /* one line */
	free(err);
	compdb_free(&db);

	assert_int_equal(parse("", "/", &db, &err), -1);
	assert_non_null(strstr(err, "not valid JSON"));
	free(err);
	compdb_free(&db);
}

static void test_compdb__top_level_not_array(void **state)
{
	(void)state;
	struct compdb db;
	char *err;
	assert_int_equal(parse("{\"file\": \"a.c\"}", "/", &db, &err), -1);
	assert_non_null(strstr(err, "top level must be a JSON array"));
	free(err);
	compdb_free(&db);
}

static void test_compdb__bad_entries_skipped(void **state)
{
	(void)state;
	struct compdb db;
	char *err;
	const char *json = "[\"just a string\","
			   " {\"directory\": \"/d\", \"arguments\": [\"cc\"]},"
			   " {\"directory\": \"/d\", \"file\": \"nocmd.c\"},"
			   " {\"directory\": \"/d\", \"file\": \"badargs.c\", \"arguments\": [\"cc\", 3]},"
			   " {\"directory\": \"/d\", \"file\": \"quote.c\", \"command\": \"cc 'open\"},"
			   " {\"directory\": \"/d\", \"file\": \"empty.c\", \"command\": \"   \"},"
			   " {\"directory\": 7, \"file\": \"dirnum.c\", \"command\": \"cc\"},"
			   " {\"directory\": \"/d\", \"file\": \"good.c\", \"command\": \"cc -c good.c\"}]";
	assert_int_equal(parse(json, "/", &db, &err), 0);
	assert_int_equal(db.entries.n, 1);
	assert_string_equal(db.entries.v[0].file, "/d/good.c");
	assert_int_equal(db.warnings.n, 7);
	assert_non_null(strstr(db.warnings.v[0], "entry 0: not an object"));
	assert_non_null(strstr(db.warnings.v[1], "entry 1: no \"file\""));
	assert_non_null(strstr(db.warnings.v[2], "entry 2: neither \"arguments\" nor \"command\""));
	assert_non_null(strstr(db.warnings.v[3], "entry 3: \"arguments\" is not an array of strings"));
	assert_non_null(strstr(db.warnings.v[4], "entry 4: \"command\""));
	assert_non_null(strstr(db.warnings.v[5], "entry 5: empty command"));
	assert_non_null(strstr(db.warnings.v[6], "entry 6: \"directory\" is not a string"));
	compdb_free(&db);
}

static void test_compdb__duplicate_files(void **state)
{
	(void)state;
	struct compdb db;
	char *err;
	const char *json = "[{\"directory\": \"/d\", \"file\": \"a.c\", \"command\": \"cc -DFIRST -c a.c\"},"
			   " {\"directory\": \"/d\", \"file\": \"./a.c\", \"command\": \"cc -DSECOND -c a.c\"}]";
	assert_int_equal(parse(json, "/", &db, &err), 0);
	/* the reader keeps both; the driver analyses the file once (below) */
	assert_int_equal(db.entries.n, 2);
	assert_string_equal(db.entries.v[0].file, db.entries.v[1].file);
	compdb_free(&db);
}

static void test_compdb__missing_file(void **state)
{
	(void)state;
	struct compdb db = {0};
	char *err = NULL;
	assert_int_equal(compdb_load("/nonexistent/compile_commands.json", &db, &err), -1);
	assert_non_null(strstr(err, "cannot read compile database /nonexistent/compile_commands.json"));
	assert_non_null(strstr(err, "No such file"));
	free(err);
	compdb_free(&db);
}

/* The driver: jobs from a database on disk. */
static void test_compdb__jobs(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *a = th_write(dir, "ext/a.c", "int a;\n");
	char *b = th_write(dir, "ext/b.c", "int b;\n");
	free(th_write(dir, "ext/notes.txt", "x\n"));
	char *json = xasprintf(
		"[{\"directory\": \"%s/ext\", \"file\": \"a.c\", \"command\": \"cc -Iinc -DONE -c a.c -o a.o\"},"
		" {\"directory\": \"%s/ext\", \"file\": \"a.c\", \"command\": \"cc -DTWO -c a.c\"},"
		" {\"directory\": \"%s/ext\", \"file\": \"b.c\", \"arguments\": [\"cc\", \"-c\", \"b.c\"]},"
		" {\"directory\": \"%s/ext\", \"file\": \"notes.txt\", \"arguments\": [\"cc\", \"notes.txt\"]}]",
		dir, dir, dir, dir);
	char *dbp = th_write(dir, "compile_commands.json", json);
	free(json);

	struct options o;
	options_init(&o);
	o.compile_commands = dbp;
	struct inputs in = {0};
	char *err = NULL;
	assert_int_equal(inputs_build(&o, &in, &err), 0);
	assert_int_equal(in.jobs.n, 2);
	assert_string_equal(in.jobs.v[0].file, a);
	assert_string_equal(in.jobs.v[1].file, b);
	const strlist *args = &in.jobs.v[0].args;
	assert_true(th_has(args->v, args->n, "-DONE"));
	assert_false(th_has(args->v, args->n, "-DTWO")); /* the first entry of a file wins */
	char *inc = xasprintf("-I%s/ext/inc", dir);
	assert_true(th_has(args->v, args->n, inc)); /* relative -I made absolute */
	free(inc);
	assert_false(th_has(args->v, args->n, "-c"));
	assert_false(th_has(args->v, args->n, "a.o"));
	assert_true(th_has_sub(in.jobs.v[0].dropped.v, in.jobs.v[0].dropped.n, "-o a.o"));
	assert_true(th_has_sub(in.notes.v, in.notes.n, "more than one entry"));
	assert_false(in.buildless);
	inputs_free(&in);
	options_free(&o);

	/* positional paths narrow the report, not the analysis: every entry is
	 * analysed, the paths are the report's scope; one that matches nothing
	 * is said */
	options_init(&o);
	o.compile_commands = dbp;
	vec_push(&o.paths, b);
	char *extdir = path_join(dir, "ext/notes.txt");
	vec_push(&o.paths, extdir);
	memset(&in, 0, sizeof(in));
	assert_int_equal(inputs_build(&o, &in, &err), 0);
	assert_int_equal(in.jobs.n, 2);
	assert_true(th_has(in.report_only.v, in.report_only.n, b));
	assert_true(th_has_sub(in.warnings.v, in.warnings.n, "notes.txt: no entry in the compile database"));
	inputs_free(&in);
	options_free(&o);
	free(extdir);

	th_rm_rf(dir);
	free(a);
	free(b);
	free(dbp);
	free(dir);
}

static void test_compdb__plugin_entry_refused(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *json = xasprintf(
		"[{\"directory\": \"%s\", \"file\": \"a.c\","
		" \"arguments\": [\"cc\", \"-Xclang\", \"-load\", \"-Xclang\", \"evil.so\", \"-c\", \"a.c\"]}]",
		dir);
	char *dbp = th_write(dir, "compile_commands.json", json);
	free(json);
	struct options o;
	options_init(&o);
	o.compile_commands = dbp;
	struct inputs in = {0};
	char *err = NULL;
	assert_int_equal(inputs_build(&o, &in, &err), 2);
	assert_non_null(err);
	assert_non_null(strstr(err, "refusing compiler flag '-Xclang -load'"));
	assert_null(strchr(err, '\n'));
	free(err);
	inputs_free(&in);
	options_free(&o);
	th_rm_rf(dir);
	free(dbp);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compdb__arguments_and_command),
		cmocka_unit_test(test_compdb__arguments_win_over_command),
		cmocka_unit_test(test_compdb__shell_quoting),
		cmocka_unit_test(test_compdb__relative_paths),
		cmocka_unit_test(test_compdb__load_relative_to_db_file),
		cmocka_unit_test(test_compdb__not_json),
		cmocka_unit_test(test_compdb__top_level_not_array),
		cmocka_unit_test(test_compdb__bad_entries_skipped),
		cmocka_unit_test(test_compdb__duplicate_files),
		cmocka_unit_test(test_compdb__missing_file),
		cmocka_unit_test(test_compdb__jobs),
		cmocka_unit_test(test_compdb__plugin_entry_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
