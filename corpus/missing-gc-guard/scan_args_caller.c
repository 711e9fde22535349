/* Helpers that release the GVL over a string they are given, called by
 * methods that take their arguments with rb_scan_args. A positional argument
 * rb_scan_args hands out is an element of the method's argv, which the
 * method's frame holds for the whole call, as it holds a fixed-arity
 * method's arguments: no RB_GC_GUARD is needed for it (it is still the
 * caller's string, which other threads can modify). A value the method makes
 * itself, or one a conversion may put in the local, is held by nothing but
 * the C local. */
#include <ruby.h>
#include <ruby/thread.h>

struct tally {
	const char *p;
	long n;
	long sum;
};

static void *tally_nogvl(void *v)
{
	struct tally *t = v;
	for (long i = 0; i < t->n; i++)
		t->sum += (unsigned char)t->p[i];
	return NULL;
}

static long tally_arg(VALUE str)
{
	struct tally t = {RSTRING_PTR(str), RSTRING_LEN(str), 0}; /* expect: unfrozen-input */
	rb_thread_call_without_gvl(tally_nogvl, &t, NULL, NULL);
	return t.sum;
}

static long tally_made(VALUE str)
{
	struct tally t = {RSTRING_PTR(str), RSTRING_LEN(str), 0};
	rb_thread_call_without_gvl(tally_nogvl, &t, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: nothing keeps 'str' alive past this call */
	return t.sum;
}

static long tally_converted(VALUE str)
{
	struct tally t = {RSTRING_PTR(str), RSTRING_LEN(str), 0}; /* expect: unfrozen-input */
	rb_thread_call_without_gvl(tally_nogvl, &t, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: nothing keeps 'str' alive past this call */
	return t.sum;
}

/* positional arguments from rb_scan_args: held by argv */
static VALUE m_tally(int argc, VALUE *argv, VALUE self)
{
	VALUE src, extra;
	rb_scan_args(argc, argv, "11", &src, &extra);
	Check_Type(src, T_STRING);
	return LONG2NUM(tally_arg(src));
}

/* a string the method builds: only the C local holds it */
static VALUE m_tally_joined(int argc, VALUE *argv, VALUE self)
{
	VALUE rest;
	rb_scan_args(argc, argv, "*", &rest);
	VALUE joined = rb_obj_freeze(rb_ary_join(rest, Qnil));
	return LONG2NUM(tally_made(joined));
}

/* StringValue may replace the argument with #to_str's result */
static VALUE m_tally_any(int argc, VALUE *argv, VALUE self)
{
	VALUE src;
	rb_scan_args(argc, argv, "1", &src);
	StringValue(src);
	return LONG2NUM(tally_converted(src));
}

void Init_scan_args_caller(void)
{
	rb_define_method(rb_cObject, "tally", m_tally, -1);
	rb_define_method(rb_cObject, "tally_joined", m_tally_joined, -1);
	rb_define_method(rb_cObject, "tally_any", m_tally_any, -1);
}
