/* extconf.rb builds this file only where
 * rb_fiber_scheduler_blocking_operation_extract exists (Ruby 4.0+), so
 * RB_NOGVL_OFFLOAD_SAFE (3.4+) is always defined here. */
#include <ruby.h>
#include <ruby/thread.h>

struct sum_args {
	const long *v;
	long n;
	long total;
};

static void *sum_nogvl(void *p)
{
	struct sum_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->total += a->v[i];
	return NULL;
}

long pool_sum(const long *v, long n)
{
	struct sum_args a = {v, n, 0};
	rb_nogvl(sum_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	return a.total;
}
