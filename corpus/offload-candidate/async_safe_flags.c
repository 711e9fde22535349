/* An rb_nogvl call that already passes RB_NOGVL_UBF_ASYNC_SAFE, with a UBF
 * that only sets a flag the loop polls: a candidate, and the patch keeps the
 * existing flag. */
#include <ruby.h>
#include <ruby/thread.h>

struct sum_args {
	const double *v;
	long n;
	double total;
	volatile int stop;
};

static void stop_sum(void *p)
{
	struct sum_args *a = p;
	a->stop = 1;
}

static void *sum_nogvl(void *p)
{
	struct sum_args *a = p;
	for (long i = 0; i < a->n && !a->stop; i++)
		a->total += a->v[i];
	return NULL;
}

VALUE sum_floats(VALUE self, VALUE ary)
{
	long n = RARRAY_LEN(ary);
	VALUE tmp;
	double *v = ALLOCV_N(double, tmp, n); /* a copy the call owns */
	for (long i = 0; i < n; i++)
		v[i] = NUM2DBL(RARRAY_AREF(ary, i));
	struct sum_args a = {v, n, 0.0, 0};
	rb_nogvl(sum_nogvl, &a, stop_sum, &a, RB_NOGVL_UBF_ASYNC_SAFE); /* expect: offload-candidate */
	ALLOCV_END(tmp);
	return DBL2NUM(a.total);
}
