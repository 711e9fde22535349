/* Traps: results initialised before the call, read only after checking that
 * the callback ran, or read after a call that always runs it. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct work_args {
	long in;
	long out;
	int done;
};

long compute(long in);

static void *work_nogvl(void *p)
{
	struct work_args *a = p;
	a->out = compute(a->in);
	a->done = 1;
	return a;
}

/* Plain rb_thread_call_without_gvl: the callback ran unless the call raised. */
static VALUE work_plain(VALUE self, VALUE n)
{
	struct work_args a;
	a.in = NUM2LONG(n);
	rb_thread_call_without_gvl(work_nogvl, &a, NULL, NULL);
	return LONG2NUM(a.out);
}

/* Initialised: `= {0}`, memset, or the field itself. */
static VALUE work_zeroed(VALUE self, VALUE n)
{
	struct work_args a = {0};
	a.in = NUM2LONG(n);
	rb_thread_call_without_gvl2(work_nogvl, &a, NULL, NULL);
	return LONG2NUM(a.out);
}

static VALUE work_memset(VALUE self, VALUE n)
{
	struct work_args a;
	memset(&a, 0, sizeof(a));
	a.in = NUM2LONG(n);
	rb_nogvl(work_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL);
	return LONG2NUM(a.out);
}

static VALUE work_field(VALUE self, VALUE n)
{
	struct work_args a;
	a.in = NUM2LONG(n);
	a.out = -1;
	rb_thread_call_without_gvl2(work_nogvl, &a, NULL, NULL);
	return LONG2NUM(a.out);
}

/* The return value checked first (design.md: fine on that path). */
static VALUE work_checked(VALUE self, VALUE n)
{
	struct work_args a;
	a.in = NUM2LONG(n);
	if (!rb_thread_call_without_gvl2(work_nogvl, &a, NULL, NULL))
		return Qnil;
	return LONG2NUM(a.out);
}

static VALUE work_checked_var(VALUE self, VALUE n)
{
	struct work_args a;
	void *r;
	a.in = NUM2LONG(n);
	r = rb_thread_call_without_gvl2(work_nogvl, &a, NULL, NULL);
	if (r)
		return LONG2NUM(a.out);
	return Qnil;
}

/* Retried until the callback ran. */
static VALUE work_retry(VALUE self, VALUE n)
{
	struct work_args a;
	a.in = NUM2LONG(n);
	while (rb_thread_call_without_gvl2(work_nogvl, &a, NULL, NULL) == NULL)
		rb_thread_check_ints();
	return LONG2NUM(a.out);
}

/* A flag initialised before the call and checked after it. */
static VALUE work_flag(VALUE self, VALUE n)
{
	struct work_args a;
	a.in = NUM2LONG(n);
	a.done = 0;
	rb_nogvl(work_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL);
	if (!a.done)
		return Qnil;
	return LONG2NUM(a.out);
}

void Init_traps(void)
{
	VALUE c = rb_define_class("Work", rb_cObject);
	rb_define_method(c, "plain", work_plain, 1);
	rb_define_method(c, "zeroed", work_zeroed, 1);
	rb_define_method(c, "memset", work_memset, 1);
	rb_define_method(c, "field", work_field, 1);
	rb_define_method(c, "checked", work_checked, 1);
	rb_define_method(c, "checked_var", work_checked_var, 1);
	rb_define_method(c, "retry", work_retry, 1);
	rb_define_method(c, "flag", work_flag, 1);
}
