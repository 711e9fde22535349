/* nogvl-lint-test: --enable debug-offload-verdict */
/* Every gate holds, but the buffer is freed after the call outside rb_ensure:
 * offloading adds a cancellation path that raises (the fiber scheduler raises
 * into the waiting fiber), so the suggestion waits until that is fixed. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

struct sum_args {
	unsigned char *buf;
	long n;
	long out;
};

static void *sum_nogvl(void *p)
{
	struct sum_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->out += a->buf[i];
	return NULL;
}

static VALUE sum_leaky(VALUE self, VALUE len)
{
	struct sum_args a;
	(void)self;
	a.n = NUM2LONG(len);
	a.out = 0;
	a.buf = calloc(1, (size_t)a.n + 1);
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: candidate (withheld: cleanup-not-ensured, the cleanup at line 32 runs outside rb_ensure) */
	free(a.buf); /* expect: cleanup-not-ensured */
	return LONG2NUM(a.out);
}

static VALUE sum_intr_fail(VALUE self, VALUE len)
{
	struct sum_args a;
	(void)self;
	a.n = NUM2LONG(len);
	a.out = 0;
	a.buf = calloc(1, (size_t)a.n + 1);
	/* RB_NOGVL_INTR_FAIL: no raise today, so no cleanup-not-ensured; with the
	 * offload flag it would raise: still withheld */
	rb_nogvl(sum_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: (withheld: cleanup-not-ensured, the cleanup at line 46 runs outside rb_ensure) */
	free(a.buf);
	return LONG2NUM(a.out);
}

void Init_withheld(void)
{
	rb_define_method(rb_cObject, "sum_leaky", sum_leaky, 1);
	rb_define_method(rb_cObject, "sum_intr_fail", sum_intr_fail, 1);
}
