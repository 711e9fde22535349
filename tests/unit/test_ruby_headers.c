/* test_ruby_headers.c: finding Ruby's headers (installed, --ruby-include,
 * well-known directories) and the Ruby 3.4 view (RB_NOGVL_OFFLOAD_SAFE). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli.h"
#include "helpers.h"
#include "inputs.h"
#include "process.h"

static char *ruby_eval(const char *expr)
{
	char *argv[] = {"ruby", "-e", (char *)expr, NULL};
	return capture_command(argv, 4096);
}

static bool some_dir_has(const strlist *dirs, const char *rel)
{
	for (size_t i = 0; i < dirs->n; i++) {
		char *p = path_join(dirs->v[i], rel);
		bool r = path_is_file(p);
		free(p);
		if (r)
			return true;
	}
	return false;
}

static void test_ruby_headers__installed(void **state)
{
	(void)state;
	strlist none = {0};
	struct ruby_headers rh = {0};
	char *err = NULL;
	assert_int_equal(ruby_headers_find(&none, &rh, &err), 0);
	assert_string_equal(rh.source, "RbConfig (ruby)");
	assert_true(some_dir_has(&rh.dirs, "ruby.h"));
	assert_true(some_dir_has(&rh.dirs, "ruby/config.h")); /* the arch directory */
	char *hdr = ruby_eval("print RbConfig::CONFIG['rubyhdrdir']");
	assert_non_null(hdr);
	char *abs = path_absolute(hdr);
	assert_true(th_has(rh.dirs.v, rh.dirs.n, abs));
	free(abs);
	free(hdr);
	/* the headers have the offload flag exactly when the Ruby is 3.4 or newer */
	char *v = ruby_eval("print((RUBY_VERSION.split('.').map(&:to_i) <=> [3, 4]) >= 0 ? 'yes' : 'no')");
	assert_non_null(v);
	assert_int_equal(rh.has_offload_flag, strcmp(v, "yes") == 0);
	free(v);
	ruby_headers_free(&rh);
}

static void test_ruby_headers__without_ruby_on_path(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *old = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	setenv("PATH", dir, 1); /* no `ruby` to ask */
	strlist none = {0};
	struct ruby_headers rh = {0};
	char *err = NULL;
	int r = ruby_headers_find(&none, &rh, &err);
	setenv("PATH", old, 1);
	if (r == 0) {
		assert_string_equal(rh.source, "well-known directories");
		assert_true(some_dir_has(&rh.dirs, "ruby.h"));
	} else {
		assert_non_null(strstr(err, "cannot find Ruby's headers"));
		free(err);
	}
	ruby_headers_free(&rh);
	free(old);
	th_rm_rf(dir);
	free(dir);
}

static char *fake_ruby(bool with_flag)
{
	char *dir = th_mkdtemp();
	free(th_write(dir, "include/ruby.h", "/* fake */\n#include \"ruby/thread.h\"\n"));
	free(th_write(dir, "include/ruby/thread.h",
		      with_flag ? "#define RB_NOGVL_INTR_FAIL (0x1)\n#define RB_NOGVL_OFFLOAD_SAFE (0x4)\n"
				: "#define RB_NOGVL_INTR_FAIL (0x1)\n"));
	return dir;
}

static void test_ruby_headers__explicit(void **state)
{
	(void)state;
	for (int with_flag = 0; with_flag < 2; with_flag++) {
		char *dir = fake_ruby(with_flag);
		char *inc = path_join(dir, "include");
		strlist explicit_dirs = {0};
		vec_push(&explicit_dirs, xstrdup(inc));
		struct ruby_headers rh = {0};
		char *err = NULL;
		assert_int_equal(ruby_headers_find(&explicit_dirs, &rh, &err), 0);
		assert_string_equal(rh.source, "--ruby-include");
		assert_int_equal(rh.dirs.n, 1);
		assert_string_equal(rh.dirs.v[0], inc);
		assert_int_equal(rh.has_offload_flag, with_flag);
		ruby_headers_free(&rh);
		strlist_free(&explicit_dirs);
		free(inc);
		th_rm_rf(dir);
		free(dir);
	}
}

static void test_ruby_headers__explicit_errors(void **state)
{
	(void)state;
	strlist explicit_dirs = {0};
	vec_push(&explicit_dirs, xstrdup("/nonexistent/ruby-9.9"));
	struct ruby_headers rh = {0};
	char *err = NULL;
	assert_int_equal(ruby_headers_find(&explicit_dirs, &rh, &err), -1);
	assert_string_equal(err, "--ruby-include /nonexistent/ruby-9.9: no such directory");
	free(err);
	ruby_headers_free(&rh);
	strlist_free(&explicit_dirs);

	char *dir = th_mkdtemp(); /* exists, but holds no Ruby headers */
	vec_push(&explicit_dirs, xstrdup(dir));
	memset(&rh, 0, sizeof(rh));
	assert_int_equal(ruby_headers_find(&explicit_dirs, &rh, &err), -1);
	assert_non_null(strstr(err, "no ruby.h"));
	free(err);
	ruby_headers_free(&rh);
	strlist_free(&explicit_dirs);
	th_rm_rf(dir);
	free(dir);
}

static bool job_has(const struct inputs *in, const char *arg)
{
	return in->jobs.n && th_has(in->jobs.v[0].args.v, in->jobs.v[0].args.n, arg);
}

/* The Ruby 3.4 view: RB_NOGVL_OFFLOAD_SAFE is defined as Ruby 3.4 spells it
 * when the headers lack it, unless --no-offload-view. */
static void test_ruby_headers__offload_view(void **state)
{
	(void)state;
	for (int with_flag = 0; with_flag < 2; with_flag++) {
		for (int view = 0; view < 2; view++) {
			char *dir = fake_ruby(with_flag);
			char *inc = path_join(dir, "include");
			char *src = th_write(dir, "ext/a.c", "int a;\n");
			struct options o;
			options_init(&o);
			o.ruby34_view = view;
			vec_push(&o.ruby_includes, inc);
			vec_push(&o.paths, src);
			struct inputs in = {0};
			char *err = NULL;
			assert_int_equal(inputs_build(&o, &in, &err), 0);
			assert_int_equal(in.jobs.n, 1);
			bool want = view && !with_flag;
			assert_int_equal(job_has(&in, "-DRB_NOGVL_OFFLOAD_SAFE=(0x4)"), want);
			char *i = xasprintf("-I%s", inc);
			assert_true(job_has(&in, i));
			free(i);
			assert_false(job_has(&in, "-DRUBY_API_VERSION_MINOR=4")); /* never faked */
			inputs_free(&in);
			options_free(&o);
			free(inc);
			free(src);
			th_rm_rf(dir);
			free(dir);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ruby_headers__installed),
		cmocka_unit_test(test_ruby_headers__without_ruby_on_path),
		cmocka_unit_test(test_ruby_headers__explicit),
		cmocka_unit_test(test_ruby_headers__explicit_errors),
		cmocka_unit_test(test_ruby_headers__offload_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
