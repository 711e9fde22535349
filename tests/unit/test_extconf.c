/* test_extconf.c: reading extconf.rb statically (extconf.c). Ruby probes are
 * answered from the installed Ruby headers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "extconf.h"
#include "helpers.h"
#include "inputs.h"

static struct ruby_headers rh;

static int setup(void **state)
{
	(void)state;
	strlist none = {0};
	char *err = NULL;
	if (ruby_headers_find(&none, &rh, &err) != 0) {
		fprintf(stderr, "%s\n", err);
		free(err);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	ruby_headers_free(&rh);
	return 0;
}

static void parse(const char *text, struct extconf_info *ei)
{
	memset(ei, 0, sizeof(*ei));
	extconf_parse(text, "/gem/ext/foo", &rh.dirs, ei);
}

#define HAS(ei, d) th_has((ei)->defines.v, (ei)->defines.n, (d))

static void test_extconf__probes(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("require 'mkmf'\n"
	      "have_header('ruby/thread.h')\n"
	      "have_header(\"ruby/no_such_header.h\")\n"
	      "have_header('zlib.h') or abort 'need zlib'\n"
	      "have_func('rb_thread_call_without_gvl', 'ruby/thread.h')\n"
	      "have_func(\"deflateInit2_\", [\"zlib.h\"])\n"
	      "have_func 'rb_nogvl'\n"
	      "have_library('z', 'deflate', 'zlib.h')\n"
	      "find_library('ssl', 'SSL_new')\n"
	      "have_type('struct timespec', 'time.h')\n"
	      "have_struct_member('struct stat', 'st_mtim', 'sys/stat.h')\n"
	      "have_const('O_CLOEXEC', 'fcntl.h')\n"
	      "create_makefile('foo/foo')\n",
	      &ei);
	assert_true(HAS(&ei, "HAVE_RUBY_THREAD_H=1"));
	assert_false(HAS(&ei, "HAVE_RUBY_NO_SUCH_HEADER_H=1")); /* a Ruby header the install lacks */
	assert_true(HAS(&ei, "HAVE_ZLIB_H=1"));                 /* other probes: assumed to succeed */
	assert_true(HAS(&ei, "HAVE_RB_THREAD_CALL_WITHOUT_GVL=1"));
	assert_true(HAS(&ei, "HAVE_DEFLATEINIT2_=1"));
	assert_true(HAS(&ei, "HAVE_RB_NOGVL=1"));
	assert_true(HAS(&ei, "HAVE_LIBZ=1"));
	assert_true(HAS(&ei, "HAVE_LIBSSL=1"));
	assert_true(HAS(&ei, "HAVE_TYPE_STRUCT_TIMESPEC=1"));
	assert_true(HAS(&ei, "HAVE_STRUCT_STAT_ST_MTIM=1"));
	assert_true(HAS(&ei, "HAVE_ST_ST_MTIM=1"));
	assert_true(HAS(&ei, "HAVE_CONST_O_CLOEXEC=1"));
	assert_int_equal(ei.defines.n, 11);
	extconf_info_free(&ei);
}

/* A function Ruby removed (2.2) stays undefined, so the gem's fallback
 * branch is the one analysed: the installed headers do not declare it. */
static void test_extconf__removed_ruby_function(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("have_func('rb_thread_blocking_region')\n"
	      "have_func(\"rb_thread_call_without_gvl2\")\n",
	      &ei);
	assert_false(HAS(&ei, "HAVE_RB_THREAD_BLOCKING_REGION=1"));
	assert_true(HAS(&ei, "HAVE_RB_THREAD_CALL_WITHOUT_GVL2=1"));
	assert_true(th_has_sub(ei.notes.v, ei.notes.n, "rb_thread_blocking_region"));
	extconf_info_free(&ei);
}

static void test_extconf__word_lists(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("%w[rb_nogvl rb_thread_blocking_region memmem].each { |f| have_func(f) }\n"
	      "%w(\n"
	      "  rb_str_locktmp\n"
	      "  clock_gettime\n"
	      ").each do |f|\n"
	      "  have_func(f, 'ruby.h')\n"
	      "end\n",
	      &ei);
	assert_true(HAS(&ei, "HAVE_RB_NOGVL=1"));
	assert_true(HAS(&ei, "HAVE_MEMMEM=1"));
	assert_false(HAS(&ei, "HAVE_RB_THREAD_BLOCKING_REGION=1"));
	assert_true(HAS(&ei, "HAVE_RB_STR_LOCKTMP=1"));
	assert_true(HAS(&ei, "HAVE_CLOCK_GETTIME=1"));
	assert_int_equal(ei.defines.n, 4);
	extconf_info_free(&ei);
	/* a comment in a list over lines is dropped, its bracket too; the
	 * list's lines are not read as code */
	parse("%w[\n"
	      "  memrchr # not ] the end\n"
	      "  have_func('not_a_probe')\n"
	      "].each { |f| have_func(f) }\n",
	      &ei);
	assert_true(HAS(&ei, "HAVE_MEMRCHR=1"));
	assert_false(HAS(&ei, "HAVE_NOT_A_PROBE=1"));
	assert_false(HAS(&ei, "HAVE_THE=1"));
	extconf_info_free(&ei);
}

static void test_extconf__defs_and_flags(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("$defs << \"-DUSE_FOO\"\n"
	      "$defs.push('-DLEVEL=3')\n"
	      "append_cflags(\"-DFROM_APPEND -Ivendor/inc -O3\")\n"
	      "append_cppflags(['-DFROM_CPP'])\n"
	      "$CFLAGS << ' -DCFLAG_DEF -I/opt/lib/include'\n"
	      "$CPPFLAGS += \" -DCPP_DEF\"\n"
	      "$INCFLAGS << \" -I$(srcdir)/x\"\n",
	      &ei);
	assert_true(HAS(&ei, "USE_FOO"));
	assert_true(HAS(&ei, "LEVEL=3"));
	assert_true(HAS(&ei, "FROM_APPEND"));
	assert_true(HAS(&ei, "FROM_CPP"));
	assert_true(HAS(&ei, "CFLAG_DEF"));
	assert_true(HAS(&ei, "CPP_DEF"));
	assert_int_equal(ei.defines.n, 6);
	/* mkmf's order: $INCFLAGS, then $CPPFLAGS, then $CFLAGS ($(srcdir) is
	 * the extconf.rb's directory) */
	assert_int_equal(ei.include_dirs.n, 3);
	assert_string_equal(ei.include_dirs.v[0], "/gem/ext/foo/x");
	assert_string_equal(ei.include_dirs.v[1], "/gem/ext/foo/vendor/inc");
	assert_string_equal(ei.include_dirs.v[2], "/opt/lib/include");
	assert_string_equal(ei.include_why.v[0], "$INCFLAGS");
	assert_string_equal(ei.include_why.v[1], "append_cflags");
	extconf_info_free(&ei);
}

/* %q/%Q literals, whose body mkmf hands to the shell (a quoted -D value with
 * spaces is one word), and a `<<` chain going on to the next line (extlz4) */
static void test_extconf__percent_literals(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("$defs << %q('-DAPI=__attribute__ ((visibility(\"default\")))') <<\n"
	      "         %q(-DVIS=1)\n"
	      "$defs << %Q[-DBRACKET=2] << %(-DBARE=3)\n"
	      "$defs << %Q(-DINTERP=#{x})\n"
	      "$CFLAGS << %q{ -I/opt/pct/include }\n"
	      "y = 10 % 3\n",
	      &ei);
	assert_true(HAS(&ei, "API=__attribute__ ((visibility(\"default\")))"));
	assert_true(HAS(&ei, "VIS=1"));
	assert_true(HAS(&ei, "BRACKET=2"));
	assert_true(HAS(&ei, "BARE=3"));
	assert_int_equal(ei.defines.n, 4); /* not the interpolated one, nor a word of the first */
	assert_int_equal(ei.include_dirs.n, 1);
	assert_string_equal(ei.include_dirs.v[0], "/opt/pct/include");
	extconf_info_free(&ei);
}

static void test_extconf__comments_and_interpolation(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("# have_func('commented_out')\n"
	      "have_func(\"lib_#{name}_init\")\n"
	      "have_header('a.h') # have_header('b.h')\n"
	      "puts \"# not a comment\"; have_func('after_string')\n",
	      &ei);
	assert_false(HAS(&ei, "HAVE_COMMENTED_OUT=1"));
	assert_false(th_has_sub(ei.defines.v, ei.defines.n, "LIB_"));
	assert_true(HAS(&ei, "HAVE_A_H=1"));
	assert_false(HAS(&ei, "HAVE_B_H=1"));
	assert_true(HAS(&ei, "HAVE_AFTER_STRING=1"));
	extconf_info_free(&ei);
}

/* Sources added to $srcs under a have_func condition, and what does not count. */
static void test_extconf__conditional_sources(void **state)
{
	(void)state;
	struct extconf_info ei;
	memset(&ei, 0, sizeof(ei));
	extconf_parse("$srcs = ['a.c']\n"
		      "if have_func('rb_new_api') # newer Rubies\n"
		      "  if have_header('pthread.h')\n"
		      "    $srcs << 'sub/pool.c'\n"
		      "  end\n"
		      "  %w[x y].each do |n|\n"
		      "    $srcs.push(\"#{n}.c\")\n"
		      "  end\n"
		      "  $srcs << 'after_block.c'\n"
		      "else\n"
		      "  $srcs << 'fallback.c'\n"
		      "end\n"
		      "$srcs << 'outside.c'\n"
		      "$srcs << 'modifier.c' if have_func(\"rb_other\") && have_header('x.h')\n"
		      "$srcs << 'either.c' if have_func('rb_a') || have_func('rb_b')\n"
		      "unless have_func('rb_old')\n"
		      "  $srcs << 'negated.c'\n"
		      "end\n"
		      "if have_func('rb_one_liner') then $srcs << 'one.c' end\n"
		      "$srcs << 'after_one_liner.c'\n",
		      "/gem/ext", &rh.dirs, &ei);
	assert_int_equal(ei.cond_srcs.n, ei.cond_probes.n);
	struct extconf_info view = {.path = "/gem/ext/extconf.rb",
				    .cond_srcs = ei.cond_srcs,
				    .cond_probes = ei.cond_probes};
	assert_string_equal(extconf_build_probe(&view, "/gem/ext/sub/pool.c"), "rb_new_api");
	assert_string_equal(extconf_build_probe(&view, "/gem/ext/after_block.c"), "rb_new_api");
	assert_string_equal(extconf_build_probe(&view, "/gem/ext/modifier.c"), "rb_other");
	assert_null(extconf_build_probe(&view, "/gem/ext/a.c"));
	assert_null(extconf_build_probe(&view, "/gem/ext/fallback.c"));
	assert_null(extconf_build_probe(&view, "/gem/ext/outside.c"));
	assert_null(extconf_build_probe(&view, "/gem/ext/either.c"));
	assert_null(extconf_build_probe(&view, "/gem/ext/negated.c"));
	assert_null(extconf_build_probe(&view, "/gem/ext/after_one_liner.c"));
	/* a path with a directory names that file only */
	assert_null(extconf_build_probe(&view, "/gem/ext/other/sub/pool.c"));
	assert_null(extconf_build_probe(&view, "/gem/ext/pool.c"));
	extconf_info_free(&ei);
}

/* Probes for headers of other platforms fail here, as in a real build on
 * this machine, with what they guard. */
static void test_extconf__other_platforms(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("have_header('sys/epoll.h')\n"
	      "have_header('sys/event.h')\n"
	      "have_func('kqueue', 'sys/event.h')\n"
	      "have_type('port_event_t', 'port.h')\n"
	      "$defs << '-DUSE_KQUEUE' if have_header('sys/event.h') && have_header('sys/queue.h')\n"
	      "$defs << '-DUSE_EPOLL' if have_header('sys/epoll.h')\n"
	      "$defs << '-DUSE_EITHER' if have_header('port.h') || have_header('sys/epoll.h')\n"
	      "if have_header('windows.h')\n"
	      "  $defs << '-DON_WINDOWS'\n"
	      "  have_func('rb_w32_only')\n"
	      "else\n"
	      "  $defs << '-DNOT_WINDOWS'\n"
	      "end\n"
	      "$defs << '-DAFTER'\n",
	      &ei);
	assert_true(HAS(&ei, "HAVE_SYS_EPOLL_H=1"));
	assert_false(HAS(&ei, "HAVE_SYS_EVENT_H=1"));
	assert_false(HAS(&ei, "HAVE_KQUEUE=1"));
	assert_false(HAS(&ei, "HAVE_TYPE_PORT_EVENT_T=1"));
	assert_false(HAS(&ei, "USE_KQUEUE"));
	assert_true(HAS(&ei, "USE_EPOLL"));
	assert_true(HAS(&ei, "USE_EITHER")); /* or-ed: not concluded on */
	assert_false(HAS(&ei, "ON_WINDOWS"));
	assert_false(HAS(&ei, "HAVE_RB_W32_ONLY=1"));
	assert_true(HAS(&ei, "NOT_WINDOWS"));
	assert_true(HAS(&ei, "AFTER"));
	assert_true(th_has_sub(ei.notes.v, ei.notes.n, "sys/event.h"));
	extconf_info_free(&ei);
}

/* The nearest extconf.rb, looked up from a file's directory within the roots. */
static void test_extconf__nearest(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	free(th_write(dir, "ext/foo/extconf.rb", "have_func('near')\n"));
	free(th_write(dir, "extconf.rb", "have_func('outside_root')\n"));
	th_mkdir(dir, "ext/foo/sub/deeper");
	th_mkdir(dir, "ext/other");
	char *root = path_join(dir, "ext");
	char *deeper = path_join(dir, "ext/foo/sub/deeper");
	char *other = path_join(dir, "ext/other");
	struct extconf_cache c = {0};
	c.ruby_dirs = &rh.dirs;
	char *roots[] = {root};
	const struct extconf_info *ei = extconf_for(&c, deeper, roots, 1);
	assert_non_null(ei);
	assert_true(HAS(ei, "HAVE_NEAR=1"));
	assert_true(str_ends(ei->path, "ext/foo/extconf.rb"));
	assert_ptr_equal(extconf_for(&c, deeper, roots, 1), ei); /* cached */
	/* not above the project root */
	assert_null(extconf_for(&c, other, roots, 1));
	extconf_cache_free(&c);
	free(root);
	free(deeper);
	free(other);
	th_rm_rf(dir);
	free(dir);
}

/* Issue 14: what extconf.rb adds to the include path, read statically. */
static void test_extconf__include_path(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *ext = path_join(dir, "ext");
	char *inc = path_join(dir, "opt/inc");
	th_mkdir(dir, "ext");
	char *h = th_write(dir, "opt/inc/nogvl_only_here.h", "/* header */\n");
	char *text = xasprintf("require 'mkmf'\n"
			       "$INCFLAGS << \" -I#{__dir__}/interp\"\n"
			       "$INCFLAGS << \" -I#{some_var}/unknown\"\n"
			       "find_header('nogvl_only_here.h', '/nonexistent/x', '%s')\n"
			       "find_header('stdio.h', '/should/not/be/added')\n"
			       "dir_config('foo', '/usr/local/foo')\n"
			       "dir_config('bar', '/opt/bar/include', '/opt/bar/lib')\n"
			       "dir_config('baz')\n"
			       "$CPPFLAGS << ' -I$(srcdir)/cpp'\n"
			       "pkg_config('libfoo')\n"
			       "pkg_config('libfoo', 'modversion')\n"
			       "have_library('z')\n"
			       "$VPATH << '$(srcdir)/sub:$(srcdir)/sub/deeper'\n"
			       "$srcs = ['main.c', 'src/one.c']\n"
			       "create_rust_makefile('x/x')\n",
			       inc);
	struct extconf_info ei;
	memset(&ei, 0, sizeof(ei));
	extconf_parse(text, ext, &rh.dirs, &ei);
	char *interp = path_join(ext, "interp"), *cpp = path_join(ext, "cpp");
	/* $INCFLAGS (with find_header) first, then dir_config defaults, then $CPPFLAGS */
	assert_int_equal(ei.include_dirs.n, 5);
	assert_string_equal(ei.include_dirs.v[0], interp);
	assert_string_equal(ei.include_dirs.v[1], inc);
	assert_string_equal(ei.include_why.v[1], "find_header(\"nogvl_only_here.h\")");
	assert_string_equal(ei.include_dirs.v[2], "/usr/local/foo/include");
	assert_string_equal(ei.include_dirs.v[3], "/opt/bar/include");
	assert_string_equal(ei.include_dirs.v[4], cpp);
	assert_int_equal(ei.pkg_modules.n, 1);
	assert_string_equal(ei.pkg_modules.v[0], "libfoo");
	assert_true(th_has(ei.lib_names.v, ei.lib_names.n, "z"));
	char *sub = path_join(ext, "sub"), *deeper = path_join(ext, "sub/deeper"), *src = path_join(ext, "src");
	assert_int_equal(ei.quote_dirs.n, 3);
	assert_true(th_has(ei.quote_dirs.v, ei.quote_dirs.n, sub));
	assert_true(th_has(ei.quote_dirs.v, ei.quote_dirs.n, deeper));
	assert_true(th_has(ei.quote_dirs.v, ei.quote_dirs.n, src));
	assert_true(ei.rust);
	extconf_info_free(&ei);
	free(sub);
	free(deeper);
	free(src);
	free(interp);
	free(cpp);
	free(text);
	free(h);
	th_rm_rf(dir);
	free(inc);
	free(ext);
	free(dir);
}

/* $objs (issue 17 item 7): mkmf builds only those objects' sources. */
static void test_extconf__objs(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("$objs = %w(main.o helper.o)\n$objs << 'extra.o' if have_func('f')\n", &ei);
	assert_true(ei.objs_set);
	assert_false(ei.objs_unknown);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/main.c"));
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/sub/helper.c"));
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/extra.c"));
	assert_true(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	/* what cannot be read leaves every source in */
	parse("$objs = srcs.map { |s| s.sub('.c', '.o') }\n", &ei);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	parse("$objs = [\"a.#{$OBJEXT}\"]\n", &ei);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	/* a list over several lines (ruby-oci8), comments in it dropped */
	parse("$objs = [\"a.o\", # first\n  'b.o',\n  \"c.o\"]\n$objs.each do |o|\n  puts o\nend\n", &ei);
	assert_true(ei.objs_set);
	assert_false(ei.objs_unknown); /* .each only reads it */
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/b.c"));
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/c.c"));
	assert_true(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	/* an unclosed list: unknown, everything stays */
	parse("$objs = [\n  'a.o',\n", &ei);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	/* a method that changes the list: unknown */
	parse("$objs = %w(a.o)\n$objs.map! { |o| o }\n", &ei);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	/* `$objs << name.sub(...)`: each value name takes here (the case
	 * branch of this platform), not those of other platforms */
	parse("$objs = %w(a.o)\ncase RUBY_PLATFORM\nwhen /mingw/\n  hook = \"hook_win.c\"\nwhen /darwin/\n"
	      "  hook = \"hook_osx.c\"\nelse\n  hook = \"hook_elf.c\"\nend\n$objs << hook.gsub(/\\.c$/, '.o')\n",
	      &ei);
	assert_false(ei.objs_unknown);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/hook_elf.c"));
	assert_true(extconf_objs_exclude(&ei, "/gem/ext/foo/hook_win.c"));
	assert_true(extconf_objs_exclude(&ei, "/gem/ext/foo/hook_osx.c"));
	extconf_info_free(&ei);
	/* the arguments of sub are skipped, not read: `".#{$OBJEXT}"` is read
	 * like '.o'; a `)` in the pattern is not read */
	parse("$objs = %w(a.o)\nhook = \"hook_elf.c\"\n$objs << hook.sub(/\\.c$/, \".#{$OBJEXT}\")\n", &ei);
	assert_false(ei.objs_unknown);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/hook_elf.c"));
	assert_true(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	parse("$objs = %w(a.o)\nhook = \"hook_elf.c\"\n$objs << hook.sub(/\\.(c|cc)$/, '.o')\n", &ei);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	/* a variable the reader does not know: unknown */
	parse("$objs = %w(a.o)\n$objs << other.sub(/\\.c$/, '.o')\n", &ei);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
	/* no $objs: everything */
	parse("create_makefile('x')\n", &ei);
	assert_false(extconf_objs_exclude(&ei, "/gem/ext/foo/unused.c"));
	extconf_info_free(&ei);
}

/* A fake pkg-config: the modules "fake" has, with their versions and one
 * include directory each (what extconf_env's pkg asks). */
struct fake_pkg {
	const char *names[3], *versions[3];
	const char *incdir;
	unsigned asked;
};

static bool fake_pkg(void *ctx, const char *extconf_dir, const char *module, char **version, strlist *incdirs)
{
	struct fake_pkg *f = ctx;
	(void)extconf_dir;
	f->asked++;
	for (unsigned i = 0; i < 3 && f->names[i]; i++)
		if (strcmp(f->names[i], module) == 0) {
			if (version)
				*version = xstrdup(f->versions[i]);
			if (incdirs)
				vec_push(incdirs, xstrdup(f->incdir));
			return true;
		}
	return false;
}

/* Issue 15 / stop 22: what the installed library decides, read the way a
 * real `ruby extconf.rb` on this machine would (the rmagick pattern, in our
 * own words): a module chosen from candidate lists, its version compared in
 * a helper, and an if/elsif header chain where only the second is installed. */
static const char version_extconf[] = "require 'mkmf'\n"
				      "require 'pkg-config'\n"
				      "OLD_PKGS = %w[\n"
				      "  libfoo-6.big\n"
				      "  libfoo-6\n"
				      "].freeze\n"
				      "NEW_PKGS = %w[libfoo-7]\n"
				      "def installed(list)\n"
				      "  list.select { |pkg| PKGConfig.exist?(pkg) }\n"
				      "end\n"
				      "$pkg = (installed(NEW_PKGS) + installed(OLD_PKGS)).first\n"
				      "$foo_version = PKGConfig.modversion($pkg)[/^(\\d+\\.\\d+\\.\\d+)/]\n"
				      "$CPPFLAGS += ' ' + PKGConfig.cflags($pkg)\n"
				      "if have_header('foo7/core.h')\n"
				      "  $defs.push('-DPICKED_SEVEN=1')\n"
				      "elsif have_header('foo/core.h')\n"
				      "  $defs.push('-DPICKED_SIX=1')\n"
				      "else\n"
				      "  $defs.push('-DPICKED_NONE=1')\n"
				      "end\n"
				      "if have_header('stdio.h')\n"
				      "  $defs.push('-DSTDIO_BRANCH=1')\n"
				      "else\n"
				      "  $defs.push('-DNO_STDIO_BRANCH=1')\n"
				      "end\n"
				      "$defs.push('-DFOO_AT_LEAST_6_9=1') if foo_at_least?('6.9.0')\n"
				      "$defs.push('-DFOO_SEVEN=1') if foo_at_least?('7.0.0')\n"
				      "$defs.push('-DFOO_BEFORE_SEVEN=1') unless foo_at_least?('7.0.0')\n"
				      "def foo_at_least?(version)\n"
				      "  Gem::Version.new($foo_version) >= Gem::Version.new(version)\n"
				      "end\n"
				      "have_lib = false\n"
				      "if pkg_config('libfoo-6')\n"
				      "  have_lib = true\n"
				      "end\n"
				      "unless have_lib\n"
				      "  $defs.push('-DFALLBACK_LIB=1')\n"
				      "end\n";

/* A `case` without a subject whose `when`s probe headers (io-console's
 * terminal-header choice, in our own words): the first condition that holds
 * wins, a %w list's `.find { |h| have_header(h) }` defines the first header
 * present, and the `when`s after it are not probed. */
static const char bare_case_extconf[] = "require 'mkmf'\n"
					"case\n"
					"when hdr = %w\"nogvl_absent_term.h stdio.h\".find {|h| have_header(h)}\n"
					"  $defs.push('-DPICKED_LIST=1')\n"
					"when have_header(hdr = \"stdlib.h\")\n"
					"  $defs.push('-DPICKED_OLD=1')\n"
					"else\n"
					"  $defs.push('-DPICKED_NONE=1')\n"
					"end\n"
					"case\n"
					"when %w[nogvl_absent_a.h nogvl_absent_b.h].detect { |x| have_header(x) }\n"
					"  $defs.push('-DPICKED_ABSENT=1')\n"
					"when have_header('string.h')\n"
					"  $defs.push('-DPICKED_STRING=1')\n"
					"end\n";

static void test_extconf__bare_case_header_list(void **state)
{
	(void)state;
	struct extconf_env env = {&rh.dirs, NULL, NULL, NULL};
	struct extconf_info ei;
	memset(&ei, 0, sizeof(ei));
	extconf_parse_env(bare_case_extconf, "/gem/ext/foo", &env, &ei);
	assert_true(HAS(&ei, "HAVE_STDIO_H=1"));
	assert_false(HAS(&ei, "HAVE_NOGVL_ABSENT_TERM_H=1"));
	assert_true(HAS(&ei, "PICKED_LIST=1"));
	/* the later when is neither probed nor taken */
	assert_false(HAS(&ei, "HAVE_STDLIB_H=1"));
	assert_false(HAS(&ei, "PICKED_OLD=1"));
	assert_false(HAS(&ei, "PICKED_NONE=1"));
	/* no header of the list here: that when fails, the next one is taken */
	assert_false(HAS(&ei, "PICKED_ABSENT=1"));
	assert_true(HAS(&ei, "HAVE_STRING_H=1"));
	assert_true(HAS(&ei, "PICKED_STRING=1"));
	extconf_info_free(&ei);
}

static void test_extconf__installed_library(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *inc = path_join(dir, "inc6");
	free(th_write(dir, "inc6/foo/core.h", "/* 6 */\n"));
	/* version 6 installed (the second candidate of its list) */
	struct fake_pkg six = {{"libfoo-6", NULL, NULL}, {"6.9.11", NULL, NULL}, inc, 0};
	struct extconf_env env = {&rh.dirs, fake_pkg, &six, NULL};
	struct extconf_info ei;
	memset(&ei, 0, sizeof(ei));
	extconf_parse_env(version_extconf, "/gem/ext/foo", &env, &ei);
	assert_true(HAS(&ei, "FOO_AT_LEAST_6_9=1"));
	assert_false(HAS(&ei, "FOO_SEVEN=1"));
	assert_true(HAS(&ei, "FOO_BEFORE_SEVEN=1"));
	assert_true(HAS(&ei, "HAVE_FOO_CORE_H=1"));
	assert_false(HAS(&ei, "HAVE_FOO7_CORE_H=1"));
	assert_true(HAS(&ei, "PICKED_SIX=1"));
	assert_false(HAS(&ei, "PICKED_SEVEN=1"));
	assert_false(HAS(&ei, "PICKED_NONE=1"));
	/* an installed header's branch is taken, so its else is not */
	assert_true(HAS(&ei, "STDIO_BRANCH=1"));
	assert_false(HAS(&ei, "NO_STDIO_BRANCH=1"));
	/* PKGConfig.cflags of the chosen module goes into the compile */
	assert_int_equal(ei.pkg_modules.n, 1);
	assert_string_equal(ei.pkg_modules.v[0], "libfoo-6");
	assert_false(HAS(&ei, "FALLBACK_LIB=1")); /* pkg_config("libfoo-6") found it */
	assert_true(six.asked <= 12);
	extconf_info_free(&ei);

	/* version 7 installed as well: the newest is chosen */
	struct fake_pkg both = {{"libfoo-6", "libfoo-7", NULL}, {"6.9.11", "7.1.0", NULL}, inc, 0};
	env.ctx = &both;
	memset(&ei, 0, sizeof(ei));
	extconf_parse_env(version_extconf, "/gem/ext/foo", &env, &ei);
	assert_true(HAS(&ei, "FOO_SEVEN=1"));
	assert_false(HAS(&ei, "FOO_BEFORE_SEVEN=1"));
	assert_string_equal(ei.pkg_modules.v[0], "libfoo-7");
	extconf_info_free(&ei);

	/* no pkg-config answers: as before, conditions are taken as true */
	memset(&ei, 0, sizeof(ei));
	extconf_parse(version_extconf, "/gem/ext/foo", &rh.dirs, &ei);
	assert_true(HAS(&ei, "FOO_SEVEN=1"));
	assert_true(HAS(&ei, "HAVE_FOO7_CORE_H=1"));
	assert_true(HAS(&ei, "FALLBACK_LIB=1"));
	assert_int_equal(ei.pkg_modules.n, 1); /* only the literal pkg_config('libfoo-6') */
	extconf_info_free(&ei);
	free(inc);
	th_rm_rf(dir);
	free(dir);
}

/* Ruby-GNOME's and ruby-pkg-config's helpers: the module named (a literal,
 * the first element of [name, major, minor, micro], or a variable holding a
 * literal) is asked of pkg-config like pkg_config's; glib_mkenums("prefix")
 * writes prefix.h at build time, which gets a stand-in like create_header's. */
static void test_extconf__gnome_helpers(void **state)
{
	(void)state;
	struct extconf_info ei;
	parse("require 'mkmf'\n"
	      "package_id = \"gobject-2.0\"\n"
	      "unless required_pkg_config_package([package_id, 2, 56, 0],\n"
	      "                                   :debian => \"libglib2.0-dev\")\n"
	      "  exit(false)\n"
	      "end\n"
	      "required_pkg_config_package(\"gio-2.0\", :debian => \"libglib2.0-dev\")\n"
	      "PKGConfig.have_package('gthread-2.0')\n"
	      "PKGConfig.have_package(unknown_name)\n"
	      "required_pkg_config_package(\"../../evil\")\n"
	      "enum_types_prefix = \"foo-enum-types\"\n"
	      "glib_mkenums(enum_types_prefix, headers, \"G_TYPE_\", [])\n"
	      "glib_mkenums(\"../up\", headers, \"G_TYPE_\", [])\n"
	      "create_makefile('foo')\n",
	      &ei);
	assert_int_equal(ei.pkg_modules.n, 3);
	assert_string_equal(ei.pkg_modules.v[0], "gobject-2.0");
	assert_string_equal(ei.pkg_modules.v[1], "gio-2.0");
	assert_string_equal(ei.pkg_modules.v[2], "gthread-2.0");
	assert_int_equal(ei.headers.n, 1);
	assert_string_equal(ei.headers.v[0], "foo-enum-types.h");
	extconf_info_free(&ei);
}

/* A default build on this (Linux) machine: platform tests, options not
 * given, environment unset, and what follows from them (stop 22). */
static void test_extconf__default_build(void **state)
{
	(void)state;
#ifdef __linux__
	struct extconf_info ei;
	parse("require 'mkmf'\n"
	      "config = {}\n"
	      "config[:windows] = !!(RbConfig::CONFIG['host_os'] =~ /mswin|mingw|cygwin/)\n"
	      "$defs << '-DON_WINDOWS' if config[:windows]\n"
	      "$defs << '-DON_LINUX' if RUBY_PLATFORM =~ /linux/\n"
	      "$defs << '-DNOT_DARWIN' unless RUBY_PLATFORM.include?('darwin')\n"
	      "case RUBY_PLATFORM\n"
	      "when /mswin32/, /mingw32/\n"
	      "  add_define 'OS_WIN'\n"
	      "when /darwin/\n"
	      "  add_define 'OS_MAC'\n"
	      "when /linux/\n"
	      "  add_define 'OS_LINUX'\n"
	      "else\n"
	      "  add_define 'OS_OTHER'\n"
	      "end\n"
	      "use_edit = enable_config(\"libedit\")\n"
	      "case use_edit\n"
	      "when true\n"
	      "  have_header('editline/readline.h')\n"
	      "when false\n"
	      "  have_header('readline/history.h')\n"
	      "else\n"
	      "  have_header('readline/readline.h')\n"
	      "end\n"
	      "def cipher?\n"
	      "  with_config(\"cipher\") ||\n"
	      "    with_config(\"cipher-dir\")\n"
	      "end\n"
	      "append_cppflags(\"-DUSING_CIPHER\") if cipher?\n"
	      "if cipher? && find_header(\"cipher/db.h\")\n"
	      "  add_define 'CIPHER_DB'\n"
	      "elsif find_header(\"stdio.h\")\n"
	      "  add_define 'PLAIN_DB'\n"
	      "else\n"
	      "  add_define 'NO_DB'\n"
	      "end\n"
	      "$defs << '-DDEBUG_BUILD' if ENV['MY_DEBUG']\n"
	      "$defs << '-DHAS_NEW' if newfn = have_func('new_fn', 'x.h')\n"
	      "$defs << '-DHAS_OLD' if !newfn && have_macro('OLD', 'x.h')\n"
	      "append_cflags([\n"
	      "  # a comment line\n"
	      "  \"-Wall\",\n"
	      "  \"-DMULTI_LINE=1\",\n"
	      "  \"-I#{__dir__}/inc\",\n"
	      "])\n"
	      "$defs << '-DAFTER_LIST=1'\n"
	      "have_header(lit_header = 'lit.h')\n"
	      "$srcs = [\"main.c\", \"epoll.c\"]\n"
	      "$srcs << \"kqueue.c\" if have_header(\"sys/event.h\")\n"
	      "$srcs << \"extra.c\"\n",
	      &ei);
	assert_false(HAS(&ei, "ON_WINDOWS"));
	assert_true(HAS(&ei, "ON_LINUX"));
	assert_true(HAS(&ei, "NOT_DARWIN"));
	assert_true(HAS(&ei, "OS_LINUX"));
	assert_false(HAS(&ei, "OS_WIN"));
	assert_false(HAS(&ei, "OS_MAC"));
	assert_false(HAS(&ei, "OS_OTHER"));
	assert_true(HAS(&ei, "HAVE_READLINE_READLINE_H=1"));
	assert_false(HAS(&ei, "HAVE_EDITLINE_READLINE_H=1"));
	assert_false(HAS(&ei, "HAVE_READLINE_HISTORY_H=1"));
	assert_false(HAS(&ei, "USING_CIPHER"));
	assert_false(HAS(&ei, "CIPHER_DB"));
	assert_true(HAS(&ei, "PLAIN_DB"));
	assert_false(HAS(&ei, "NO_DB"));
	assert_false(HAS(&ei, "DEBUG_BUILD"));
	assert_true(HAS(&ei, "HAS_NEW"));
	assert_false(HAS(&ei, "HAS_OLD"));
	assert_true(HAS(&ei, "MULTI_LINE=1"));
	assert_true(HAS(&ei, "AFTER_LIST=1"));
	assert_true(th_has(ei.include_dirs.v, ei.include_dirs.n, "/gem/ext/foo/inc"));
	assert_true(HAS(&ei, "HAVE_LIT_H=1"));
	/* $srcs: kqueue.c is not compiled here */
	assert_true(extconf_srcs_exclude(&ei, "/gem/ext/foo/kqueue.c"));
	assert_false(extconf_srcs_exclude(&ei, "/gem/ext/foo/main.c"));
	assert_false(extconf_srcs_exclude(&ei, "/gem/ext/foo/extra.c"));
	extconf_info_free(&ei);
	/* $srcs that cannot be read leaves every source in */
	parse("$srcs = Dir.glob('*.c')\n", &ei);
	assert_false(extconf_srcs_exclude(&ei, "/gem/ext/foo/kqueue.c"));
	extconf_info_free(&ei);
	/* an extension whose create_makefile runs only on Windows builds
	 * nothing here ... */
	parse("if $mswin || $mingw\n  create_makefile('w')\nend\n", &ei);
	assert_true(ei.not_built);
	assert_true(extconf_srcs_exclude(&ei, "/gem/ext/foo/w.c"));
	extconf_info_free(&ei);
	parse("create_makefile('w') if have_library('ws2_32', 'WSAStartup')\n", &ei);
	assert_true(ei.not_built);
	extconf_info_free(&ei);
	/* a condition over several lines: `A and` with A failing here fails */
	parse("if have_library('ole32') and\n   have_header('windows.h')\n  create_makefile('w')\nend\n", &ei);
	assert_true(ei.not_built);
	extconf_info_free(&ei);
	/* ... otherwise it is unknown, and its probes on the next lines are read */
	parse("unless (have_header('aa.h') &&\n        have_header('bb.h'))\n  raise 'no'\nend\n", &ei);
	assert_true(HAS(&ei, "HAVE_AA_H=1"));
	assert_true(HAS(&ei, "HAVE_BB_H=1"));
	extconf_info_free(&ei);
	/* ... but a flag set under a condition, reset in a branch, then tested
	 * (io/console's pattern, in our words) stays unknown: built */
	parse("ok = true if RUBY_ENGINE == 'ruby'\n"
	      "case\n"
	      "when have_header('termios.h')\n"
	      "  have_func('cfmakeraw')\n"
	      "else\n"
	      "  ok = false\n"
	      "end if ok\n"
	      "case ok\n"
	      "when true\n"
	      "  create_makefile('c')\n"
	      "when nil\n"
	      "  File.write('Makefile', dummy_makefile($srcdir).join(''))\n"
	      "end\n",
	      &ei);
	assert_false(ei.not_built);
	extconf_info_free(&ei);
	/* ... and so does a list going on over several lines (not read) */
	parse("$srcs = [\"a.c\", \"b.c\",\n  \"c.c\"]\n", &ei);
	assert_false(extconf_srcs_exclude(&ei, "/gem/ext/foo/c.c"));
	extconf_info_free(&ei);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extconf__probes),
		cmocka_unit_test(test_extconf__removed_ruby_function),
		cmocka_unit_test(test_extconf__word_lists),
		cmocka_unit_test(test_extconf__defs_and_flags),
		cmocka_unit_test(test_extconf__percent_literals),
		cmocka_unit_test(test_extconf__comments_and_interpolation),
		cmocka_unit_test(test_extconf__conditional_sources),
		cmocka_unit_test(test_extconf__other_platforms),
		cmocka_unit_test(test_extconf__nearest),
		cmocka_unit_test(test_extconf__include_path),
		cmocka_unit_test(test_extconf__objs),
		cmocka_unit_test(test_extconf__installed_library),
		cmocka_unit_test(test_extconf__bare_case_header_list),
		cmocka_unit_test(test_extconf__default_build),
		cmocka_unit_test(test_extconf__gnome_helpers),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
