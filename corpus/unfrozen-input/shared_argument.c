/* A method argument's buffer handed to a no-GVL callback: another thread (or
 * another fiber, when the call is offloaded) can change or free the string
 * while the callback reads it. Each function keeps the VALUE alive, so only
 * unfrozen-input fires. */
#include <ruby.h>
#include <ruby/thread.h>

struct scan_args {
	const char *ptr;
	long len;
	long count;
};

static void *count_nogvl(void *p)
{
	struct scan_args *a = p;
	long n = 0;
	for (long i = 0; i < a->len; i++)
		n += a->ptr[i] == '\n';
	a->count = n;
	return NULL;
}

/* The plain case: RSTRING_PTR of the argument stored in the data struct. */
static VALUE count_lines(VALUE self, VALUE str)
{
	struct scan_args a;
	a.ptr = RSTRING_PTR(str); /* expect: unfrozen-input */ /* expect-msg: rb_str_new_frozen */
	a.len = RSTRING_LEN(str);
	a.count = 0;
	rb_thread_call_without_gvl(count_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(str);
	return LONG2NUM(a.count);
}

/* StringValuePtr, through a local pointer and pointer arithmetic. */
static VALUE count_tail(VALUE self, VALUE str, VALUE off)
{
	struct scan_args a = {0};
	long o = NUM2LONG(off);
	const char *p = StringValuePtr(str); /* expect: unfrozen-input */ /* expect-msg: copy the bytes into memory you own */
	a.ptr = p + o;
	a.len = RSTRING_LEN(str) - o;
	rb_nogvl(count_nogvl, &a, NULL, NULL, 0);
	return rb_ary_new_from_args(2, str, LONG2NUM(a.count));
}

/* StringValueCStr in a designated initialiser. */
static VALUE count_cstr(VALUE self, VALUE str)
{
	struct scan_args a = {
		.ptr = StringValueCStr(str), /* expect: unfrozen-input */
		.len = 0,
	};
	a.len = RSTRING_LEN(str);
	rb_thread_call_without_gvl(count_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(str);
	return LONG2NUM(a.count);
}

/* RSTRING_GETMEM fills a pointer and a length. */
static VALUE count_getmem(VALUE self, VALUE str)
{
	struct scan_args a;
	char *ptr;
	long len;
	RSTRING_GETMEM(str, ptr, len); /* expect: unfrozen-input */
	a.ptr = ptr;
	a.len = len;
	a.count = 0;
	rb_thread_call_without_gvl(count_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(str);
	return LONG2NUM(a.count);
}

/* A string taken from a Ruby call: someone else holds it too. */
static VALUE count_ivar(VALUE self)
{
	struct scan_args a = {0};
	VALUE buf = rb_ivar_get(self, rb_intern("@buf"));
	a.ptr = RSTRING_PTR(buf); /* expect: unfrozen-input */ /* expect-msg: 'buf' comes from 'rb_ivar_get' */
	a.len = RSTRING_LEN(buf);
	rb_thread_call_without_gvl(count_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(buf);
	return LONG2NUM(a.count);
}

/* The pointer itself is the callback's data. */
long lib_checksum(const char *p);

static void *first_byte_nogvl(void *p)
{
	return (void *)lib_checksum(p);
}

static VALUE first_byte(VALUE self, VALUE str)
{
	void *r = rb_thread_call_without_gvl(first_byte_nogvl, (void *)RSTRING_PTR(str), NULL, NULL); /* expect: unfrozen-input */
	RB_GC_GUARD(str);
	return LONG2NUM((long)r);
}

/* Two release calls with the same data: the pointer is reported once. */
static VALUE count_twice(VALUE self, VALUE str)
{
	struct scan_args a = {0};
	a.ptr = RSTRING_PTR(str); /* expect: unfrozen-input */
	a.len = RSTRING_LEN(str);
	rb_thread_call_without_gvl(count_nogvl, &a, NULL, NULL);
	rb_nogvl(count_nogvl, &a, NULL, NULL, 0);
	RB_GC_GUARD(str);
	return LONG2NUM(a.count);
}

void Init_shared_argument(void)
{
	VALUE c = rb_define_class("Scan", rb_cObject);
	rb_define_method(c, "count_lines", count_lines, 1);
	rb_define_method(c, "count_tail", count_tail, 2);
	rb_define_method(c, "count_cstr", count_cstr, 1);
	rb_define_method(c, "count_getmem", count_getmem, 1);
	rb_define_method(c, "count_ivar", count_ivar, 0);
	rb_define_method(c, "first_byte", first_byte, 1);
	rb_define_method(c, "count_twice", count_twice, 1);
}
