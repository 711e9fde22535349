/* test_discovery.c: finding the sources of a gem (discover_sources) and the
 * buildless jobs made from them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <linux/capability.h>
#include <sys/syscall.h>

#include "cli.h"
#include "helpers.h"
#include "inputs.h"

/* A gem-like tree with the directories discovery skips. */
static char *make_tree(void)
{
	char *dir = th_mkdtemp();
	static const char *const files[] = {
		"ext/a.c",
		"ext/b.cc",
		"ext/c.cpp",
		"ext/d.cxx",
		"ext/e.h",
		"ext/README.md",
		"ext/sub/f.c",
		"ext/sub.c",
		"tmp/x86_64-linux/t.c",
		"vendor/lib/v.c",
		"pkg/p.c",
		".git/g.c",
		"ext/tmp_not_skipped/k.c",
	};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		free(th_write(dir, files[i], "int x;\n"));
	return dir;
}

static char **rel_list(const strlist *l, const char *dir)
{
	char **v = xcalloc(l->n + 1, sizeof(char *));
	for (size_t i = 0; i < l->n; i++)
		v[i] = path_relative(l->v[i], dir);
	return v;
}

static void free_list(char **v)
{
	for (char **p = v; *p; p++)
		free(*p);
	free(v);
}

static void assert_list(char **got, const char *const *want, size_t n)
{
	size_t i = 0;
	for (; got[i] && i < n; i++)
		if (strcmp(got[i], want[i]) != 0)
			fail_msg("file %zu is '%s', expected '%s'", i, got[i], want[i]);
	if (got[i] || i != n)
		fail_msg("found %s files than expected (next: '%s')", got[i] ? "more" : "fewer",
			 got[i] ? got[i] : want[i]);
}

static void test_discovery__skips_and_sorts(void **state)
{
	(void)state;
	char *dir = make_tree();
	strlist out = {0}, warnings = {0};
	discover_sources(dir, false, &out, &warnings);
	char **rel = rel_list(&out, dir);
	static const char *const want[] = {
		"ext/a.c", "ext/b.cc", "ext/c.cpp", "ext/d.cxx", "ext/sub.c", "ext/sub/f.c", "ext/tmp_not_skipped/k.c",
	};
	assert_list(rel, want, ARRAY_SIZE(want));
	assert_int_equal(warnings.n, 0);
	free_list(rel);
	strlist_free(&out);

	/* --include-vendor keeps tmp/, vendor/ and pkg/, never .git/ */
	discover_sources(dir, true, &out, &warnings);
	rel = rel_list(&out, dir);
	static const char *const want_all[] = {
		"ext/a.c",
		"ext/b.cc",
		"ext/c.cpp",
		"ext/d.cxx",
		"ext/sub.c",
		"ext/sub/f.c",
		"ext/tmp_not_skipped/k.c",
		"pkg/p.c",
		"tmp/x86_64-linux/t.c",
		"vendor/lib/v.c",
	};
	assert_list(rel, want_all, ARRAY_SIZE(want_all));
	free_list(rel);
	strlist_free(&out);

	/* a skipped name given explicitly is scanned: the user asked for it */
	char *vendor = path_join(dir, "vendor");
	discover_sources(vendor, false, &out, &warnings);
	assert_int_equal(out.n, 1);
	assert_true(str_ends(out.v[0], "vendor/lib/v.c"));
	strlist_free(&out);
	free(vendor);

	strlist_free(&warnings);
	th_rm_rf(dir);
	free(dir);
}

static void test_discovery__symlinks(void **state)
{
	(void)state;
	char *dir = make_tree();
	char *p = path_join(dir, "ext/sub/loop");
	assert_int_equal(symlink("..", p), 0); /* ext/sub/loop -> ext: a cycle */
	free(p);
	p = path_join(dir, "ext/self");
	assert_int_equal(symlink(".", p), 0);
	free(p);
	p = path_join(dir, "ext/linked.c");
	assert_int_equal(symlink("sub/f.c", p), 0); /* a link to a file is followed */
	free(p);
	p = path_join(dir, "ext/dangling.c");
	assert_int_equal(symlink("nowhere.c", p), 0);
	free(p);
	strlist out = {0}, warnings = {0};
	char *ext = path_join(dir, "ext");
	discover_sources(ext, false, &out, &warnings); /* returns: no endless walk */
	char **rel = rel_list(&out, ext);
	static const char *const want[] = {
		"a.c", "b.cc", "c.cpp", "d.cxx", "linked.c", "sub.c", "sub/f.c", "tmp_not_skipped/k.c",
	};
	assert_list(rel, want, ARRAY_SIZE(want));
	free_list(rel);
	strlist_free(&out);
	strlist_free(&warnings);
	free(ext);
	th_rm_rf(dir);
	free(dir);
}

/* Root reads every directory; take away the capabilities that allow it
 * (effective set only, so they can be restored). */
static bool set_dac_override(bool on)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) != 0)
		return false;
	uint32_t bits = (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH);
	if (on)
		d[0].effective |= bits & d[0].permitted;
	else
		d[0].effective &= ~bits;
	return syscall(SYS_capset, &h, d) == 0;
}

static void test_discovery__unreadable_directory(void **state)
{
	(void)state;
	char *dir = make_tree();
	char *locked = path_join(dir, "ext/locked");
	free(th_write(dir, "ext/locked/hidden.c", "int h;\n"));
	assert_int_equal(chmod(locked, 0), 0);
	bool dropped = geteuid() == 0 ? set_dac_override(false) : true;
	DIR *probe = opendir(locked);
	if (probe || !dropped) {
		if (probe)
			closedir(probe);
		chmod(locked, 0755);
		if (geteuid() == 0)
			set_dac_override(true);
		th_rm_rf(dir);
		free(locked);
		free(dir);
		skip(); /* cannot make a directory unreadable here */
	}
	strlist out = {0}, warnings = {0};
	discover_sources(dir, false, &out, &warnings);
	if (geteuid() == 0)
		set_dac_override(true);
	chmod(locked, 0755);
	/* the rest is found, and one warning names the directory */
	assert_int_equal(out.n, 7);
	assert_false(th_has_sub(out.v, out.n, "hidden.c"));
	assert_int_equal(warnings.n, 1);
	assert_non_null(strstr(warnings.v[0], locked));
	assert_non_null(strstr(warnings.v[0], "cannot read directory"));
	assert_non_null(strstr(warnings.v[0], "Permission denied"));
	strlist_free(&out);
	strlist_free(&warnings);
	th_rm_rf(dir);
	free(locked);
	free(dir);
}

/* Buildless jobs: explicit files, directories, and what is not a source. */
static void test_discovery__buildless_jobs(void **state)
{
	(void)state;
	char *dir = make_tree();
	char *ext = path_join(dir, "ext");
	char *readme = path_join(dir, "ext/README.md");
	char *header = path_join(dir, "ext/e.h");
	struct options o;
	options_init(&o);
	vec_push(&o.paths, ext);
	vec_push(&o.paths, readme);
	vec_push(&o.paths, header);
	struct inputs in = {0};
	char *err = NULL;
	assert_int_equal(inputs_build(&o, &in, &err), 0);
	assert_true(in.buildless);
	assert_int_equal(in.jobs.n, 7);
	for (size_t i = 1; i < in.jobs.n; i++)
		assert_true(strcmp(in.jobs.v[i - 1].file, in.jobs.v[i].file) < 0);
	assert_int_equal(in.warnings.n, 2);
	assert_true(th_has_sub(in.warnings.v, in.warnings.n, "README.md: not a C or C++ source file"));
	assert_true(th_has_sub(in.warnings.v, in.warnings.n, "e.h: a header is analysed through the files"));
	/* each job: its own directory, the Ruby headers, the GVL HAVE_* defines */
	const struct tu_job *j = &in.jobs.v[0];
	char *own = xasprintf("-I%s", ext);
	assert_true(th_has(j->args.v, j->args.n, own));
	free(own);
	assert_true(th_has(j->args.v, j->args.n, "-DHAVE_RB_NOGVL=1"));
	assert_true(th_has(j->args.v, j->args.n, "-DHAVE_RB_THREAD_CALL_WITHOUT_GVL=1"));
	assert_true(th_has(j->args.v, j->args.n, "-DHAVE_RUBY_THREAD_H=1"));
	char *ruby = xasprintf("-I%s", in.rh.dirs.v[0]);
	assert_true(th_has(j->args.v, j->args.n, ruby));
	free(ruby);
	/* a .cc file is parsed as C++ */
	assert_true(str_ends(in.jobs.v[1].file, "b.cc"));
	assert_true(in.jobs.v[1].cxx);
	assert_true(th_has(in.jobs.v[1].args.v, in.jobs.v[1].args.n, "-xc++"));
	inputs_free(&in);
	options_free(&o);

	/* a missing path is an error; so is a directory without sources */
	options_init(&o);
	char *missing = path_join(dir, "missing");
	vec_push(&o.paths, missing);
	memset(&in, 0, sizeof(in));
	assert_int_equal(inputs_build(&o, &in, &err), 2);
	assert_non_null(strstr(err, "missing: No such file or directory"));
	free(err);
	err = NULL;
	inputs_free(&in);
	options_free(&o);
	free(missing);

	options_init(&o);
	char *git = path_join(dir, ".git");
	vec_push(&o.paths, git); /* given explicitly: scanned */
	memset(&in, 0, sizeof(in));
	assert_int_equal(inputs_build(&o, &in, &err), 0);
	assert_int_equal(in.jobs.n, 1);
	inputs_free(&in);
	options_free(&o);
	free(git);

	free(ext);
	free(readme);
	free(header);
	th_rm_rf(dir);
	free(dir);
}

/* Sources another source #includes are parts of it (libev's backends,
 * nio4r's ev.c): dropped, unless mkmf compiles their directory or they are
 * named on the command line. */
static void test_discovery__included_sources(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	free(th_write(dir, "ext/foo/extconf.rb", "require 'mkmf'\ncreate_makefile('foo')\n"));
	free(th_write(dir, "ext/foo/main.c", "#include \"../lib/ev.c\"\n  # include \"part.c\"\nint m;\n"));
	free(th_write(dir, "ext/foo/part.c", "int p;\n"));
	free(th_write(dir, "ext/lib/ev.c", "#include \"ev_epoll.c\"\n#include \"ev.h\"\nint e;\n"));
	free(th_write(dir, "ext/lib/ev_epoll.c", "int ep;\n"));
	free(th_write(dir, "ext/lib/ev.h", "int h;\n"));
	free(th_write(dir, "ext/lib/alone.c", "int a;\n"));
	char *ext = path_join(dir, "ext");
	struct options o;
	options_init(&o);
	vec_push(&o.paths, ext);
	struct inputs in = {0};
	char *err = NULL;
	assert_int_equal(inputs_build(&o, &in, &err), 0);
	char **got = xcalloc(in.jobs.n + 1, sizeof(char *));
	for (size_t i = 0; i < in.jobs.n; i++)
		got[i] = path_relative(in.jobs.v[i].file, dir);
	assert_int_equal(in.jobs.n, 3);
	assert_string_equal(got[0], "ext/foo/main.c");
	assert_string_equal(got[1], "ext/foo/part.c"); /* next to extconf.rb: mkmf builds it */
	assert_string_equal(got[2], "ext/lib/alone.c");
	free_list(got);
	assert_true(th_has_sub(in.notes.v, in.notes.n, "ev.c: #included by "));
	assert_true(th_has_sub(in.notes.v, in.notes.n, "ev_epoll.c: #included by "));
	inputs_free(&in);
	options_free(&o);

	/* named on the command line: analysed whatever includes it; a named
	 * file of an extension brings the rest of it (part.c) for context, and
	 * the report is about the named files */
	options_init(&o);
	char *ev = path_join(dir, "ext/lib/ev.c"), *mainc = path_join(dir, "ext/foo/main.c");
	vec_push(&o.paths, ev);
	vec_push(&o.paths, mainc);
	memset(&in, 0, sizeof(in));
	assert_int_equal(inputs_build(&o, &in, &err), 0);
	assert_int_equal(in.jobs.n, 3);
	assert_int_equal(in.report_only.n, 2);
	inputs_free(&in);
	options_free(&o);
	free(ev);
	free(mainc);
	free(ext);
	th_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_discovery__skips_and_sorts),
		cmocka_unit_test(test_discovery__symlinks),
		cmocka_unit_test(test_discovery__unreadable_directory),
		cmocka_unit_test(test_discovery__buildless_jobs),
		cmocka_unit_test(test_discovery__included_sources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
