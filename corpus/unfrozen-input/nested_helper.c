/* nogvl-lint-test: --enable debug-offload-verdict */
/* A zlib-style stream whose input pointer is set two helper calls above the
 * release (prep(&s, src) calls set_in(s, src), which stores RSTRING_PTR(src)
 * in s->next_in): followed through both helpers to the method. Before, only
 * one helper level was followed and the first method was offered as a
 * candidate. The frozen copy kept alive is the caller's own; the frozen copy
 * nothing keeps alive is not. */
#include <ruby.h>
#include <ruby/thread.h>

typedef struct {
	const unsigned char *next_in;
	unsigned avail_in;
	long out;
} strm_t;

static void *sum_nogvl(void *p)
{
	strm_t *s = p;
	long c = 0;
	for (unsigned i = 0; i < s->avail_in; i++)
		c += s->next_in[i];
	s->out = c;
	return NULL;
}

static void set_in(strm_t *s, VALUE src)
{
	s->next_in = (const unsigned char *)RSTRING_PTR(src); /* expect: unfrozen-input */
	s->avail_in = (unsigned)RSTRING_LEN(src);
}

static void prep(strm_t *s, VALUE src)
{
	s->out = 0;
	set_in(s, src);
}

static VALUE sum_arg(VALUE self, VALUE src)
{
	strm_t s;
	(void)self;
	Check_Type(src, T_STRING);
	prep(&s, src);
	rb_thread_call_without_gvl(sum_nogvl, &s, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'src' */
	return LONG2NUM(s.out);
}

static VALUE sum_copy(VALUE self, VALUE src)
{
	strm_t s;
	(void)self;
	VALUE copy = rb_str_new_frozen(src);
	prep(&s, copy);
	rb_thread_call_without_gvl(sum_nogvl, &s, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	RB_GC_GUARD(copy);
	return LONG2NUM(s.out);
}

static VALUE sum_copy_unguarded(VALUE self, VALUE src)
{
	strm_t s;
	(void)self;
	VALUE copy = rb_str_new_frozen(src);
	prep(&s, copy);
	rb_thread_call_without_gvl(sum_nogvl, &s, NULL, NULL); /* expect: missing-gc-guard, debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: nothing keeps 'copy' alive past the call */
	return LONG2NUM(s.out);
}

void Init_nested_helper(void)
{
	rb_define_method(rb_cObject, "sum_arg", sum_arg, 1);
	rb_define_method(rb_cObject, "sum_copy", sum_copy, 1);
	rb_define_method(rb_cObject, "sum_copy_unguarded", sum_copy_unguarded, 1);
}
