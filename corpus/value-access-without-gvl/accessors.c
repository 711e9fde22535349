/* Object internals read inside callbacks, and the right way to do it. */
#include <ruby.h>
#include <ruby/thread.h>

struct io_args {
	VALUE str;
	VALUE ary;
	VALUE obj;
	const char *ptr; /* taken before the release: fine */
	long len;
	long sum;
};

struct payload {
	long n;
};

static void *bad_nogvl(void *p)
{
	struct io_args *a = p;
	const char *s = RSTRING_PTR(a->str); /* expect: value-access-without-gvl */
	long n = RARRAY_LEN(a->ary); /* expect: value-access-without-gvl */
	struct payload *pl = DATA_PTR(a->obj); /* expect: value-access-without-gvl */
	VALUE k = RBASIC(a->obj)->klass; /* expect: value-access-without-gvl */
	a->sum = s[0] + n + pl->n + (long)(k != 0);
	if (FIXNUM_P(a->obj) || NIL_P(a->obj)) /* immediates only: fine */
		a->sum++;
	return NULL;
}

static void *good_nogvl(void *p)
{
	struct io_args *a = p;
	for (long i = 0; i < a->len; i++)
		a->sum += a->ptr[i];
	return NULL;
}

VALUE sum_bytes(VALUE self, VALUE str, VALUE ary, VALUE obj)
{
	struct io_args a = {str, ary, obj, NULL, 0, 0};
	VALUE frozen = rb_str_new_frozen(str);
	rb_thread_call_without_gvl(bad_nogvl, &a, NULL, NULL);
	a.ptr = RSTRING_PTR(frozen);
	a.len = RSTRING_LEN(frozen);
	rb_thread_call_without_gvl(good_nogvl, &a, NULL, NULL); /* expect: offload-candidate */
	RB_GC_GUARD(frozen);
	return LONG2NUM(a.sum);
}
