/* nogvl-lint-test: --enable debug-offload-verdict */
/* A variadic release wrapper that hands the callback its own va_list (the
 * callback takes its arguments with va_arg): the data is the variadic
 * arguments of each call of the wrapper, followed in the caller. A pointer
 * into a method argument is unfrozen there; a frozen copy kept alive is not.
 * Before, nothing was followed and the first call was offered as a candidate. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdarg.h>
#include <string.h>

static void *call_nogvl(void *(*func)(va_list *), ...)
{
	va_list va;
	va_start(va, func);
	void *p = rb_thread_call_without_gvl((void *(*)(void *))func, &va, NULL, NULL);
	va_end(va);
	return p;
}

static void *count_nogvl(va_list *vp)
{
	const char *src = va_arg(*vp, const char *);
	long n = va_arg(*vp, long);
	long c = 0;
	for (long i = 0; i < n; i++)
		c += src[i] == 'a';
	return (void *)c;
}

/* the trap: a pointer into the argument itself */
static VALUE count_a(VALUE self, VALUE str)
{
	(void)self;
	Check_Type(str, T_STRING);
	return LONG2NUM((long)call_nogvl(count_nogvl, RSTRING_PTR(str), RSTRING_LEN(str))); /* expect: unfrozen-input, debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'str' */
}

/* a frozen copy, kept alive after the call */
static VALUE count_a_copy(VALUE self, VALUE str)
{
	(void)self;
	Check_Type(str, T_STRING);
	VALUE copy = rb_str_new_frozen(str);
	long c = (long)call_nogvl(count_nogvl, RSTRING_PTR(copy), RSTRING_LEN(copy)); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	RB_GC_GUARD(copy);
	return LONG2NUM(c);
}

void Init_va_list_wrapper(void)
{
	rb_define_method(rb_cObject, "count_a", count_a, 1);
	rb_define_method(rb_cObject, "count_a_copy", count_a_copy, 1);
}
