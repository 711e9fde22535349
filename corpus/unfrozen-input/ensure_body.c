/* The release sits in the body of rb_ensure, which gets the data struct as
 * its VALUE argument: the struct is followed into the function that fills
 * it and calls rb_ensure (zlib's zstream_run shape). */
#include <ruby.h>
#include <ruby/thread.h>

struct run_args {
	const char *p;
	long n;
	long out;
};

static void *run_nogvl(void *x)
{
	struct run_args *a = x;
	for (long i = 0; i < a->n; i++)
		a->out += a->p[i];
	return NULL;
}

static VALUE run_body(VALUE v)
{
	struct run_args *a = (struct run_args *)v;
	rb_thread_call_without_gvl(run_nogvl, a, NULL, NULL);
	return Qnil;
}

static VALUE run_body_frozen(VALUE v)
{
	struct run_args *a = (struct run_args *)v;
	rb_thread_call_without_gvl(run_nogvl, a, NULL, NULL); /* expect: offload-candidate */
	return Qnil;
}

static VALUE run_done(VALUE v)
{
	(void)v;
	return Qnil;
}

static VALUE run_arg(VALUE self, VALUE str)
{
	struct run_args a;
	(void)self;
	a.p = RSTRING_PTR(str); /* expect: unfrozen-input */
	a.n = RSTRING_LEN(str);
	a.out = 0;
	rb_ensure(run_body, (VALUE)&a, run_done, (VALUE)&a);
	RB_GC_GUARD(str);
	return LONG2NUM(a.out);
}

static VALUE run_frozen(VALUE self, VALUE str)
{
	struct run_args a;
	VALUE s = rb_str_new_frozen(str);
	(void)self;
	a.p = RSTRING_PTR(s);
	a.n = RSTRING_LEN(s);
	a.out = 0;
	rb_ensure(run_body_frozen, (VALUE)&a, run_done, (VALUE)&a);
	RB_GC_GUARD(s);
	return LONG2NUM(a.out);
}

void Init_ensure_body(void)
{
	rb_define_method(rb_cObject, "run_arg", run_arg, 1);
	rb_define_method(rb_cObject, "run_frozen", run_frozen, 1);
}
