/* nogvl-lint-test: --enable debug-release-site --disable small-work-nogvl,offload-candidate */
/* Release sites in functions nothing in the gem calls are marked unreachable
 * (-v, JSON "unreachable", not counted as sites to fix). Only a static
 * function with no reference anywhere qualifies: a method registered with
 * rb_define_method, a function handed to rb_ensure, one stored in a table, one
 * spelled in a branch not compiled here or in a macro body, and an exported
 * (non-static) function are all called. A static function called only from
 * unreachable code is unreachable too. */
#include <ruby.h>
#include <ruby/thread.h>

struct job {
	long n, out;
};

static void *work(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->out += i;
	return NULL;
}

/* nothing refers to it: the old entry point, left behind */
static VALUE old_sum(VALUE self)
{
	struct job j = {100, 0};
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: release site (unreachable: nothing in the gem calls the function): rb_thread_call_without_gvl */
	return LONG2NUM(j.out);
}

/* called only from another unreachable function */
static long dead_helper(long n)
{
	struct job j = {n, 0};
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: unreachable */
	return j.out;
}

static VALUE dead_caller(VALUE self)
{
	return LONG2NUM(dead_helper(10));
}

/* registered as a method */
static VALUE sum(VALUE self)
{
	struct job j = {100, 0};
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: release site: rb_thread_call_without_gvl, callback 'work' (direct) */
	return LONG2NUM(j.out);
}

/* a body handed to rb_ensure */
static VALUE sum_body(VALUE arg)
{
	struct job *j = (struct job *)arg;
	rb_thread_call_without_gvl(work, j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: release site: rb_thread_call_without_gvl, callback 'work' (direct) */
	return Qnil;
}

static VALUE sum_done(VALUE arg)
{
	(void)arg;
	return Qnil;
}

static VALUE sum_ensured(VALUE self)
{
	struct job j = {100, 0};
	rb_ensure(sum_body, (VALUE)&j, sum_done, Qnil);
	return LONG2NUM(j.out);
}

/* stored in a table */
static VALUE table_sum(VALUE self)
{
	struct job j = {100, 0};
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: release site: rb_thread_call_without_gvl, callback 'work' (direct) */
	return LONG2NUM(j.out);
}

static const struct {
	const char *name;
	VALUE (*fn)(VALUE);
} methods[] = {{"table_sum", table_sum}};

/* spelled only where this configuration does not compile it */
static VALUE legacy_sum(VALUE self)
{
	struct job j = {100, 0};
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: release site: rb_thread_call_without_gvl, callback 'work' (direct) */
	return LONG2NUM(j.out);
}

/* spelled only in a macro body */
static VALUE macro_sum(VALUE self)
{
	struct job j = {100, 0};
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: release site: rb_thread_call_without_gvl, callback 'work' (direct) */
	return LONG2NUM(j.out);
}
#define DEFINE_MACRO_SUM(c) rb_define_method((c), "macro_sum", macro_sum, 0)

/* exported: another file or the host may call it */
VALUE exported_sum(VALUE self)
{
	struct job j = {100, 0};
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: release site: rb_thread_call_without_gvl, callback 'work' (direct) */
	return LONG2NUM(j.out);
}

void Init_unreachable(void)
{
	VALUE c = rb_define_class("Summer", rb_cObject);
	rb_define_method(c, "sum", sum, 0);
	rb_define_method(c, "sum_ensured", sum_ensured, 0);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		rb_define_method(c, methods[i].name, methods[i].fn, 0);
#if defined(HAVE_SOMETHING_ANCIENT)
	rb_define_method(c, "legacy_sum", legacy_sum, 0);
#endif
}
