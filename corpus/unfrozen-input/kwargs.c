/* Values rb_get_kwargs fills are method arguments, like rb_scan_args
 * outputs: a pointer into one handed to the callback is unfrozen input. */
#include <ruby.h>
#include <ruby/thread.h>

struct sum_args {
	const char *p;
	long n;
	long out;
};

static void *sum_nogvl(void *x)
{
	struct sum_args *a = x;
	for (long i = 0; i < a->n; i++)
		a->out += a->p[i];
	return NULL;
}

static VALUE sum_kw(int argc, VALUE *argv, VALUE self)
{
	VALUE opts, kw[1];
	ID ids[1];
	(void)self;
	rb_scan_args(argc, argv, ":", &opts);
	ids[0] = rb_intern("data");
	rb_get_kwargs(opts, ids, 1, 0, kw);
	struct sum_args a = {RSTRING_PTR(kw[0]), RSTRING_LEN(kw[0]), 0}; /* expect: unfrozen-input */
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(kw[0]);
	return LONG2NUM(a.out);
}

static VALUE sum_kw_frozen(int argc, VALUE *argv, VALUE self)
{
	VALUE opts, kw[1];
	ID ids[1];
	(void)self;
	rb_scan_args(argc, argv, ":", &opts);
	ids[0] = rb_intern("data");
	rb_get_kwargs(opts, ids, 1, 0, kw);
	VALUE s = rb_str_new_frozen(kw[0]);
	struct sum_args a = {RSTRING_PTR(s), RSTRING_LEN(s), 0};
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL); /* expect: offload-candidate */
	RB_GC_GUARD(s);
	return LONG2NUM(a.out);
}

void Init_kwargs(void)
{
	rb_define_method(rb_cObject, "sum_kw", sum_kw, -1);
	rb_define_method(rb_cObject, "sum_kw_frozen", sum_kw_frozen, -1);
}
