/* The walks of model_iter.c over a model linked from a small file of our
 * own: every call of the gem (call_walk, with and without pointer calls,
 * one function's), a function's callers (caller_walk) and the functions of a
 * release site (site_fns_walk). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysed.h"

static const char source[] = "static int leaf(int x) { return x + 1; }\n"
			     "static int mid(int x) { return leaf(x) + leaf(2); }\n"
			     "int abs(int);\n"
			     "int top(int (*fp)(int))\n"
			     "{\n"
			     "\tint a = mid(1);\n"
			     "\tint b = fp(3);\n"
			     "\treturn a + b + abs(a);\n"
			     "}\n";

static int setup(void **state)
{
	return th_analysed_setup(state, "iter.c", source);
}

/* "caller>callee ..." of a call walk */
static char *calls_of(const struct model *m, int32_t fn, unsigned flags)
{
	struct strbuf sb = {0};
	struct call_walk w;
	for (call_walk_init(&w, m, fn, flags); call_walk_next(&w);) {
		assert_ptr_equal(w.mf, &m->fns.v[w.fi]);
		assert_ptr_equal(w.e, &w.mf->f->events[w.ei]);
		if (!w.c) /* CALLS_AND_ASSIGNS: an assignment */
			sb_printf(&sb, "%s>=%s ", w.mf->f->name, w.e->kind == EV_ASSIGN ? "" : "?");
		else
			sb_printf(&sb, "%s>%s ", w.mf->f->name, w.c->indirect ? "*" : w.c->name);
	}
	return sb.buf ? sb_detach(&sb) : xstrdup("");
}

static void test_model_iter__calls(void **state)
{
	const struct model *m = ((struct th_analysed *)*state)->r.model;
	const struct mfunc *top = th_fn_named(m, "top"), *mid = th_fn_named(m, "mid");
	/* every call of the gem, in function id order */
	char *all = calls_of(m, -1, CALLS_ALL);
	char *want = top->id < mid->id ? xstrdup("top>mid top>* top>abs mid>leaf mid>leaf ")
				       : xstrdup("mid>leaf mid>leaf top>mid top>* top>abs ");
	assert_string_equal(all, want);
	free(all);
	free(want);
	char *one = calls_of(m, (int32_t)top->id, CALLS_DIRECT);
	assert_string_equal(one, "top>mid top>abs ");
	free(one);
	char *none = calls_of(m, (int32_t)th_fn_named(m, "leaf")->id, CALLS_ALL);
	assert_string_equal(none, "");
	free(none);
	/* with the assignments (a = mid(1), b = fp(3)) */
	char *assigns = calls_of(m, (int32_t)top->id, CALLS_AND_ASSIGNS | CALLS_DIRECT);
	assert_string_equal(assigns, "top>mid top>= top>= top>abs ");
	free(assigns);
}

static void test_model_iter__callers(void **state)
{
	const struct model *m = ((struct th_analysed *)*state)->r.model;
	const struct mfunc *leaf = th_fn_named(m, "leaf"), *mid = th_fn_named(m, "mid"), *top = th_fn_named(m, "top");
	struct caller_walk w;
	unsigned n = 0;
	for (caller_walk_init(&w, m, leaf); caller_walk_next(&w); n++) {
		assert_ptr_equal(w.caller, mid);
		assert_int_equal(w.edge->to, (int32_t)leaf->id);
		assert_non_null(w.c);
		assert_string_equal(w.c->name, "leaf");
	}
	assert_int_equal(n, 2);
	n = 0;
	for (caller_walk_init(&w, m, mid); caller_walk_next(&w); n++)
		assert_ptr_equal(w.caller, top);
	assert_int_equal(n, 1);
	caller_walk_init(&w, m, top);
	assert_false(caller_walk_next(&w));
}

static void test_model_iter__site_fns(void **state)
{
	const struct model *m = ((struct th_analysed *)*state)->r.model;
	const struct mfunc *leaf = th_fn_named(m, "leaf"), *mid = th_fn_named(m, "mid"), *top = th_fn_named(m, "top");
	/* a reach set of two functions and a site in a third */
	uint32_t fns[2] = {mid->id, leaf->id};
	struct reach_set rs = {0};
	rs.n = 2;
	rs.fns = fns;
	struct msite s = {0};
	s.data_fn = top->id;
	struct site_fns_walk w;
	const struct mfunc *seen[4] = {0};
	unsigned n = 0;
	for (site_fns_walk_init(&w, m, &rs, &s); site_fns_walk_next(&w) && n < 4;)
		seen[n++] = w.mf;
	assert_int_equal(n, 3);
	assert_ptr_equal(seen[0], mid);
	assert_ptr_equal(seen[1], leaf);
	assert_ptr_equal(seen[2], top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_iter__calls),
		cmocka_unit_test(test_model_iter__callers),
		cmocka_unit_test(test_model_iter__site_fns),
	};
	return cmocka_run_group_tests(tests, setup, th_analysed_teardown);
}
