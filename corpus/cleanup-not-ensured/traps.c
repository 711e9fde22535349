/* Traps: cleanup that an exception from the call cannot skip, or calls that
 * cannot raise after the callback. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

struct squeeze_args {
	char *in;
	long len;
	char *out;
	long outlen;
};

long squeeze(const char *in, long len, char *out, long outlen);

static void *squeeze_nogvl(void *p)
{
	struct squeeze_args *a = p;
	a->outlen = squeeze(a->in, a->len, a->out, a->len);
	return a;
}

/* ..._gvl2 and RB_NOGVL_INTR_FAIL return instead of raising (design.md). */
static VALUE squeeze_gvl2(VALUE self, VALUE str)
{
	struct squeeze_args a = {0};
	VALUE res;
	a.len = RSTRING_LEN(str);
	a.in = malloc(a.len);
	memcpy(a.in, RSTRING_PTR(str), a.len);
	a.out = malloc(a.len);
	rb_thread_call_without_gvl2(squeeze_nogvl, &a, NULL, NULL);
	res = rb_str_new(a.out, a.outlen);
	free(a.in);
	free(a.out);
	return res;
}

static VALUE squeeze_intr_fail(VALUE self, VALUE str)
{
	struct squeeze_args a = {0};
	VALUE res;
	a.len = RSTRING_LEN(str);
	a.in = xmalloc(a.len);
	memcpy(a.in, RSTRING_PTR(str), a.len);
	a.out = xmalloc(a.len);
	rb_nogvl(squeeze_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL);
	res = rb_str_new(a.out, a.outlen);
	xfree(a.in);
	xfree(a.out);
	return res;
}

/* ALLOCV_END: the buffer's holder object is collected if the call raises. */
static VALUE squeeze_allocv(VALUE self, VALUE str)
{
	struct squeeze_args a = {0};
	VALUE in_tmp, out_tmp, res;
	a.len = RSTRING_LEN(str);
	a.in = ALLOCV(in_tmp, a.len);
	memcpy(a.in, RSTRING_PTR(str), a.len);
	a.out = ALLOCV(out_tmp, a.len);
	rb_thread_call_without_gvl(squeeze_nogvl, &a, NULL, NULL);
	res = rb_str_new(a.out, a.outlen);
	ALLOCV_END(in_tmp);
	ALLOCV_END(out_tmp);
	return res;
}

/* The zlib shape: the release call runs in rb_ensure's body, the cleanup in
 * its ensure function. */
static VALUE squeeze_body(VALUE arg)
{
	struct squeeze_args *a = (struct squeeze_args *)arg;
	rb_thread_call_without_gvl(squeeze_nogvl, a, NULL, NULL);
	return rb_str_new(a->out, a->outlen);
}

static VALUE squeeze_cleanup(VALUE arg)
{
	struct squeeze_args *a = (struct squeeze_args *)arg;
	free(a->in);
	free(a->out);
	return Qnil;
}

static VALUE squeeze_ensured(VALUE self, VALUE str)
{
	struct squeeze_args a = {0};
	a.len = RSTRING_LEN(str);
	a.in = malloc(a.len);
	memcpy(a.in, RSTRING_PTR(str), a.len);
	a.out = malloc(a.len);
	return rb_ensure(squeeze_body, (VALUE)&a, squeeze_cleanup, (VALUE)&a);
}

/* Memory allocated after the call is not at risk from it. */
static VALUE squeeze_after(VALUE self, VALUE str)
{
	struct squeeze_args a = {0};
	char in[64], out[64];
	char *tmp;
	long n = RSTRING_LEN(str) < 64 ? RSTRING_LEN(str) : 64;
	memcpy(in, RSTRING_PTR(str), n);
	a.in = in;
	a.len = n;
	a.out = out;
	rb_thread_call_without_gvl(squeeze_nogvl, &a, NULL, NULL);
	tmp = malloc(a.outlen + 1);
	memcpy(tmp, out, a.outlen);
	tmp[a.outlen] = 0;
	VALUE res = rb_str_new_cstr(tmp);
	free(tmp);
	return res;
}

void Init_traps(void)
{
	VALUE c = rb_define_class("Squeeze2", rb_cObject);
	rb_define_method(c, "gvl2", squeeze_gvl2, 1);
	rb_define_method(c, "intr_fail", squeeze_intr_fail, 1);
	rb_define_method(c, "allocv", squeeze_allocv, 1);
	rb_define_method(c, "ensured", squeeze_ensured, 1);
	rb_define_method(c, "after", squeeze_after, 1);
}
