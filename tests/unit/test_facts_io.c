/* Unit tests for facts_io.c: a round trip, and malformed input rejected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "facts_io.h"

static struct tu_facts *sample(void)
{
	struct tu_facts *tu = xcalloc(1, sizeof(*tu));
	tu->path = intern(&tu->pool, "/src/x.c");
	tu->display = intern(&tu->pool, "x.c");
	tu->nerrors = 2;
	struct var v = {0};
	v.name = intern(&tu->pool, "buf");
	v.kind = VK_FILE_STATIC;
	v.fn = -1;
	v.param_index = -1;
	v.flags = VF_ARRAY;
	v.loc.file = tu->path;
	vec_push(&tu->vars, v);
	struct func f = {0};
	f.name = intern(&tu->pool, "cb");
	f.usr = intern(&tu->pool, "c:x.c@F@cb");
	f.loc.file = tu->path;
	f.nevents = 2;
	f.events = arena_alloc(&tu->arena, 2 * sizeof(struct event));
	f.events[0].kind = EV_ACCESS;
	f.events[0].region = -1; /* the sample has no regions */
	f.events[1].region = -1;
	f.events[0].loc.file = tu->path;
	f.events[0].loc.line = 7;
	f.events[0].u.access = arena_alloc(&tu->arena, sizeof(struct access));
	f.events[0].u.access->ref.var = 0;
	f.events[0].u.access->ref.path = intern(&tu->pool, "");
	f.events[0].u.access->mode = ACC_WRITE;
	f.events[1].kind = EV_CALL;
	f.events[1].u.call = arena_alloc(&tu->arena, sizeof(struct call));
	f.events[1].loc.file = tu->path;
	f.events[1].loc.line = 8;
	f.events[1].u.call->name = intern(&tu->pool, "memcpy");
	f.events[1].u.call->parent = -1;
	f.events[1].u.call->result.var = -1;
	f.events[1].u.call->callee.call = -1;
	f.events[1].u.call->callee.ref.var = -1;
	f.events[1].u.call->nargs = 1;
	f.events[1].u.call->args = arena_alloc(&tu->arena, sizeof(struct expr));
	f.events[1].u.call->args[0].kind = EX_INT;
	f.events[1].u.call->args[0].has_ival = 1;
	f.events[1].u.call->args[0].ival = -5;
	f.events[1].u.call->args[0].call = -1;
	f.events[1].u.call->args[0].ref.var = -1;
	vec_push(&tu->funcs, f);
	struct tu_file tf = {tu->path, 0xfedcba9876543210ULL, 1};
	vec_push(&tu->files, tf);
	return tu;
}

static void test_round_trip(void **state)
{
	(void)state;
	struct tu_facts *tu = sample();
	size_t len = 0;
	char *buf = facts_dump(tu, &len);
	assert_non_null(buf);
	char *err = NULL;
	struct tu_facts *back = facts_load(buf, len, &err);
	if (!back)
		fail_msg("%s", err);
	assert_null(err);
	assert_string_equal(back->path, "/src/x.c");
	assert_int_equal(back->nerrors, 2);
	assert_int_equal(back->funcs.n, 1);
	const struct func *f = &back->funcs.v[0];
	assert_int_equal(f->nevents, 2);
	assert_int_equal(f->events[0].u.access->mode, ACC_WRITE);
	assert_int_equal(f->events[0].u.access->ref.var, 0);
	assert_int_equal(f->events[1].u.call->args[0].ival, -5);
	assert_int_equal(f->events[1].u.call->callee.ref.var, -1);
	assert_int_equal(f->events[1].u.call->callee.call, -1);
	/* interned: the same path string is one pointer */
	assert_ptr_equal(f->loc.file, back->path);
	assert_ptr_equal(f->events[1].loc.file, back->path);
	assert_true(back->files.v[0].hash == 0xfedcba9876543210ULL);
	/* once read back, the form is stable: dump, load, dump gives the same text */
	size_t len2 = 0;
	char *buf2 = facts_dump(back, &len2);
	struct tu_facts *back2 = facts_load(buf2, len2, &err);
	assert_non_null(back2);
	char *buf3 = facts_dump(back2, NULL);
	assert_string_equal(buf2, buf3);
	tu_facts_free(back2);
	free(buf);
	free(buf2);
	free(buf3);
	tu_facts_free(back);
	tu_facts_free(tu);
}

static void expect_rejected(const char *json)
{
	char *err = NULL;
	struct tu_facts *tu = facts_load(json, strlen(json), &err);
	assert_null(tu);
	assert_non_null(err);
	free(err);
}

static void test_malformed(void **state)
{
	(void)state;
	expect_rejected("");
	expect_rejected("[]");
	expect_rejected("{\"format\": 999}");
	struct tu_facts *tu = sample();
	char *buf = facts_dump(tu, NULL);
	tu_facts_free(tu);
	/* every truncation of a valid document is rejected, never crashes */
	size_t n = strlen(buf);
	for (size_t cut = 0; cut < n; cut += 7) {
		char *t = xstrndup(buf, cut);
		expect_rejected(t);
		free(t);
	}
	/* a variable index beyond the table */
	char *p = strstr(buf, "\"vars\":[");
	assert_non_null(p);
	char *bad = xstrdup(buf);
	char *q = strstr(bad, "\"vars\":[");
	memcpy(q, "\"vars\":[", 8);
	/* drop the only variable: the access event's ref 0 is now out of range */
	char *end = strchr(q + 8, ']');
	end = strchr(end + 1, ']'); /* the var's nested loc array closes first */
	memmove(q + 8, end, strlen(end) + 1);
	expect_rejected(bad);
	free(bad);
	free(buf);
	/* a call's parent (or an expression's call) naming an event that is not
	 * a call: its payload would be read as one */
	tu = sample();
	tu->funcs.v[0].events[1].u.call->parent = 0;
	buf = facts_dump(tu, NULL);
	expect_rejected(buf);
	free(buf);
	tu->funcs.v[0].events[1].u.call->parent = -1;
	tu->funcs.v[0].events[1].u.call->args[0].call = 0;
	buf = facts_dump(tu, NULL);
	expect_rejected(buf);
	free(buf);
	tu->funcs.v[0].events[1].u.call->args[0].call = 1;
	buf = facts_dump(tu, NULL);
	char *err = NULL;
	struct tu_facts *ok = facts_load(buf, strlen(buf), &err);
	assert_non_null(ok);
	tu_facts_free(ok);
	free(buf);
	tu_facts_free(tu);
}

static void expect_bin_rejected(const char *buf, size_t len)
{
	char *err = NULL;
	struct tu_facts *tu = facts_load(buf, len, &err);
	assert_null(tu);
	assert_non_null(err);
	free(err);
}

/* The binary form carries everything the JSON form does: a TU packed, read
 * back and written as JSON gives the JSON of the original. */
static void test_binary_round_trip(void **state)
{
	(void)state;
	struct tu_facts *tu = sample();
	tu->parse_seconds = 0.125;
	size_t len = 0;
	char *bin = facts_pack(tu, &len);
	assert_non_null(bin);
	assert_memory_equal(bin, "NGVF", 4);
	char *err = NULL;
	struct tu_facts *back = facts_load(bin, len, &err);
	if (!back)
		fail_msg("%s", err);
	char *j1 = facts_dump(tu, NULL), *j2 = facts_dump(back, NULL);
	assert_string_equal(j1, j2);
	assert_int_equal(back->funcs.v[0].events[1].loc.line, 8);
	assert_true(back->parse_seconds == 0.125);
	assert_true(back->files.v[0].hash == 0xfedcba9876543210ULL);
	assert_int_equal(back->funcs.v[0].events[1].u.call->args[0].ival, -5);
	assert_ptr_equal(back->funcs.v[0].loc.file, back->path); /* interned */
	/* smaller than the JSON */
	assert_true(len < strlen(j1));
	free(j1);
	free(j2);
	tu_facts_free(back);
	/* every truncation, and every single-byte change to 0xff, is rejected or
	 * read into a consistent TU, never a crash (ASan watches the reads) */
	for (size_t cut = 0; cut < len; cut++)
		expect_bin_rejected(bin, cut);
	for (size_t i = 0; i < len; i++) {
		char *m = xmalloc(len);
		memcpy(m, bin, len);
		m[i] = (char)0xff;
		struct tu_facts *t = facts_load(m, len, &err);
		if (t)
			tu_facts_free(t);
		else
			free(err);
		free(m);
	}
	/* trailing bytes */
	char *longer = xmalloc(len + 1);
	memcpy(longer, bin, len);
	longer[len] = 0;
	expect_bin_rejected(longer, len + 1);
	free(longer);
	free(bin);
	/* the index checks of the JSON reader hold here too */
	tu->funcs.v[0].events[1].u.call->parent = 0; /* names an access event */
	bin = facts_pack(tu, &len);
	expect_bin_rejected(bin, len);
	free(bin);
	tu->funcs.v[0].events[1].u.call->parent = -1;
	tu->funcs.v[0].events[0].u.access->ref.var = 5; /* beyond the one variable */
	bin = facts_pack(tu, &len);
	expect_bin_rejected(bin, len);
	free(bin);
	tu->funcs.v[0].events[0].u.access->ref.var = 0;
	tu->funcs.v[0].events[0].region = 9; /* the sample has no regions */
	bin = facts_pack(tu, &len);
	expect_bin_rejected(bin, len);
	free(bin);
	tu_facts_free(tu);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_binary_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
