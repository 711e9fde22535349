/* nogvl-lint-test: --enable debug-offload-verdict */
/* Trampolines: a generic callback that calls `t->func(t->arg)` from its data
 * struct is analysed as each function the gem stores in that field. Every
 * function stored in `struct pure_call` is pure, so its release is a
 * candidate; `struct any_call` also carries a function that raises, so every
 * release through it is unsafe. The trap: a trampoline whose function comes
 * from va_arg (a variadic wrapper) stores a value that names no function, so
 * the functions stored elsewhere are not the whole story: cannot verify,
 * naming the pointer. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdarg.h>

struct pure_call {
	void *(*func)(void *);
	void *arg;
};

static void *pure_run(void *p)
{
	struct pure_call *t = p;
	return t->func(t->arg);
}

static void *add_one(void *p)
{
	long *n = p;
	*n += 1;
	return NULL;
}

static void *double_it(void *p)
{
	long *n = p;
	*n *= 2;
	return NULL;
}

static VALUE pure_add(VALUE self)
{
	long n = 0;
	struct pure_call t = {add_one, &n};
	(void)self;
	rb_thread_call_without_gvl(pure_run, &t, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return LONG2NUM(n);
}

static VALUE pure_double(VALUE self)
{
	long n = 1;
	struct pure_call t;
	(void)self;
	t.func = double_it;
	t.arg = &n;
	rb_thread_call_without_gvl(pure_run, &t, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return LONG2NUM(n);
}

struct any_call {
	void *(*func)(void *);
	void *arg;
};

static void *any_run(void *p)
{
	struct any_call *t = p;
	return t->func(t->arg);
}

static void *fail_it(void *p)
{
	(void)p;
	rb_raise(rb_eArgError, "no"); /* expect: ruby-api-without-gvl */
	return NULL;
}

static VALUE any_add(VALUE self)
{
	long n = 0;
	struct any_call t = {add_one, &n};
	(void)self;
	rb_thread_call_without_gvl(any_run, &t, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; Ruby API fail: 'fail_it' calls Ruby API 'rb_raise' */
	return LONG2NUM(n);
}

static VALUE any_fail(VALUE self)
{
	long n = 0;
	struct any_call t = {fail_it, &n};
	(void)self;
	rb_thread_call_without_gvl(any_run, &t, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; Ruby API fail: 'fail_it' calls Ruby API 'rb_raise' */
	return LONG2NUM(n);
}

/* the trap: the function comes out of a va_list */
struct va_call {
	void *(*func)(void *);
	void *arg;
};

static void *va_run(void *p)
{
	struct va_call *t = p;
	return t->func(t->arg);
}

static void *call_va(int count, ...)
{
	struct va_call t = {add_one, NULL};
	va_list ap;
	va_start(ap, count);
	if (count > 0) {
		t.func = va_arg(ap, void *(*)(void *));
		t.arg = va_arg(ap, void *);
	}
	va_end(ap);
	return rb_thread_call_without_gvl(va_run, &t, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: opaque callees cannot verify: 'va_run' calls through a function pointer ('t->func') the engine cannot resolve [missing: t->func] */
}

static VALUE via_va(VALUE self)
{
	long n = 0;
	(void)self;
	call_va(1, double_it, &n);
	return LONG2NUM(n);
}

void Init_trampolines(void)
{
	rb_define_method(rb_cObject, "pure_add", pure_add, 0);
	rb_define_method(rb_cObject, "pure_double", pure_double, 0);
	rb_define_method(rb_cObject, "any_add", any_add, 0);
	rb_define_method(rb_cObject, "any_fail", any_fail, 0);
	rb_define_method(rb_cObject, "via_va", via_va, 0);
}
