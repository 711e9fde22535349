/* test_parse.c: parsing jobs (parse.c): arguments clang rejects are dropped
 * and recorded, files that fail do not take the others down. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "clang_api.h"

#include "helpers.h"
#include "parse.h"
#include "schedule.h"

static char *dir;
static struct file_classifier fc;
static const char *roots[1];

static int setup(void **state)
{
	(void)state;
	dir = th_mkdtemp();
	roots[0] = dir;
	fc.project_roots = roots;
	fc.nproject_roots = 1;
	free(th_write(dir, "marked.c",
		      "#ifndef MARK\n#error MARK is not defined\n#endif\nint f(void) { return MARK; }\n"));
	free(th_write(dir, "fatal.c", "#include \"no_such_header.h\"\nint g(void) { return undeclared_name; }\n"));
	char *bin = path_join(dir, "binary.c");
	FILE *f = fopen(bin, "wb");
	fwrite("\x7f"
	       "ELF\0\0\0\x01\x02",
	       1, 9, f);
	fclose(f);
	free(bin);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	th_rm_rf(dir);
	free(dir);
	return 0;
}

static void make_job(struct tu_job *j, const char *name, ...)
{
	memset(j, 0, sizeof(*j));
	j->file = path_join(dir, name);
	j->display = xstrdup(name);
	j->directory = xstrdup(dir);
	va_list ap;
	va_start(ap, name);
	for (const char *a = va_arg(ap, const char *); a; a = va_arg(ap, const char *))
		vec_push(&j->args, xstrdup(a));
	va_end(ap);
}

static struct tu_facts *parse(const struct tu_job *j)
{
	struct parse_opts po = {0};
	po.jobs = 1;
	po.fc = &fc;
	po.recover = true;
	CXIndex idx = clang_createIndex(0, 0);
	struct tu_facts *tu = parse_one(idx, j, &po);
	clang_disposeIndex(idx);
	return tu;
}

static bool dropped(const struct tu_facts *tu, const char *flag)
{
	for (size_t i = 0; i < tu->dropped_flags.n; i++)
		if (str_starts(tu->dropped_flags.v[i], flag) && tu->dropped_flags.v[i][strlen(flag)] == ' ')
			return true;
	return false;
}

static void test_parse__good_flags_kept(void **state)
{
	(void)state;
	struct tu_job j;
	make_job(&j, "marked.c", "-DMARK=1", "-O2", "-Wall", "-std=gnu11", "-fPIC", NULL);
	struct tu_facts *tu = parse(&j);
	assert_int_equal(tu->status, TU_OK);
	assert_int_equal(tu->nerrors, 0);
	assert_int_equal(tu->dropped_flags.n, 0);
	assert_int_equal(tu->funcs.n, 1);
	tu_facts_free(tu);
	tu_job_free(&j);
}

/* GCC-only flags mkmf passes on: clang says "unknown argument"; they are
 * dropped, the rest of the command line stays, and the reason is kept. */
static void test_parse__unknown_arguments_dropped(void **state)
{
	(void)state;
	struct tu_job j;
	make_job(&j, "marked.c", "-fno-allow-store-data-races", "-DMARK=1", "-fanalyzer", "-mindirect-branch-register",
		 NULL);
	struct tu_facts *tu = parse(&j);
	assert_int_equal(tu->status, TU_OK);
	assert_int_equal(tu->nerrors, 0); /* MARK still defined */
	assert_int_equal(tu->dropped_flags.n, 3);
	assert_true(dropped(tu, "-fno-allow-store-data-races"));
	assert_true(dropped(tu, "-fanalyzer"));
	assert_true(dropped(tu, "-mindirect-branch-register"));
	assert_non_null(strstr(tu->dropped_flags.v[0], "unknown argument"));
	tu_facts_free(tu);
	tu_job_free(&j);
}

/* Arguments that make the driver fail with no diagnostic at all (no TU):
 * found by bisection, with their separate value. */
static void test_parse__driver_failures_bisected(void **state)
{
	(void)state;
	struct tu_job j;
	make_job(&j, "marked.c", "-DMARK=1", "-Wall", "-march=nogvl-no-such-cpu", "-O2", "-Xclang",
		 "-nogvl-no-such-cc1-option", "-Wextra", NULL);
	struct tu_facts *tu = parse(&j);
	assert_int_equal(tu->status, TU_OK);
	assert_int_equal(tu->nerrors, 0);
	assert_true(dropped(tu, "-march=nogvl-no-such-cpu"));
	assert_true(dropped(tu, "-Xclang"));
	assert_true(dropped(tu, "-nogvl-no-such-cc1-option"));
	assert_int_equal(tu->dropped_flags.n, 3);
	tu_facts_free(tu);
	tu_job_free(&j);
}

static void test_parse__failures(void **state)
{
	(void)state;
	struct tu_job j;
	/* fatal errors: counted, facts still extracted */
	make_job(&j, "fatal.c", NULL);
	struct tu_facts *tu = parse(&j);
	assert_int_equal(tu->status, TU_ERRORS);
	assert_true(tu->nerrors >= 1);
	assert_true(tu->diags.n >= 1);
	assert_non_null(strstr(tu->diags.v[0].msg, "no_such_header.h"));
	assert_int_equal(tu->funcs.n, 1);
	tu_facts_free(tu);
	tu_job_free(&j);

	make_job(&j, "binary.c", NULL);
	tu = parse(&j);
	assert_int_equal(tu->status, TU_FAILED);
	assert_non_null(strstr(tu->fail_reason, "binary"));
	tu_facts_free(tu);
	tu_job_free(&j);

	make_job(&j, "missing.c", NULL);
	tu = parse(&j);
	assert_int_equal(tu->status, TU_FAILED);
	assert_non_null(strstr(tu->fail_reason, "cannot read"));
	tu_facts_free(tu);
	tu_job_free(&j);
}

/* Several jobs on worker threads: every result in its slot, failures included. */
static void test_parse__parallel(void **state)
{
	(void)state;
	struct tu_job jobs[6];
	make_job(&jobs[0], "marked.c", "-DMARK=1", NULL);
	make_job(&jobs[1], "binary.c", NULL);
	make_job(&jobs[2], "fatal.c", NULL);
	make_job(&jobs[3], "marked.c", "-DMARK=2", "-fno-allow-store-data-races", NULL);
	make_job(&jobs[4], "missing.c", NULL);
	make_job(&jobs[5], "marked.c", "-DMARK=3", "-fno-allow-store-data-races", NULL);
	struct parse_opts po = {0};
	po.jobs = 3;
	po.fc = &fc;
	struct tu_facts **tus = parse_all(jobs, 6, &po);
	static const int want[] = {TU_OK, TU_FAILED, TU_ERRORS, TU_OK, TU_FAILED, TU_OK};
	for (size_t i = 0; i < 6; i++) {
		assert_non_null(tus[i]);
		if ((int)tus[i]->status != want[i]) {
			/* say which job and why, for a failure seen only under load */
			print_message("job %zu (%s): status %d, want %d; %u errors; dropped:", i, jobs[i].display,
				      (int)tus[i]->status, want[i], tus[i]->nerrors);
			for (size_t k = 0; k < tus[i]->dropped_flags.n; k++)
				print_message(" %s", tus[i]->dropped_flags.v[k]);
			for (size_t k = 0; k < tus[i]->diags.n; k++)
				print_message("; %s", tus[i]->diags.v[k].msg);
			print_message("\n");
		}
		assert_int_equal(tus[i]->status, want[i]);
		assert_string_equal(tus[i]->path, jobs[i].file);
	}
	assert_true(dropped(tus[3], "-fno-allow-store-data-races"));
	assert_true(dropped(tus[5], "-fno-allow-store-data-races"));
	for (size_t i = 0; i < 6; i++) {
		tu_facts_free(tus[i]);
		tu_job_free(&jobs[i]);
	}
	free(tus);
}

/* Files needing the same preamble (arguments but -D/-U and the own -I)
 * stay with one worker; a second worker starts another group; once every
 * group is started, the idle worker takes from the end of the largest. */
static void test_parse__schedule_groups(void **state)
{
	(void)state;
	struct tu_job jobs[7];
	char *own = xasprintf("-I%s", dir);
	make_job(&jobs[0], "a1.c", "-Ione", "-DX=1", own, NULL);
	make_job(&jobs[1], "a2.c", "-Ione", "-D", "X=2", NULL);
	make_job(&jobs[2], "b1.c", "-Itwo", NULL);
	make_job(&jobs[3], "a3.c", "-Ione", "-UY", NULL);
	make_job(&jobs[4], "b2.c", "-Itwo", "-DZ", NULL);
	make_job(&jobs[5], "a4.c", "-Ione", NULL);
	make_job(&jobs[6], "a5.c", "-Ione", NULL);
	jobs[6].cxx = true; /* another language: a group of its own */
	free(own);
	struct job_sched *s = sched_new(jobs, 7, 2);
	assert_int_equal(sched_next(s, 0), 0); /* group a: worker 0 */
	assert_int_equal(sched_next(s, 1), 2); /* group b: worker 1 */
	assert_int_equal(sched_next(s, 0), 1);
	assert_int_equal(sched_next(s, 1), 4);
	assert_int_equal(sched_next(s, 1), 6); /* b done: the unstarted C++ group */
	assert_int_equal(sched_next(s, 1), 5); /* all started: the end of a */
	assert_int_equal(sched_next(s, 0), 3);
	assert_int_equal(sched_next(s, 0), (size_t)-1);
	assert_int_equal(sched_next(s, 1), (size_t)-1);
	sched_free(s);
	for (size_t i = 0; i < 7; i++)
		tu_job_free(&jobs[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse__good_flags_kept),
		cmocka_unit_test(test_parse__unknown_arguments_dropped),
		cmocka_unit_test(test_parse__driver_failures_bisected),
		cmocka_unit_test(test_parse__failures),
		cmocka_unit_test(test_parse__parallel),
		cmocka_unit_test(test_parse__schedule_groups),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
