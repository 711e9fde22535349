#include <ruby.h>
#include <ruby/thread.h>

void *ext_helper(void *p);

void *ext_work(void *p)
{
	return ext_helper(p); /* beta's helper, in this directory */
}

VALUE ext_release(VALUE self, VALUE v)
{
	long n = NUM2LONG(v);
	rb_thread_call_without_gvl(ext_work, &n, RUBY_UBF_IO, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'ext_work' */
	return LONG2NUM(n);
}
