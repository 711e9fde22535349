/* Built everywhere: the flag needs a guard here. */
#include <ruby.h>
#include <ruby/thread.h>

struct fill_args {
	char *buf;
	long n;
};

static void *fill_nogvl(void *p)
{
	struct fill_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->buf[i] = (char)i;
	return NULL;
}

void base_fill(char *buf, long n)
{
	struct fill_args a = {buf, n};
	rb_nogvl(fill_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-flag-unguarded */
}
