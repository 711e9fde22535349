/* One release call through a function-pointer parameter that may run either
 * of two stubs, each releasing the GVL: the missing guard is one finding at
 * that call (the other stub is a note), not one per stub. */
#include <ruby.h>
#include <ruby/thread.h>

struct scan_args {
	const char *buf;
	long n;
	long out;
};

static void *count_nogvl(void *p)
{
	struct scan_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->out += a->buf[i] == '\n';
	return NULL;
}

static void *sum_nogvl(void *p)
{
	struct scan_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->out += (unsigned char)a->buf[i];
	return NULL;
}

static long stub_count(const char *buf, long n)
{
	struct scan_args a = {buf, n, 0};
	rb_thread_call_without_gvl(count_nogvl, &a, NULL, NULL);
	return a.out;
}

static long stub_sum(const char *buf, long n)
{
	struct scan_args a = {buf, n, 0};
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL);
	return a.out;
}

static VALUE run_scan(VALUE str, long (*fn)(const char *, long))
{
	VALUE copy = rb_str_new_frozen(str);
	const char *p = RSTRING_PTR(copy);
	long r = fn(p, RSTRING_LEN(copy)); /* expect: missing-gc-guard */
	return LONG2NUM(r);
}

static VALUE m_count(VALUE self, VALUE str)
{
	(void)self;
	return run_scan(str, stub_count);
}

static VALUE m_sum(VALUE self, VALUE str)
{
	(void)self;
	return run_scan(str, stub_sum);
}

void Init_pointer_two_stubs(void)
{
	VALUE c = rb_define_class("PointerTwoStubs", rb_cObject);
	rb_define_method(c, "count", m_count, 1);
	rb_define_method(c, "sum", m_sum, 1);
}
