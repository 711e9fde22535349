/* The fiddle shape: method arguments taken as (argc, argv), converted one by
 * one through a helper into an array of C values whose address the callback
 * gets. A converted argument kept in an array stays alive; the strings are
 * still the caller's, which other threads can modify during the call. */
#include <ruby.h>
#include <ruby/thread.h>

typedef union {
	void *pointer;
	long l;
} generic;

struct call_args {
	void **values;
	int n;
};

void lib_call(void **values, int n);

static void *call_nogvl(void *p)
{
	struct call_args *a = p;
	lib_call(a->values, a->n);
	return NULL;
}

static void to_generic(int type, VALUE *src, generic *dst)
{
	if (type == 1)
		dst->pointer = rb_string_value_cstr(src); /* expect: unfrozen-input */ /* expect-msg: comes from 'argv', an argument of 'ffi_call_m' */
	else
		dst->l = NUM2LONG(*src);
}

static VALUE ffi_call_m(int argc, VALUE *argv, VALUE self)
{
	struct call_args args;
	generic g[4];
	void *values[5];
	VALUE converted = rb_ary_new();
	args.values = values;
	args.n = argc < 4 ? argc : 4;
	for (int i = 0; i < args.n; i++) {
		VALUE src = argv[i];
		if (NIL_P(src)) {
			src = INT2FIX(0);
		} else if (RB_TYPE_P(src, T_SYMBOL)) {
			src = rb_sym2str(src);
			rb_ary_push(converted, src);
		}
		to_generic(RB_TYPE_P(src, T_STRING), &src, &g[i]);
		values[i] = &g[i];
	}
	values[args.n] = NULL;
	rb_thread_call_without_gvl(call_nogvl, &args, NULL, NULL);
	RB_GC_GUARD(converted);
	return Qnil;
}

void Init_argv_values(void)
{
	VALUE c = rb_define_class("FFI", rb_cObject);
	rb_define_method(c, "call", ffi_call_m, -1);
}
