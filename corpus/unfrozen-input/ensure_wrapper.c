/* nogvl-lint-test: --enable debug-offload-verdict */
/* A helper that releases the GVL inside an rb_ensure body is a release wrapper
 * like any other: run_released(fn, data) stores its parameters in a struct,
 * and the body calls rb_thread_call_without_gvl(r->fn, r->data, ...). Each
 * call of the helper is a site, judged on its own callback and data. The
 * trap: a helper that may also store a function of its own in the field is
 * not a plain wrapper; its body's release stays one site, whose data (r->fn,
 * r->data) is followed into the helper and up to its one caller, which hands
 * a frozen copy kept alive. */
#include <ruby.h>
#include <ruby/thread.h>

struct rel {
	void *(*fn)(void *);
	void *data;
	void *ret;
};

static VALUE rel_body(VALUE arg)
{
	struct rel *r = (struct rel *)arg;
	r->ret = rb_thread_call_without_gvl(r->fn, r->data, NULL, NULL);
	return Qnil;
}

static VALUE rel_done(VALUE arg)
{
	(void)arg;
	return Qnil;
}

static void *run_released(void *(*fn)(void *), void *data)
{
	struct rel r = {fn, data, NULL};
	rb_ensure(rel_body, (VALUE)&r, rel_done, (VALUE)&r);
	return r.ret;
}

static void *count_nogvl(void *p)
{
	const char *s = p;
	long c = 0;
	while (*s)
		c += *s++ == 'a';
	return (void *)c;
}

static void *raise_nogvl(void *p)
{
	(void)p;
	rb_raise(rb_eArgError, "x"); /* expect: ruby-api-without-gvl */
	return NULL;
}

static VALUE count_a(VALUE self, VALUE str)
{
	(void)self;
	Check_Type(str, T_STRING);
	return LONG2NUM((long)run_released(count_nogvl, RSTRING_PTR(str))); /* expect: unfrozen-input, debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'str' */
}

static VALUE count_copy(VALUE self, VALUE str)
{
	(void)self;
	VALUE copy = rb_str_new_frozen(str);
	long c = (long)run_released(count_nogvl, StringValueCStr(copy)); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	RB_GC_GUARD(copy);
	return LONG2NUM(c);
}

static VALUE fail(VALUE self)
{
	(void)self;
	run_released(raise_nogvl, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; Ruby API fail: 'raise_nogvl' calls Ruby API 'rb_raise' */
	return Qnil;
}

/* the trap */
struct rel2 {
	void *(*fn)(void *);
	void *data;
	void *ret;
};

static VALUE rel2_body(VALUE arg)
{
	struct rel2 *r = (struct rel2 *)arg;
	r->ret = rb_thread_call_without_gvl(r->fn, r->data, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return Qnil;
}

static void *run_or_count(void *(*fn)(void *), void *data, int count)
{
	struct rel2 r = {fn, data, NULL};
	if (count)
		r.fn = count_nogvl;
	rb_ensure(rel2_body, (VALUE)&r, rel_done, (VALUE)&r);
	return r.ret;
}

static VALUE count_b(VALUE self, VALUE str)
{
	(void)self;
	VALUE copy = rb_str_new_frozen(str);
	long c = (long)run_or_count(count_nogvl, StringValueCStr(copy), 1);
	RB_GC_GUARD(copy);
	return LONG2NUM(c);
}

void Init_ensure_wrapper(void)
{
	rb_define_method(rb_cObject, "count_a", count_a, 1);
	rb_define_method(rb_cObject, "count_copy", count_copy, 1);
	rb_define_method(rb_cObject, "fail", fail, 0);
	rb_define_method(rb_cObject, "count_b", count_b, 1);
}
