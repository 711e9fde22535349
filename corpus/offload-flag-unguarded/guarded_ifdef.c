/* Guarded uses stay silent: #ifdef around the use. */
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

long sum_offloaded(const long *v, long n)
{
	struct sum_args a = {v, n, 0};
#ifdef RB_NOGVL_OFFLOAD_SAFE
	rb_nogvl(sum_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
#else
	rb_nogvl(sum_nogvl, &a, NULL, NULL, 0);
#endif
	return a.total;
}
