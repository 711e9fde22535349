/* Output buffers made under rb_protect (so that a failed allocation does not
 * skip the gem's cleanup): rb_protect returns what its function returns, so a
 * buffer that function makes with rb_str_new is the caller's own, not a string
 * other code can reach. A function that hands back its argument is the
 * caller's string again (the trap). */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct fill_job {
	char *dst;
	size_t n;
};

static void *fill_nogvl(void *p)
{
	struct fill_job *j = p;
	memset(j->dst, 'x', j->n);
	return NULL;
}

static VALUE make_buffer(VALUE length)
{
	return rb_str_new(NULL, NUM2LONG(length));
}

static VALUE same_string(VALUE str)
{
	return str;
}

VALUE fill_fresh(VALUE self, VALUE length)
{
	int state = 0;
	VALUE out = rb_protect(make_buffer, length, &state);
	if (state)
		rb_jump_tag(state);
	struct fill_job j = {RSTRING_PTR(out), (size_t)RSTRING_LEN(out)};
	rb_thread_call_without_gvl(fill_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	return out;
}

VALUE fill_given(VALUE self, VALUE str)
{
	int state = 0;
	VALUE out = rb_protect(same_string, str, &state);
	if (state)
		rb_jump_tag(state);
	struct fill_job j = {RSTRING_PTR(out), (size_t)RSTRING_LEN(out)}; /* expect: unfrozen-input */
	rb_thread_call_without_gvl(fill_nogvl, &j, NULL, NULL);
	RB_GC_GUARD(out);
	return self;
}
