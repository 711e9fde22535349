/* A function run with rb_thread_call_with_gvl that returns a VALUE (often
 * rb_rescue2's result, returned as it is) is harmless when the caller drops
 * rb_thread_call_with_gvl's result: no VALUE leaves the GVL. It is the
 * caller that keeps or reads the result that must not get a VALUE. */
#include <ruby.h>
#include <ruby/thread.h>

struct hdr {
	VALUE func;
	long count;
};

static VALUE body(VALUE x)
{
	struct hdr *h = (struct hdr *)x;
	h->count = NUM2LONG(rb_funcall(h->func, rb_intern("size"), 0));
	return Qnil;
}

static VALUE rescue(VALUE x, VALUE err)
{
	(void)err;
	((struct hdr *)x)->count = -1;
	return Qnil;
}

/* returns rb_rescue2's VALUE as the void * result */
static void *protected_count(void *x)
{
	return (void *)rb_rescue2(body, (VALUE)x, rescue, (VALUE)x, rb_eException, (VALUE)0);
}

static void *count_nogvl(void *p)
{
	struct hdr *h = p;
	rb_thread_call_with_gvl(protected_count, h);       /* result dropped: fine */
	(void)rb_thread_call_with_gvl(protected_count, h); /* cast to void: fine */
	if (rb_thread_call_with_gvl(protected_count, h)) /* expect: with-gvl-escape */ /* expect-msg: returns a Ruby object */
		h->count++;
	return NULL;
}

VALUE header_count(VALUE self, VALUE func)
{
	struct hdr h = {func, 0};
	rb_thread_call_without_gvl(count_nogvl, &h, RUBY_UBF_IO, NULL); /* expect: small-work-nogvl */
	return LONG2NUM(h.count);
}
