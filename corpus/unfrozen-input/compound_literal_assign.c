/* nogvl-lint-test: --enable debug-offload-verdict */
/* The data struct is filled by assigning a compound literal,
 * `a = (struct T){.f = x}`, not by an initialised declaration: its members
 * are followed the same way. A method argument's bytes fail the inputs gate
 * (before stop 24 the members were lost and this was a wrong candidate); a
 * frozen copy's bytes do not. */
#include <ruby.h>
#include <ruby/thread.h>

struct digest_args {
	const char *path;
	long n;
	long out;
};

static void *digest_nogvl(void *p)
{
	struct digest_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->out = a->out * 131 + (unsigned char)a->path[i];
	return NULL;
}

static VALUE m_digest_raw(VALUE self, VALUE value)
{
	struct digest_args a;
	(void)self;
	a = (struct digest_args){
		.path = StringValueCStr(value), /* expect: unfrozen-input */
		.n = RSTRING_LEN(value),
	};
	rb_nogvl(digest_nogvl, &a, NULL, NULL, 0); /* expect: debug-offload-verdict, missing-gc-guard */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'StringValueCStr' hands the callback a pointer into string 'value' */
	return LONG2NUM(a.out);
}

/* the same through a conditional, as RVAL2CSTR-style macros write it */
static VALUE m_digest_cond(VALUE self, VALUE value)
{
	struct digest_args a;
	(void)self;
	a = (struct digest_args){
		.path = NIL_P(value) ? NULL : StringValueCStr(value), /* expect: unfrozen-input */
		.n = NIL_P(value) ? 0 : RSTRING_LEN(value),
	};
	rb_nogvl(digest_nogvl, &a, NULL, NULL, 0); /* expect: debug-offload-verdict, missing-gc-guard */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'StringValueCStr' hands the callback a pointer into string 'value' */
	return LONG2NUM(a.out);
}

static VALUE m_digest_frozen(VALUE self, VALUE value)
{
	struct digest_args a;
	(void)self;
	VALUE copy = rb_str_new_frozen(value);
	a = (struct digest_args){
		.path = StringValueCStr(copy),
		.n = RSTRING_LEN(copy),
	};
	rb_nogvl(digest_nogvl, &a, NULL, NULL, 0); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	RB_GC_GUARD(copy);
	return LONG2NUM(a.out);
}

void Init_compound_literal_assign(void)
{
	rb_define_method(rb_cObject, "digest_raw", m_digest_raw, 1);
	rb_define_method(rb_cObject, "digest_cond", m_digest_cond, 1);
	rb_define_method(rb_cObject, "digest_frozen", m_digest_frozen, 1);
}
