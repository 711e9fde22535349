/* rb_str_dup and rb_ary_dup copies are ordinary, unfrozen objects: code walking
 * ObjectSpace (or a C extension holding the copy) can still modify them while
 * the callback runs. A frozen copy is what makes the buffer immutable. */
#include <ruby.h>
#include <ruby/thread.h>

struct sum_args {
	const unsigned char *ptr;
	long len;
	const VALUE *elts;
	long n;
	unsigned long sum;
};

static void *sum_nogvl(void *p)
{
	struct sum_args *a = p;
	unsigned long s = 0;
	for (long i = 0; i < a->len; i++)
		s += a->ptr[i];
	for (long i = 0; i < a->n; i++)
		s += (unsigned long)a->elts[i];
	a->sum = s;
	return NULL;
}

static VALUE sum_dup(VALUE self, VALUE str)
{
	struct sum_args a = {0};
	VALUE copy = rb_str_dup(str);
	a.ptr = (const unsigned char *)RSTRING_PTR(copy); /* expect: unfrozen-input */ /* expect-msg: ObjectSpace */
	a.len = RSTRING_LEN(copy);
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(copy);
	return ULONG2NUM(a.sum);
}

/* Reassigning the argument to its dup is the same thing. */
static VALUE sum_dup_param(VALUE self, VALUE str)
{
	struct sum_args a = {0};
	str = rb_str_dup(str);
	a.ptr = (const unsigned char *)RSTRING_PTR(str); /* expect: unfrozen-input */ /* expect-msg: rb_str_new_frozen */
	a.len = RSTRING_LEN(str);
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(str);
	return ULONG2NUM(a.sum);
}

/* An array's element buffer: the argument itself, then a dup. */
static VALUE sum_ary(VALUE self, VALUE ary)
{
	struct sum_args a = {0};
	a.elts = RARRAY_CONST_PTR(ary); /* expect: unfrozen-input */ /* expect-msg: array */
	a.n = RARRAY_LEN(ary);
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(ary);
	return ULONG2NUM(a.sum);
}

static VALUE sum_ary_dup(VALUE self, VALUE ary)
{
	struct sum_args a = {0};
	VALUE copy = rb_ary_dup(ary);
	a.elts = RARRAY_CONST_PTR(copy); /* expect: unfrozen-input */ /* expect-msg: rb_ary_dup */
	a.n = RARRAY_LEN(copy);
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(copy);
	return ULONG2NUM(a.sum);
}

void Init_dup_not_enough(void)
{
	VALUE c = rb_define_class("Sum", rb_cObject);
	rb_define_method(c, "dup", sum_dup, 1);
	rb_define_method(c, "dup_param", sum_dup_param, 1);
	rb_define_method(c, "ary", sum_ary, 1);
	rb_define_method(c, "ary_dup", sum_ary_dup, 1);
}
