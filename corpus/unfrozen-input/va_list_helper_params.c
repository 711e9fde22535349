/* nogvl-lint-test: --enable debug-offload-verdict */
/* A variadic release wrapper (the callback and the UBF each get their own
 * va_list) called by small helpers that pass their own parameters on as the
 * variadic arguments: what those parameters carry is followed up into each
 * helper's callers, as for a helper that fills a data struct. A pointer into
 * a method argument is unfrozen there; a helper that is also used through a
 * function pointer has callers nobody can list, and its verdict names the
 * parameter the data comes from rather than the wrapper's va_list. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdarg.h>
#include <stdint.h>

static void *run_nogvl(void *(*func)(va_list *), void (*cancel)(va_list *), ...)
{
	va_list work, stop;
	va_start(work, cancel);
	va_start(stop, cancel);
	void *r = rb_thread_call_without_gvl((void *(*)(void *))func, &work, (void (*)(void *))cancel, &stop);
	va_end(work);
	va_end(stop);
	return r;
}

static void *checksum_nogvl(va_list *vp)
{
	const unsigned char *src = va_arg(*vp, const unsigned char *);
	long n = va_arg(*vp, long);
	uint32_t sum = 0;
	for (long i = 0; i < n; i++)
		sum = sum * 31 + src[i];
	return (void *)(uintptr_t)sum;
}

static uint32_t checksum(const char *src, long n)
{
	return (uint32_t)(uintptr_t)run_nogvl(checksum_nogvl, NULL, src, n); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'str' */
}

/* the helper is also an entry of a table: its callers are not all known */
static uint32_t checksum_any(const char *src, long n)
{
	return (uint32_t)(uintptr_t)run_nogvl(checksum_nogvl, NULL, src, n); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('src') */
}

struct digest_ops {
	uint32_t (*sum)(const char *src, long n);
};
const struct digest_ops checksum_ops = {checksum_any};

static VALUE str_checksum(VALUE self, VALUE str)
{
	(void)self;
	Check_Type(str, T_STRING);
	return UINT2NUM(checksum(RSTRING_PTR(str), RSTRING_LEN(str))); /* expect: unfrozen-input */
}

static VALUE str_checksum_copy(VALUE self, VALUE str)
{
	(void)self;
	Check_Type(str, T_STRING);
	VALUE copy = rb_str_new_frozen(str);
	uint32_t sum = checksum(RSTRING_PTR(copy), RSTRING_LEN(copy));
	RB_GC_GUARD(copy);
	return UINT2NUM(sum);
}

void Init_va_list_helper_params(void)
{
	rb_define_method(rb_cString, "checksum", str_checksum, 0);
	rb_define_method(rb_cString, "checksum_copy", str_checksum_copy, 0);
}
