#include <ruby.h>
#include <ruby/thread.h>

void *ext_helper(void *p)
{
	rb_gc(); /* fine: only ever called with the GVL */
	return p;
}

void *ext_work(void *p)
{
	long *n = p;
	if (*n < 0)
		rb_raise(rb_eArgError, "negative"); /* expect: ruby-api-without-gvl */
	return NULL;
}

VALUE ext_release(VALUE self, VALUE v)
{
	long n = NUM2LONG(v);
	rb_thread_call_without_gvl(ext_work, &n, RUBY_UBF_IO, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'ext_work' */
	return LONG2NUM(n);
}
