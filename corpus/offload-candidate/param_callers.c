/* nogvl-lint-test: --enable debug-offload-verdict */
/* A release stub called only through a function-pointer parameter of the
 * gem's own function (the method picks which stub runs): the stub's callers
 * are the parameter calls, so what the stub hands its callback is followed
 * into the function that calls the parameter. A frozen copy there is safe; a
 * method argument's own bytes are not; a stub whose address is also kept
 * where other code can call it has callers nobody can list. */
#include <ruby.h>
#include <ruby/thread.h>

struct fold_args {
	const char *buf;
	long n;
	long out;
};

static void *fold_nogvl(void *p)
{
	struct fold_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->out = a->out * 31 + (unsigned char)a->buf[i];
	return NULL;
}

static void *mix_nogvl(void *p)
{
	struct fold_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->out ^= (long)(unsigned char)a->buf[i] << (i & 15);
	return NULL;
}

static long stub_fold(const char *buf, long n)
{
	struct fold_args a = {buf, n, 0};
	rb_nogvl(fold_nogvl, &a, NULL, NULL, 0); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return a.out;
}

static long stub_mix(const char *buf, long n)
{
	struct fold_args a = {buf, n, 0};
	rb_nogvl(mix_nogvl, &a, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'str' */
	return a.out;
}

/* calls its parameter, and does nothing else with it */
static VALUE run_frozen(VALUE str, long (*fn)(const char *, long))
{
	VALUE copy = rb_str_new_frozen(str);
	long r = fn(RSTRING_PTR(copy), RSTRING_LEN(copy));
	RB_GC_GUARD(copy);
	return LONG2NUM(r);
}

/* trap: the method argument's own bytes, which another fiber may change */
static VALUE run_raw(VALUE str, long (*fn)(const char *, long))
{
	long r = fn(RSTRING_PTR(str), RSTRING_LEN(str)); /* expect: unfrozen-input */
	RB_GC_GUARD(str);
	return LONG2NUM(r);
}

static VALUE m_fold(VALUE self, VALUE str)
{
	(void)self;
	StringValue(str);
	return run_frozen(str, stub_fold);
}

static VALUE m_mix(VALUE self, VALUE str)
{
	(void)self;
	StringValue(str);
	return run_frozen(str, stub_mix);
}

static VALUE m_mix_raw(VALUE self, VALUE str)
{
	(void)self;
	StringValue(str);
	return run_raw(str, stub_mix);
}

/* trap: the stub is also handed to a function that keeps the pointer, so it
 * may be called from anywhere later */
static void *fold_kept_nogvl(void *p)
{
	struct fold_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->out += (unsigned char)a->buf[i];
	return NULL;
}

static long stub_kept(const char *buf, long n)
{
	struct fold_args a = {buf, n, 0};
	rb_nogvl(fold_kept_nogvl, &a, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('buf'), which is not followed */
	return a.out;
}

static long (*saved_fn)(const char *, long);

static VALUE run_and_keep(VALUE str, long (*fn)(const char *, long))
{
	VALUE copy = rb_str_new_frozen(str);
	saved_fn = fn;
	long r = fn(RSTRING_PTR(copy), RSTRING_LEN(copy));
	RB_GC_GUARD(copy);
	return LONG2NUM(r);
}

static VALUE m_kept(VALUE self, VALUE str)
{
	(void)self;
	StringValue(str);
	return run_and_keep(str, stub_kept);
}

void Init_param_callers(void)
{
	rb_define_method(rb_cObject, "fold", m_fold, 1);
	rb_define_method(rb_cObject, "mix", m_mix, 1);
	rb_define_method(rb_cObject, "mix_raw", m_mix_raw, 1);
	rb_define_method(rb_cObject, "kept", m_kept, 1);
}
