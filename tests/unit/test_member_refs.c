/* model_member_refs over a model linked from a small file of our own: the
 * events that name a member or a global variable, including a call that is
 * handed the member or the global, by value or by address (`f(&g)`,
 * `f(&j->stop)`), and the assignments to either. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysed.h"

static const char source[] = "struct job { int stop; int n; };\n"
			     "int hits;\n"
			     "void use(int *p);\n"
			     "void take(int v);\n"
			     "void f(struct job *j)\n"
			     "{\n"
			     "\tuse(&hits);\n"
			     "\ttake(hits);\n"
			     "\tuse(&j->stop);\n"
			     "\ttake(j->stop);\n"
			     "\thits = j->n;\n"
			     "}\n";

static int setup(void **state)
{
	return th_analysed_setup(state, "members.c", source);
}

/* "callee@line" of each call event the index lists for key, and "=@line" of
 * each assignment, in order */
static char *indexed(const struct model *m, const char *key)
{
	struct strbuf sb = {0};
	size_t n = 0;
	const struct call_at *refs = model_member_refs(m, key, &n);
	for (size_t i = 0; i < n; i++) {
		const struct mfunc *mf = &m->fns.v[refs[i].fn];
		const struct event *e = &mf->f->events[refs[i].ev];
		if (e->kind == EV_CALL)
			sb_printf(&sb, "%s@%u ", e->u.call->name, e->loc.line);
		else if (e->kind == EV_ASSIGN)
			sb_printf(&sb, "=@%u ", e->loc.line);
	}
	return sb.buf ? sb_detach(&sb) : xstrdup("");
}

static void test_member_refs__call_arguments(void **state)
{
	const struct model *m = ((struct th_analysed *)*state)->r.model;
	const struct mfunc *f = th_fn_named(m, "f");
	const char *usr = NULL;
	for (uint32_t i = 0; i < f->f->nevents && !usr; i++) {
		const struct event *e = &f->f->events[i];
		const struct var *v = e->kind == EV_ACCESS ? mf_var(f, e->u.access->ref.var) : NULL;
		if (v && strcmp(v->name, "hits") == 0)
			usr = v->usr;
	}
	assert_non_null(usr);
	/* the global: handed by address and by value, assigned */
	char *g = indexed(m, usr);
	assert_string_equal(g, "use@7 take@8 =@11 ");
	free(g);
	/* the member: handed by address and by value */
	char *s = indexed(m, "stop");
	assert_string_equal(s, "use@9 take@10 ");
	free(s);
	/* the member read on the right of an assignment */
	char *r = indexed(m, "n");
	assert_string_equal(r, "=@11 ");
	free(r);
	size_t n = 7;
	assert_null(model_member_refs(m, "no_such_member", &n));
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_member_refs__call_arguments),
	};
	return cmocka_run_group_tests(tests, setup, th_analysed_teardown);
}
