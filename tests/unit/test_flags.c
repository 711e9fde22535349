/* test_flags.c: filter_flags() and flag_loads_plugin() (compdb.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "compdb.h"
#include "helpers.h"

struct filtered {
	strlist keep, dropped;
	char *err;
	int rc;
};

static void run_filter(struct filtered *f, const char *dir, const char *file, ...)
{
	VEC(char *) argv = {0};
	va_list ap;
	va_start(ap, file);
	for (char *a = va_arg(ap, char *); a; a = va_arg(ap, char *))
		vec_push(&argv, a);
	va_end(ap);
	memset(f, 0, sizeof(*f));
	f->rc = filter_flags(argv.v, argv.n, file, dir, &f->keep, &f->dropped, &f->err);
	vec_free(&argv);
}

static void filtered_free(struct filtered *f)
{
	strlist_free(&f->keep);
	strlist_free(&f->dropped);
	free(f->err);
}

static void assert_keep(const struct filtered *f, ...)
{
	va_list ap;
	va_start(ap, f);
	size_t i = 0;
	for (const char *w = va_arg(ap, const char *); w; w = va_arg(ap, const char *), i++) {
		if (i >= f->keep.n)
			fail_msg("kept only %zu arguments; expected '%s' next", f->keep.n, w);
		if (strcmp(f->keep.v[i], w) != 0)
			fail_msg("kept argument %zu is '%s', expected '%s'", i, f->keep.v[i], w);
	}
	va_end(ap);
	if (i != f->keep.n)
		fail_msg("kept %zu arguments, expected %zu (extra: '%s')", f->keep.n, i, f->keep.v[i]);
}

static void test_flags__outputs_dropped(void **state)
{
	(void)state;
	struct filtered f;
	run_filter(&f, "/proj/ext", "/proj/ext/a.c", "cc", "-DX=1", "-c", "a.c", "-o", "a.o", "-MF", "a.d", "-MD",
		   "-MMD", "-MP", "-MT", "a.o", "-Wp,-MD,a.d", "-oother.o", "-O2", "-Wall", "-fPIC", "-std=gnu11",
		   NULL);
	assert_int_equal(f.rc, 0);
	assert_keep(&f, "-DX=1", "-O2", "-Wall", "-fPIC", "-std=gnu11", NULL);
	assert_true(th_has(f.dropped.v, f.dropped.n, "-c" DROP_ROUTINE));
	assert_true(th_has(f.dropped.v, f.dropped.n, "-o a.o" DROP_ROUTINE));
	assert_true(th_has(f.dropped.v, f.dropped.n, "-MF a.d" DROP_ROUTINE));
	assert_true(th_has(f.dropped.v, f.dropped.n, "-MD" DROP_ROUTINE));
	assert_true(th_has(f.dropped.v, f.dropped.n, "-MMD" DROP_ROUTINE));
	assert_true(th_has(f.dropped.v, f.dropped.n, "-oother.o" DROP_ROUTINE));
	/* the compiler (argv[0]) and the file itself are not "dropped" */
	assert_false(th_has_sub(f.dropped.v, f.dropped.n, "cc"));
	assert_false(th_has_sub(f.dropped.v, f.dropped.n, "a.c"));
	filtered_free(&f);
}

static void test_flags__link_options_dropped(void **state)
{
	(void)state;
	struct filtered f;
	run_filter(&f, "/p", "/p/a.c", "gcc", "-shared", "-Wl,-z,relro", "-L/usr/lib", "-L", "lib", "-lruby", "-l", "m",
		   "-flto=auto", "-fsanitize=address", "-pipe", "-DKEEP", NULL);
	assert_int_equal(f.rc, 0);
	assert_keep(&f, "-DKEEP", NULL);
	assert_true(th_has(f.dropped.v, f.dropped.n, "-L lib" DROP_ROUTINE));
	assert_true(th_has(f.dropped.v, f.dropped.n, "-l m" DROP_ROUTINE));
	filtered_free(&f);
}

static void test_flags__source_file_dropped(void **state)
{
	(void)state;
	struct filtered f;
	/* the file itself (relative, absolute, or spelled differently) is given separately */
	run_filter(&f, "/proj/ext", "/proj/ext/a.c", "cc", "./a.c", "-DX", NULL);
	assert_keep(&f, "-DX", NULL);
	assert_int_equal(f.dropped.n, 0);
	filtered_free(&f);
	run_filter(&f, "/proj/ext", "/proj/ext/a.c", "cc", "/proj/ext/sub/../a.c", NULL);
	assert_keep(&f, NULL);
	assert_int_equal(f.dropped.n, 0);
	filtered_free(&f);
	/* another source file on the same command line is dropped, and said */
	run_filter(&f, "/proj/ext", "/proj/ext/a.c", "cc", "a.c", "b.cc", NULL);
	assert_keep(&f, NULL);
	assert_true(th_has(f.dropped.v, f.dropped.n, "b.cc (another source file)"));
	filtered_free(&f);
}

static void test_flags__relative_paths_made_absolute(void **state)
{
	(void)state;
	struct filtered f;
	run_filter(&f, "/proj/ext", "/proj/ext/a.c", "cc", "-Iinc", "-I", "../common", "-I/usr/include/x", "-isystem",
		   "sys", "-isystemsys2", "-iquote", "q", "-include", "pre.h", "-idirafter", "after", "--sysroot=root",
		   "-I$(srcdir)", NULL);
	assert_int_equal(f.rc, 0);
	assert_keep(&f, "-I/proj/ext/inc", "-I", "/proj/common", "-I/usr/include/x", "-isystem", "/proj/ext/sys",
		    "-isystem/proj/ext/sys2", "-iquote", "/proj/ext/q", "-include", "/proj/ext/pre.h", "-idirafter",
		    "/proj/ext/after", "--sysroot=/proj/ext/root", "-I$(srcdir)", NULL);
	filtered_free(&f);
}

static void test_flags__gcc_only_dropped(void **state)
{
	(void)state;
	struct filtered f;
	run_filter(&f, "/p", "/p/a.c", "gcc", "-fno-tree-vrp", "-fipa-pta", "--param=ssp-buffer-size=4",
		   "-specs=/usr/lib/rpm/redhat/redhat-hardened-cc1", "-fvar-tracking-assignments",
		   "-Wno-maybe-uninitialized", "-fconserve-stack", "-O3", NULL);
	assert_int_equal(f.rc, 0);
	assert_keep(&f, "-O3", NULL);
	assert_true(th_has(f.dropped.v, f.dropped.n, "-fno-tree-vrp (GCC-only)"));
	assert_true(th_has(f.dropped.v, f.dropped.n, "-fipa-pta (GCC-only)"));
	assert_true(th_has(f.dropped.v, f.dropped.n, "--param=ssp-buffer-size=4 (GCC-only)"));
	assert_true(th_has_sub(f.dropped.v, f.dropped.n, "-specs="));
	assert_int_equal(f.dropped.n, 7);
	filtered_free(&f);
}

static void test_flags__working_directory_dropped(void **state)
{
	(void)state;
	struct filtered f;
	run_filter(&f, "/p", "/p/a.c", "clang", "-working-directory", "/x", "-working-directory=/y", "-DK", NULL);
	assert_int_equal(f.rc, 0);
	assert_keep(&f, "-DK", NULL);
	assert_true(
		th_has(f.dropped.v, f.dropped.n, "-working-directory /x (changes the analyser's current directory)"));
	assert_true(th_has_sub(f.dropped.v, f.dropped.n, "-working-directory=/y"));
	filtered_free(&f);
}

static void assert_refused(const char *want_in_msg, ...)
{
	VEC(char *) argv = {0};
	va_list ap;
	va_start(ap, want_in_msg);
	for (char *a = va_arg(ap, char *); a; a = va_arg(ap, char *))
		vec_push(&argv, a);
	va_end(ap);
	strlist keep = {0}, dropped = {0};
	char *err = NULL;
	assert_int_equal(filter_flags(argv.v, argv.n, "/p/a.c", "/p", &keep, &dropped, &err), -1);
	assert_non_null(err);
	if (!strstr(err, want_in_msg))
		fail_msg("message '%s' does not name '%s'", err, want_in_msg);
	assert_non_null(strstr(err, "loads code into the analyser"));
	free(err);
	strlist_free(&keep);
	strlist_free(&dropped);
	vec_free(&argv);
}

static void test_flags__plugins_refused(void **state)
{
	(void)state;
	assert_refused("'-Xclang -load'", "cc", "-O2", "-Xclang", "-load", "-Xclang", "/tmp/evil.so", "-c", "a.c",
		       NULL);
	assert_refused("'-fplugin=/tmp/evil.so'", "cc", "-fplugin=/tmp/evil.so", "a.c", NULL);
	assert_refused("'-fpass-plugin=/tmp/evil.so'", "cc", "-fpass-plugin=/tmp/evil.so", NULL);
	assert_refused("'-Xclang -add-plugin'", "cc", "-Xclang", "-add-plugin", "-Xclang", "x", NULL);
	assert_refused("'-Xclang -plugin'", "cc", "-Xclang", "-plugin", "-Xclang", "x", NULL);
	assert_refused("'-fplugin-arg-x-y'", "cc", "-fplugin-arg-x-y", NULL);

	/* -cc1 options reached other ways than -Xclang */
	assert_refused("'-Wp,-load,/tmp/evil.so'", "cc", "-Wp,-load,/tmp/evil.so", "a.c", NULL);
	assert_refused("'-Xpreprocessor -load'", "cc", "-Xpreprocessor", "-load", "a.c", NULL);
	assert_refused("'-Xarch_x86_64 -fplugin=/tmp/evil.so'", "cc", "-Xarch_x86_64", "-fplugin=/tmp/evil.so", NULL);
	assert_refused("'-Xopenmp-target=x86_64 -fplugin=e.so'", "cc", "-Xopenmp-target=x86_64", "-fplugin=e.so", NULL);
	assert_refused("'-Xclang -Wp,-load,e.so'", "cc", "-Xclang", "-Wp,-load,e.so", NULL);

	assert_true(flag_loads_plugin("-Xclang", "-load"));
	assert_true(flag_loads_plugin("-Wp,-MD,x.d,-load,e.so", NULL));
	assert_false(flag_loads_plugin("-Wp,-MD,x.d", NULL));
	assert_false(flag_loads_plugin("-Xlinker", "-plugin")); /* nothing is linked */
	assert_false(flag_loads_plugin("-Xarch_x86_64", "-O2"));
	assert_false(flag_loads_plugin("-DPLUGIN=-fplugin", NULL));
	assert_true(flag_loads_plugin("-fplugin=a.so", NULL));
	assert_true(flag_loads_plugin("-fpass-plugin=a.so", NULL));
	assert_false(flag_loads_plugin("-Xclang", "-fno-color-diagnostics"));
	assert_false(flag_loads_plugin("-Xclang", NULL));
	assert_false(flag_loads_plugin("-fPIC", NULL));
	assert_false(flag_loads_plugin("-DLOAD=1", NULL));
}

/* --config FILE: more flags, from a file nobody checked */
static void test_flags__config_files_refused(void **state)
{
	(void)state;
	const char *forms[][3] = {{"--config", "/tmp/evil.cfg", NULL},
				  {"--config=/tmp/evil.cfg", NULL, NULL},
				  {"--config-system-dir=/tmp", NULL, NULL},
				  {"-Xclang", "--config=x.cfg", NULL}};
	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		char *argv[5] = {(char *)"cc", (char *)forms[i][0], (char *)forms[i][1], (char *)"a.c", NULL};
		size_t argc = forms[i][1] ? 4 : 3;
		if (!forms[i][1])
			argv[2] = (char *)"a.c";
		strlist keep = {0}, dropped = {0};
		char *err = NULL;
		assert_int_equal(filter_flags(argv, argc, "/p/a.c", "/p", &keep, &dropped, &err), -1);
		if (!strstr(err, forms[i][0]) || !strstr(err, "reads more compiler flags from a file"))
			fail_msg("message '%s' for %s", err, forms[i][0]);
		free(err);
		strlist_free(&keep);
		strlist_free(&dropped);
	}
	assert_string_equal(flag_refusal("--config", "x"), FLAG_WHY_CONFIG);
	assert_string_equal(flag_refusal("-fplugin=x", NULL), FLAG_WHY_PLUGIN);
	assert_null(flag_refusal("--configure", NULL));
}

static void test_flags__response_files(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *rsp = th_write(dir, "args.rsp", "-DFROM_RSP=\"a b\"\n-Iinc @nested.rsp\n");
	char *nested = th_write(dir, "nested.rsp", "-DNESTED");
	char *evil = th_write(dir, "evil.rsp", "-DX -fplugin=evil.so");
	char *file = path_join(dir, "a.c");
	struct filtered f;
	run_filter(&f, dir, file, "cc", "@args.rsp", "-c", "a.c", NULL);
	assert_int_equal(f.rc, 0);
	char *inc = xasprintf("-I%s/inc", dir);
	assert_keep(&f, "-DFROM_RSP=a b", inc, "-DNESTED", NULL);
	free(inc);
	filtered_free(&f);

	run_filter(&f, dir, file, "cc", "@evil.rsp", NULL);
	assert_int_equal(f.rc, -1);
	assert_non_null(strstr(f.err, "-fplugin=evil.so"));
	filtered_free(&f);

	/* a refused flag inside a nested response file, in a -Wp, list */
	free(th_write(dir, "outer.rsp", "-DA @inner.rsp"));
	free(th_write(dir, "inner.rsp", "-Wp,-load,evil.so"));
	run_filter(&f, dir, file, "cc", "@outer.rsp", NULL);
	assert_int_equal(f.rc, -1);
	assert_non_null(strstr(f.err, "'-Wp,-load,evil.so': it loads code"));
	filtered_free(&f);

	run_filter(&f, dir, file, "cc", "@missing.rsp", NULL);
	assert_int_equal(f.rc, -1);
	assert_non_null(strstr(f.err, "cannot read response file"));
	filtered_free(&f);

	th_rm_rf(dir);
	free(rsp);
	free(nested);
	free(evil);
	free(file);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags__outputs_dropped),
		cmocka_unit_test(test_flags__link_options_dropped),
		cmocka_unit_test(test_flags__source_file_dropped),
		cmocka_unit_test(test_flags__relative_paths_made_absolute),
		cmocka_unit_test(test_flags__gcc_only_dropped),
		cmocka_unit_test(test_flags__working_directory_dropped),
		cmocka_unit_test(test_flags__plugins_refused),
		cmocka_unit_test(test_flags__config_files_refused),
		cmocka_unit_test(test_flags__response_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
