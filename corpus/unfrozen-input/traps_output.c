/* Traps: output buffers the function created itself and has not shown to any
 * other code (design.md: owned memory), kept alive by a later real use. */
#include <ruby.h>
#include <ruby/thread.h>

struct fill_args {
	unsigned char *out;
	long len;
	long done;
};

void fill_random(unsigned char *out, long len);

static void *fill_nogvl(void *p)
{
	struct fill_args *a = p;
	fill_random(a->out, a->len);
	a->done = a->len;
	return NULL;
}

/* rb_str_new(NULL, n), written by the callback, returned after the call. */
static VALUE random_bytes(VALUE self, VALUE n)
{
	long len = NUM2LONG(n);
	VALUE out = rb_str_new(NULL, len);
	struct fill_args a = {(unsigned char *)RSTRING_PTR(out), len, 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL);
	return out;
}

/* rb_str_buf_new, length set after the call. */
static VALUE random_buf(VALUE self, VALUE n)
{
	long len = NUM2LONG(n);
	VALUE out = rb_str_buf_new(len);
	struct fill_args a;
	a.out = (unsigned char *)RSTRING_PTR(out);
	a.len = len;
	a.done = 0;
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL);
	rb_str_set_len(out, a.done);
	return out;
}

/* Encoding set on the fresh string before the call does not expose it. */
static VALUE random_utf8(VALUE self, VALUE n)
{
	long len = NUM2LONG(n);
	VALUE out = rb_usascii_str_new(NULL, len);
	struct fill_args a = {0};
	rb_enc_associate(out, rb_utf8_encoding());
	a.out = (unsigned char *)RSTRING_PTR(out);
	a.len = len;
	rb_nogvl(fill_nogvl, &a, NULL, NULL, 0);
	return out;
}

void Init_traps_output(void)
{
	VALUE c = rb_define_class("Rand", rb_cObject);
	rb_define_method(c, "bytes", random_bytes, 1);
	rb_define_method(c, "buf", random_buf, 1);
	rb_define_method(c, "utf8", random_utf8, 1);
}
