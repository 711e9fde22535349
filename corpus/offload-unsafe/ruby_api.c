/* A flagged callback that calls Ruby and re-acquires the GVL. */
#include <ruby.h>
#include <ruby/thread.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct conv {
	VALUE out;
	long n;
};

static void *notify(void *p)
{
	return p;
}

static void *convert_nogvl(void *p)
{
	struct conv *c = p;
	for (long i = 0; i < c->n; i++)
		c->n -= i;
	c->out = rb_ary_new(); /* expect: ruby-api-without-gvl */
	rb_thread_call_with_gvl(notify, c);
	return NULL;
}

VALUE convert(VALUE self)
{
	struct conv c = {Qnil, 100};
	rb_nogvl(convert_nogvl, &c, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe:error */ /* expect-msg: failed: Ruby API, rb_thread_call_with_gvl */
	return c.out;
}
