/* test_util.c: the small helpers the driver relies on (paths, shell words,
 * strings, maps, buffers, reading files and commands). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "c_scan.h"
#include "compdb.h"
#include "extconf.h"
#include "helpers.h"
#include "report.h"
#include "process.h"
#include "util.h"
#include "prescan.h"

static void check_norm(const char *in, const char *want)
{
	char *got = path_normalize(in);
	assert_string_equal(got, want);
	free(got);
}

static void test_util__path_normalize(void **state)
{
	(void)state;
	check_norm("a/./b/../c", "a/c");
	check_norm("/usr//include/./ruby/../x.h", "/usr/include/x.h");
	check_norm("/../x", "/x");
	check_norm("../a/b", "../a/b");
	check_norm("a/../../b", "../b");
	check_norm("./", ".");
	check_norm("", ".");
	check_norm("/", "/");
	check_norm("a/b/", "a/b");
}

static void check_rel(const char *p, const char *base, const char *want)
{
	char *got = path_relative(p, base);
	assert_string_equal(got, want);
	free(got);
}

static void test_util__path_relative(void **state)
{
	(void)state;
	check_rel("/work/gem/ext/a.c", "/work/gem", "ext/a.c");
	check_rel("/work/gem/ext/a.c", "/work/gem/", "ext/a.c");
	check_rel("/work/gemx/a.c", "/work/gem", "/work/gemx/a.c"); /* a sibling, not below */
	check_rel("/usr/include/ruby.h", "/work", "/usr/include/ruby.h");
	check_rel("/work/gem", "/work/gem", "/work/gem"); /* the directory itself stays absolute */
	check_rel("/a.c", "/", "a.c");
	check_rel("/x/a.c", NULL, "/x/a.c");
}

static void test_util__path_is_below(void **state)
{
	(void)state;
	assert_true(path_is_below("/a/b/c", "/a/b"));
	assert_true(path_is_below("/a/b", "/a/b"));
	assert_true(path_is_below("/a/b/c", "/a/b/"));
	assert_true(path_is_below("/a", "/"));
	assert_false(path_is_below("/a/bc", "/a/b"));
	assert_false(path_is_below("/a", "/a/b"));
}

static void test_util__path_parts(void **state)
{
	(void)state;
	char *s = path_join("/a", "b.c");
	assert_string_equal(s, "/a/b.c");
	free(s);
	s = path_join("/a/", "b.c");
	assert_string_equal(s, "/a/b.c");
	free(s);
	s = path_join("/a", "/abs.c");
	assert_string_equal(s, "/abs.c");
	free(s);
	s = path_join("", "b.c");
	assert_string_equal(s, "b.c");
	free(s);
	s = path_dirname("/a/b/c.c");
	assert_string_equal(s, "/a/b");
	free(s);
	s = path_dirname("/c.c");
	assert_string_equal(s, "/");
	free(s);
	s = path_dirname("c.c");
	assert_string_equal(s, ".");
	free(s);
	assert_string_equal(path_basename("/a/b/c.c"), "c.c");
	assert_string_equal(path_ext("/a/b.d/c.cpp"), ".cpp");
	assert_string_equal(path_ext("/a/b.d/Makefile"), "");
	assert_string_equal(path_ext("/a/.hidden"), "");
}

static void test_util__path_absolute(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *f = th_write(dir, "sub/x.c", "int x;\n");
	char *cwd = getcwd(NULL, 0);
	assert_int_equal(chdir(dir), 0);
	char *a = path_absolute("sub/../sub/x.c");
	assert_string_equal(a, f);
	free(a);
	/* a file that does not exist is made absolute lexically */
	a = path_absolute("nope/../missing.c");
	char *want = path_join(dir, "missing.c");
	assert_string_equal(a, want);
	free(want);
	free(a);
	/* display paths are relative to the current directory when below it */
	a = display_path(f);
	assert_string_equal(a, "sub/x.c");
	free(a);
	a = display_path("/usr/include/ruby.h");
	assert_string_equal(a, "/usr/include/ruby.h");
	free(a);
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	th_rm_rf(dir);
	free(f);
	free(dir);
}

/* Splits cmd and compares with the NULL-terminated expected words. */
static void check_split(const char *cmd, ...)
{
	strlist got = {0};
	assert_int_equal(shell_split(cmd, &got), 0);
	va_list ap;
	va_start(ap, cmd);
	size_t i = 0;
	for (const char *w = va_arg(ap, const char *); w; w = va_arg(ap, const char *), i++) {
		assert_true(i < got.n);
		assert_string_equal(got.v[i], w);
	}
	va_end(ap);
	assert_int_equal(got.n, i);
	strlist_free(&got);
}

static void test_util__shell_split(void **state)
{
	(void)state;
	check_split("cc -c a.c", "cc", "-c", "a.c", NULL);
	check_split("  cc\t-O2 \n a.c  ", "cc", "-O2", "a.c", NULL);
	check_split("cc '-DNAME=a b' x", "cc", "-DNAME=a b", "x", NULL);
	check_split("cc \"-DSTR=\\\"hi there\\\"\"", "cc", "-DSTR=\"hi there\"", NULL);
	check_split("cc -DX=\\\"v\\\"", "cc", "-DX=\"v\"", NULL);
	check_split("cc a\\ b.c", "cc", "a b.c", NULL);
	check_split("cc '' \"\"", "cc", "", "", NULL);
	check_split("cc pre'mid'\"end\"", "cc", "premidend", NULL);
	check_split("cc \"a\\\\b\" 'c\\d'", "cc", "a\\b", "c\\d", NULL);
	check_split("", NULL);
	strlist bad = {0};
	assert_int_equal(shell_split("cc 'unterminated", &bad), -1);
	strlist_free(&bad);
	assert_int_equal(shell_split("cc \"unterminated", &bad), -1);
	strlist_free(&bad);
}

static void test_util__strings(void **state)
{
	(void)state;
	static const char *const sorted[] = {"alpha", "beta", "gamma"};
	assert_true(str_in_sorted("beta", sorted, 3));
	assert_false(str_in_sorted("delta", sorted, 3));
	assert_false(str_in_sorted(NULL, sorted, 3));
	assert_int_equal(str_in_list("gamma", sorted, 3), 2);
	assert_int_equal(str_in_list("zeta", sorted, 3), -1);
	assert_true(str_starts("-fplugin=x", "-fplugin"));
	assert_false(str_starts(NULL, "x"));
	assert_true(str_ends("a.c", ".c"));
	assert_false(str_ends("c", ".c"));
	assert_true(str_eq(NULL, NULL));
	assert_false(str_eq("a", NULL));
	assert_true(str_cmp(NULL, "a") < 0);
	char *n = mkmf_cpp_name("ruby/thread.h");
	assert_string_equal(n, "RUBY_THREAD_H");
	free(n);
	n = mkmf_cpp_name("struct timespec");
	assert_string_equal(n, "STRUCT_TIMESPEC");
	free(n);
}

static void test_util__strbuf_and_map(void **state)
{
	(void)state;
	struct strbuf sb = {0};
	assert_string_equal(sb_str(&sb), "");
	sb_printf(&sb, "%d-%s", 42, "x");
	sb_putc(&sb, '!');
	assert_string_equal(sb_str(&sb), "42-x!");
	char *d = sb_detach(&sb);
	assert_string_equal(d, "42-x!");
	assert_null(sb.buf);
	free(d);
	/* vec_exact: room for exactly that many, never less than there is */
	VEC(int) v = {0};
	vec_exact(&v, 13);
	assert_int_equal(v.cap, 13);
	for (int i = 0; i < 14; i++)
		vec_push(&v, i);
	assert_true(v.cap >= 14);
	size_t cap = v.cap;
	vec_exact(&v, 3); /* never shrinks */
	assert_int_equal(v.cap, cap);
	assert_int_equal(v.v[13], 13);
	vec_free(&v);

	struct hmap m = {0};
	char keys[200][8];
	for (int i = 0; i < 200; i++) {
		snprintf(keys[i], sizeof(keys[i]), "k%d", i);
		assert_null(hmap_put(&m, keys[i], (void *)(intptr_t)(i + 1)));
	}
	assert_int_equal(m.n, 200);
	assert_int_equal((intptr_t)hmap_get(&m, "k137"), 138);
	assert_false(hmap_has(&m, "k200"));
	assert_int_equal((intptr_t)hmap_put(&m, keys[5], (void *)7), 6);
	hmap_free(&m);

	struct strpool pool = {0};
	assert_ptr_equal(intern(&pool, "abc"), intern(&pool, "abc"));
	assert_ptr_not_equal(intern(&pool, "abc"), intern(&pool, "abd"));
	strpool_free(&pool);

	xqsort(NULL, 0, sizeof(int), NULL); /* an empty array is fine */
}

static void test_util__read_file(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	char *f = th_write(dir, "f.txt", "0123456789");
	size_t len = 0;
	char *t = read_file(f, &len, 0);
	assert_non_null(t);
	assert_int_equal(len, 10);
	assert_string_equal(t, "0123456789");
	free(t);
	assert_null(read_file(f, NULL, 5));
	assert_int_equal(errno, EFBIG);
	assert_null(read_file(dir, NULL, 0));
	assert_int_equal(errno, EISDIR);
	char *missing = path_join(dir, "missing");
	assert_null(read_file(missing, NULL, 0));
	assert_int_equal(errno, ENOENT);
	free(missing);
	/* a FIFO: refused at once, never waited on for a writer */
	char *fifo = path_join(dir, "fifo.c");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_null(read_file(fifo, NULL, 0));
	assert_int_equal(errno, EINVAL);
	free(fifo);
	th_rm_rf(dir);
	free(f);
	free(dir);
}

static void test_util__put_visible(void **state)
{
	(void)state;
	struct strbuf sb = {0};
	sb_put_visible(&sb, "a\tb\033[31m\r\n::error::x\x7f\a");
	assert_string_equal(sb_str(&sb), "a\tb^[[31m^M^J::error::x^?^G");
	sb_reset(&sb);
	/* UTF-8 kept; C1 controls and bidi overrides shown */
	sb_put_visible(&sb, "caf\xc3\xa9 \xc2\x9b"
			    "2J \xe2\x80\xae \xe2\x81\xa6 \xe2\x80\x94 \xff");
	assert_string_equal(sb_str(&sb), "caf\xc3\xa9 <U+009B>2J <U+202E> <U+2066> \xe2\x80\x94 \xff");
	sb_free(&sb);
}

static void test_util__capture_command(void **state)
{
	(void)state;
	char *argv[] = {"sh", "-c", "printf 'a\\nb'", NULL};
	char *out = capture_command(argv, 100);
	assert_non_null(out);
	assert_string_equal(out, "a\nb");
	free(out);
	char *fails[] = {"sh", "-c", "exit 3", NULL};
	assert_null(capture_command(fails, 100));
	char *missing[] = {"nogvl-lint-no-such-program", NULL};
	assert_null(capture_command(missing, 100));
}

static void test_util__run_process(void **state)
{
	(void)state;
	struct run_result r;
	/* a time limit: the whole process group is stopped */
	char *sleeper[] = {"sh", "-c", "sleep 30 & sleep 30", NULL};
	struct run_spec spec = {.argv = sleeper, .timeout_ms = 300, .max_out = 100};
	double t0 = now_seconds();
	run_process(&spec, &r);
	assert_int_equal(r.outcome, RUN_TIMED_OUT);
	assert_true(now_seconds() - t0 < 10);
	assert_null(r.out);
	run_result_free(&r);
	/* an output limit */
	char *talker[] = {"sh", "-c", "while :; do echo xxxxxxxxxxxxxxxxxxxx; done", NULL};
	spec = (struct run_spec){.argv = talker, .timeout_ms = 20000, .max_out = 1000};
	run_process(&spec, &r);
	assert_int_equal(r.outcome, RUN_TOO_MUCH);
	run_result_free(&r);
	/* no shell: the argument is one word */
	char *echo[] = {"echo", "a;b $HOME", NULL};
	spec = (struct run_spec){.argv = echo, .max_out = 100};
	run_process(&spec, &r);
	assert_int_equal(r.outcome, RUN_OK);
	assert_string_equal(r.out, "a;b $HOME\n");
	run_result_free(&r);
	/* descriptors of ours (even without CLOEXEC) are closed; stdin is /dev/null */
	int fd = open("/dev/null", O_RDONLY);
	assert_true(fd > 2);
	char fdarg[64];
	snprintf(fdarg, sizeof(fdarg), "test -e /proc/self/fd/%d && echo open; cat; echo end", fd);
	char *fds[] = {"sh", "-c", fdarg, NULL};
	spec = (struct run_spec){.argv = fds, .max_out = 100};
	run_process(&spec, &r);
	close(fd);
	assert_int_equal(r.outcome, RUN_OK);
	assert_string_equal(r.out, "end\n");
	run_result_free(&r);
	/* the directory, the exit status and the first line of stderr */
	char *fails[] = {"sh", "-c", "pwd; echo first >&2; echo second >&2; exit 3", NULL};
	spec = (struct run_spec){.argv = fails, .dir = "/", .max_out = 100, .keep_err = true};
	run_process(&spec, &r);
	assert_int_equal(r.outcome, RUN_FAILED);
	assert_int_equal(r.status, 3);
	assert_string_equal(r.out, "/\n");
	assert_string_equal(r.err_line, "first");
	run_result_free(&r);
	char *missing[] = {"nogvl-lint-no-such-program", NULL};
	spec = (struct run_spec){.argv = missing, .max_out = 100};
	run_process(&spec, &r);
	assert_int_equal(r.outcome, RUN_NOT_FOUND);
	run_result_free(&r);
}

static void test_util__prescan(void **state)
{
	(void)state;
	char *dir = th_mkdtemp();
	/* a header with a debug pragma: neutralised, handed over as an unsaved file */
	char *h = th_write(dir, "h.h", "#pragma clang __debug dump x\n#define F \"/dev/zero\"\n");
	char *a_text = xasprintf("#include \"h.h\"\nint a;\n");
	char *a = th_write(dir, "a.c", a_text);
	struct prescan ps;
	prescan_run(&ps, a, a_text, strlen(a_text), NULL, 0, NULL, 0);
	assert_null(ps.refused);
	assert_int_equal(ps.overrides.n, 1);
	assert_string_equal(ps.overrides.v[0].Filename, h);
	assert_non_null(strstr(ps.overrides.v[0].Contents, "__nodbg"));
	prescan_free(&ps);
	/* the header's macro names /dev/zero: refused before parsing */
	char *b_text = xasprintf("#include \"h.h\"\n#include F\nint b;\n");
	char *b = th_write(dir, "b.c", b_text);
	prescan_run(&ps, b, b_text, strlen(b_text), NULL, 0, NULL, 0);
	assert_non_null(ps.refused);
	assert_non_null(strstr(ps.refused, "'/dev/zero', which is a device"));
	prescan_free(&ps);
	/* -DNAME=value too */
	char *c_text = xasprintf("#include G\nint c;\n");
	char *c = th_write(dir, "c.c", c_text);
	char *args[] = {"-DG=\"/dev/zero\""};
	prescan_run(&ps, c, c_text, strlen(c_text), args, 1, NULL, 0);
	assert_non_null(ps.refused);
	prescan_free(&ps);
	/* the header is read once per process: changed behind the cache's back
	 * (same size, same time), the next file still gets what was read */
	struct stat st;
	assert_int_equal(stat(h, &st), 0);
	FILE *f = fopen(h, "w");
	assert_non_null(f);
	fputs("#pragma clang __xxxxx dump x\n#define F \"/dev/zero\"\n", f);
	fclose(f);
	struct timespec times[2] = {st.st_atim, st.st_mtim};
	assert_int_equal(utimensat(AT_FDCWD, h, times, 0), 0);
	prescan_run(&ps, a, a_text, strlen(a_text), NULL, 0, NULL, 0);
	assert_int_equal(ps.overrides.n, 1);
	assert_non_null(strstr(ps.overrides.v[0].Contents, "__nodbg"));
	prescan_free(&ps);
	/* a new time: read again */
	times[1].tv_sec += 10;
	assert_int_equal(utimensat(AT_FDCWD, h, times, 0), 0);
	prescan_run(&ps, a, a_text, strlen(a_text), NULL, 0, NULL, 0);
	assert_int_equal(ps.overrides.n, 0);
	prescan_free(&ps);
	free(a_text);
	free(b_text);
	free(c_text);
	free(a);
	free(b);
	free(c);
	free(h);
	th_rm_rf(dir);
	free(dir);
}

static void test_util__line_index(void **state)
{
	(void)state;
	const char *text = "ab\ncd\n\nef";
	struct line_index li;
	line_index_build(&li, text, strlen(text));
	assert_int_equal(li.n, 4);
	assert_int_equal(line_index_offset(&li, 2, 2), 4);
	assert_int_equal(line_index_offset(&li, 4, 1), 7);
	assert_int_equal(line_index_offset(&li, 5, 1), UINT32_MAX);
	line_index_free(&li);
}

/* c_scan_idents: what it hands over, and what it skips */
struct scanned {
	struct strbuf sb;
};

static void record_ident(const struct c_ident *id, void *arg)
{
	struct scanned *sc = arg;
	sb_printf(&sc->sb, "%.*s:%u:%d%s%s ", (int)id->n, id->s, id->line, id->depth, id->in_directive ? "#" : "",
		  id->in_define ? "d" : "");
}

static const char *scan_of(struct scanned *sc, const char *text, unsigned flags)
{
	sb_reset(&sc->sb);
	c_scan_idents(text, strlen(text), flags, record_ident, sc);
	return sb_str(&sc->sb);
}

static void test_util__c_scan(void **state)
{
	(void)state;
	struct scanned sc = {0};
	/* comments, literals and numbers skipped; lines counted through them */
	assert_string_equal(scan_of(&sc, "a /* b\n c */ d // e\n\"f\\\ng\" 'h' 1x2 i", C_SCAN_C), "a:1:0 d:2:0 i:4:0 ");
	/* a C literal left open ends with its line */
	assert_string_equal(scan_of(&sc, "#error can't\nx", C_SCAN_C), "error:1:0# can:1:0# x:2:0 ");
	/* directives (continued over a backslash-newline), #define, braces
	 * outside directives; a comment before the '#' is a space */
	assert_string_equal(scan_of(&sc, "/* c */ # define M \\\n  N {\nvoid f(void) { { g; } }\n#if x\n", C_SCAN_C),
			    "define:1:0#d M:1:0#d N:2:0#d void:3:0 f:3:0 void:3:0 g:3:2 if:4:0# x:4:0# ");
	/* Rust: strings span lines, a quote is a lifetime, no directives */
	assert_string_equal(scan_of(&sc, "fn f<'a>() { \"s\nt\" }\n#[x] y", C_SCAN_RUST),
			    "fn:1:0 f:1:0 a:1:0 x:3:0 y:3:0 ");
	sb_free(&sc.sb);
}

/* the arena: 16-byte aligned zeroed memory after unaligned strings, small
 * blocks first, large allocations in blocks of their own, every byte kept */
static void test_util__arena(void **state)
{
	(void)state;
	struct arena a = {0};
	char *s[600];
	unsigned char *p[600];
	for (int i = 0; i < 600; i++) {
		char name[32];
		snprintf(name, sizeof(name), "n%d", i);
		s[i] = arena_strdup(&a, name);
		size_t n = i % 7 == 0 ? 300 + (size_t)i * 11 : 1 + (size_t)i % 40;
		p[i] = arena_alloc(&a, n);
		assert_int_equal((uintptr_t)p[i] % 16, 0);
		for (size_t k = 0; k < n; k++)
			assert_int_equal(p[i][k], 0);
		memset(p[i], 0xab, n);
	}
	for (int i = 0; i < 600; i++) {
		char name[32];
		snprintf(name, sizeof(name), "n%d", i);
		assert_string_equal(s[i], name);
	}
	/* strings are not padded to 16 bytes: a hundred short ones fit in the
	 * first small block */
	struct arena b = {0};
	const char *first = arena_strdup(&b, "x");
	const char *last = first;
	for (int i = 0; i < 100; i++)
		last = arena_strndup(&b, "abcdefgh", 3);
	assert_true(last > first && last - first < 1024);
	assert_string_equal(arena_printf(&b, "%s-%d", "k", 7), "k-7");
	char *big = arena_alloc(&b, 100000);
	assert_int_equal(big[99999], 0);
	arena_free(&b);
	arena_free(&a);
	assert_null(a.head);
}

/* A sealed string pool (no index) still interns: the same pointer for a
 * string it holds (short, empty, in a block of its own), one new copy for a
 * new string, through the scans and after the index is built again; strings
 * added as unique are found the same way. */
static void test_util__strpool_seal(void **state)
{
	(void)state;
	struct strpool p = {0};
	char big[1000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	const char *a = intern(&p, "alpha"), *e = intern(&p, ""), *g = intern(&p, big);
	const char *many[300];
	for (int i = 0; i < 300; i++) { /* several arena blocks */
		char name[32];
		snprintf(name, sizeof(name), "name%d", i);
		many[i] = intern(&p, name);
	}
	strpool_seal(&p);
	assert_int_equal(p.map.n, 0);
	assert_int_equal(p.unindexed, 303);
	assert_ptr_equal(intern(&p, "alpha"), a); /* scans */
	assert_ptr_equal(intern(&p, ""), e);
	assert_ptr_equal(intern(&p, big), g);
	assert_ptr_equal(intern(&p, "name299"), many[299]);
	const char *n1 = intern(&p, "new one");
	assert_string_equal(n1, "new one");
	assert_ptr_equal(intern(&p, "new one"), n1);
	assert_int_equal(p.map.n, 0); /* still scanning */
	for (int i = 0; i < 300; i++) {
		char name[32];
		snprintf(name, sizeof(name), "name%d", i);
		assert_ptr_equal(intern(&p, name), many[i]);
	}
	assert_int_equal(p.unindexed, 0); /* the index is back, with every string */
	assert_int_equal(p.map.n, 304);
	assert_ptr_equal(intern(&p, "new one"), n1);
	assert_ptr_equal(intern_n(&p, "alphabet", 5), a);
	strpool_free(&p);

	/* a facts string table: stored unique, unindexed, found by intern */
	struct strpool q = {0};
	const char *u1 = strpool_add_unique(&q, "one", 3), *u2 = strpool_add_unique(&q, "two", 3);
	assert_int_equal(q.map.n, 0);
	assert_ptr_equal(intern(&q, "two"), u2);
	assert_ptr_equal(intern(&q, "one"), u1);
	strpool_free(&q);
	/* on an indexed pool it interns */
	struct strpool r = {0};
	const char *x = intern(&r, "x");
	assert_ptr_equal(strpool_add_unique(&r, "x", 1), x);
	assert_int_equal(r.map.n, 1);
	strpool_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_util__path_normalize), cmocka_unit_test(test_util__path_relative),
		cmocka_unit_test(test_util__path_is_below),  cmocka_unit_test(test_util__path_parts),
		cmocka_unit_test(test_util__path_absolute),  cmocka_unit_test(test_util__shell_split),
		cmocka_unit_test(test_util__strings),        cmocka_unit_test(test_util__strbuf_and_map),
		cmocka_unit_test(test_util__read_file),      cmocka_unit_test(test_util__capture_command),
		cmocka_unit_test(test_util__run_process),    cmocka_unit_test(test_util__prescan),
		cmocka_unit_test(test_util__line_index),     cmocka_unit_test(test_util__c_scan),
		cmocka_unit_test(test_util__put_visible),    cmocka_unit_test(test_util__arena),
		cmocka_unit_test(test_util__strpool_seal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
