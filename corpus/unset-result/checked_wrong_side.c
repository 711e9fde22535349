/* A check of the callback's return value only helps on the side where it says
 * the callback ran. The sysvmq shape (PR #3): the callback always returns
 * NULL, so `== NULL` tells nothing, and the result field is read in the same
 * condition, unset when an interrupt made ..._gvl2 skip the callback. */
#include <ruby.h>
#include <ruby/thread.h>
#include <errno.h>

struct mq_args {
	int id;
	long size;
	long retval;
};

long lib_receive(int id, long size);

static void *receive_nogvl(void *p)
{
	struct mq_args *a = p;
	a->retval = lib_receive(a->id, a->size);
	return NULL;
}

static VALUE mq_receive(VALUE self, VALUE id)
{
	struct mq_args a;
	a.id = NUM2INT(id);
	a.size = 8192;
	while (rb_thread_call_without_gvl2(receive_nogvl, &a, NULL, NULL) == NULL && a.retval < 0) { /* expect: unset-result */ /* expect-msg: 'a.retval' */
		if (errno == EINTR) {
			rb_thread_check_ints();
			continue;
		}
		rb_sys_fail("receive");
	}
	return LONG2NUM(a.size);
}

/* The then-branch of `== NULL` is where the callback did not run. */
struct work_args {
	long in;
	long out;
};

long compute(long in);

static void *work_nogvl(void *p)
{
	struct work_args *a = p;
	a->out = compute(a->in);
	return a;
}

static VALUE work_null_branch(VALUE self, VALUE n)
{
	struct work_args a;
	a.in = NUM2LONG(n);
	if (rb_thread_call_without_gvl2(work_nogvl, &a, NULL, NULL) == NULL)
		rb_warn("interrupted after %ld", a.out); /* expect: unset-result */
	return Qnil;
}

/* Returning on the "ran" side leaves the "did not run" side after the if. */
static VALUE work_ran_returns(VALUE self, VALUE n)
{
	struct work_args a;
	void *r;
	a.in = NUM2LONG(n);
	r = rb_thread_call_without_gvl2(work_nogvl, &a, NULL, NULL);
	if (r)
		return LONG2NUM(a.out);
	return LONG2NUM(-a.out); /* expect: unset-result */
}

/* Trap: the else-branch of `== NULL` is where it ran. */
static VALUE work_else_ran(VALUE self, VALUE n)
{
	struct work_args a;
	a.in = NUM2LONG(n);
	if (rb_thread_call_without_gvl2(work_nogvl, &a, NULL, NULL) == NULL)
		return Qnil;
	else
		return LONG2NUM(a.out);
}

void Init_checked_wrong_side(void)
{
	VALUE c = rb_define_class("MQ", rb_cObject);
	rb_define_method(c, "receive", mq_receive, 1);
	rb_define_method(c, "null_branch", work_null_branch, 1);
	rb_define_method(c, "ran_returns", work_ran_returns, 1);
	rb_define_method(c, "else_ran", work_else_ran, 1);
}
