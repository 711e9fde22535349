/* A fresh output string stops being owned once other Ruby code has seen it:
 * here it is yielded to a block (which may keep it and change it from another
 * thread) before the GVL is released. */
#include <ruby.h>
#include <ruby/thread.h>

struct fill_args {
	unsigned char *out;
	long len;
};

void fill_random(unsigned char *out, long len);

static void *fill_nogvl(void *p)
{
	struct fill_args *a = p;
	fill_random(a->out, a->len);
	return NULL;
}

static VALUE random_yielded(VALUE self, VALUE n)
{
	long len = NUM2LONG(n);
	VALUE out = rb_str_new(NULL, len);
	struct fill_args a;
	rb_yield(out);
	a.out = (unsigned char *)RSTRING_PTR(out); /* expect: unfrozen-input */ /* expect-msg: passed to 'rb_yield' */
	a.len = len;
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL);
	return out;
}

/* Stored in an instance variable first: the same. */
static VALUE random_kept(VALUE self, VALUE n)
{
	long len = NUM2LONG(n);
	VALUE out = rb_str_new(NULL, len);
	struct fill_args a;
	rb_ivar_set(self, rb_intern("@last"), out);
	a.out = (unsigned char *)RSTRING_PTR(out); /* expect: unfrozen-input */ /* expect-msg: 'rb_ivar_set' */
	a.len = len;
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL);
	return out;
}

void Init_fresh_exposed(void)
{
	VALUE c = rb_define_class("Rand2", rb_cObject);
	rb_define_method(c, "yielded", random_yielded, 1);
	rb_define_method(c, "kept", random_kept, 1);
}
