/* built under have_header("pthread.h") only, which
 * says nothing of the Ruby version:
 * RB_NOGVL_OFFLOAD_SAFE still needs a guard. */
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

long pthread_sum(const long *v, long n)
{
	struct sum_args a = {v, n, 0};
	rb_nogvl(sum_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-flag-unguarded */
	return a.total;
}
