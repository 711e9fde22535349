/* Ruby API reached without the GVL: direct, through helpers, raising,
 * may-raise conversions, recursion, and a callback defined after its use. */
#include <ruby.h>
#include <ruby/thread.h>

struct work {
	VALUE obj;
	VALUE list;
	long n;
	int depth;
};

static void *late_callback(void *p);

static long walk(struct work *w, int depth)
{
	if (depth <= 0)
		return 0;
	rb_ary_push(w->list, INT2FIX(depth)); /* expect: ruby-api-without-gvl */
	return 1 + walk(w, depth - 1);        /* recursion: reported once */
}

static void *direct_nogvl(void *p)
{
	struct work *w = p;
	w->n = walk(w, w->depth);
	if (w->n < 0)
		rb_raise(rb_eRuntimeError, "negative"); /* expect: ruby-api-without-gvl */ /* expect-msg: raises a Ruby exception */
	w->n += NUM2LONG(w->obj); /* expect: ruby-api-without-gvl */ /* expect-msg: 'NUM2LONG' may raise */
	rb_funcall(w->obj, rb_intern("call"), 0); /* expect: ruby-api-without-gvl */ /* expect-msg: 'rb_intern', 'rb_funcall' called without the GVL */
	return NULL;
}

VALUE run_direct(VALUE self, VALUE obj)
{
	struct work w = {obj, rb_ary_new(), 0, 3};
	rb_thread_call_without_gvl(direct_nogvl, &w, NULL, NULL);
	rb_thread_call_without_gvl(late_callback, &w, NULL, NULL);
	return w.list;
}

/* defined after its use above */
static void *late_callback(void *p)
{
	struct work *w = p;
	StringValue(w->obj); /* expect: ruby-api-without-gvl */ /* expect-msg: 'StringValue' may raise */
	return NULL;
}
