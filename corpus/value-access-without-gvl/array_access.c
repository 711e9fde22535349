/* Reading a Ruby array without the GVL: RARRAY_AREF, RARRAY_PTR and
 * RARRAY_LEN read the object's header, which another thread can change
 * (a push reallocates the buffer; an embedded array moves with compaction).
 * Take the pointer and length before releasing the GVL. */
#include <ruby.h>
#include <ruby/thread.h>

struct sum_args {
	VALUE ary;
	const VALUE *elems;
	long len;
	long sum;
};

static void *sum_nogvl(void *p)
{
	struct sum_args *a = p;
	VALUE first = RARRAY_AREF(a->ary, 0); /* expect: value-access-without-gvl */ /* expect-msg: 'RARRAY_AREF' */
	const VALUE *all = RARRAY_PTR(a->ary); /* expect: value-access-without-gvl */ /* expect-msg: 'RARRAY_PTR' */
	long n = RARRAY_LEN(a->ary); /* expect: value-access-without-gvl */ /* expect-msg: 'RARRAY_LEN' */
	a->sum = (long)first + (long)all[0] + n;
	return NULL;
}

/* the fixed shape: pointer and length taken with the GVL, only plain C
 * memory read in the callback */
static void *sum_fixed_nogvl(void *p)
{
	struct sum_args *a = p;
	long s = 0;
	for (long i = 0; i < a->len; i++)
		s += (long)a->elems[i];
	a->sum = s;
	return NULL;
}

static VALUE ary_sum(VALUE self, VALUE ary)
{
	struct sum_args a = {ary, NULL, 0, 0};
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(ary);
	return LONG2NUM(a.sum);
}

static VALUE ary_sum_fixed(VALUE self, VALUE ary)
{
	VALUE frozen = rb_obj_freeze(rb_ary_dup(ary));
	struct sum_args a = {frozen, RARRAY_CONST_PTR(frozen), RARRAY_LEN(frozen), 0};
	rb_thread_call_without_gvl(sum_fixed_nogvl, &a, NULL, NULL); /* expect: offload-candidate */
	RB_GC_GUARD(frozen);
	return LONG2NUM(a.sum);
}

void Init_array_access(void)
{
	VALUE c = rb_define_class("Summer", rb_cObject);
	rb_define_method(c, "sum", ary_sum, 1);
	rb_define_method(c, "sum_fixed", ary_sum_fixed, 1);
}
