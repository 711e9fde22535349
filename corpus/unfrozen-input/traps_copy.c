/* Traps: the bytes are copied into memory the function owns before the GVL is
 * released; the Ruby string is not used by the callback at all. */
#include <ruby.h>
#include <ruby/thread.h>
#include <alloca.h>
#include <stdlib.h>
#include <string.h>

struct derive_args {
	char *pass;
	long passlen;
	unsigned char *salt;
	long saltlen;
	unsigned char *out;
	long outlen;
};

int derive(const char *pass, long passlen, const unsigned char *salt, long saltlen, unsigned char *out, long outlen);

static void *derive_nogvl(void *p)
{
	struct derive_args *a = p;
	return (void *)(long)derive(a->pass, a->passlen, a->salt, a->saltlen, a->out, a->outlen);
}

/* The openssl shape: ALLOCV buffers filled with memcpy, a fresh output string. */
static VALUE derive_allocv(VALUE self, VALUE pass, VALUE salt, VALUE len)
{
	VALUE pass_tmp, salt_tmp, str;
	long passlen, saltlen, outlen = NUM2LONG(len);
	StringValue(pass);
	StringValue(salt);
	passlen = RSTRING_LEN(pass);
	saltlen = RSTRING_LEN(salt);
	str = rb_str_new(NULL, outlen);
	struct derive_args args = {
		.pass = ALLOCV(pass_tmp, passlen),
		.passlen = passlen,
		.salt = ALLOCV(salt_tmp, saltlen),
		.saltlen = saltlen,
		.out = (unsigned char *)RSTRING_PTR(str),
		.outlen = outlen,
	};
	memcpy(args.pass, RSTRING_PTR(pass), passlen);
	memcpy(args.salt, RSTRING_PTR(salt), saltlen);
	if (!rb_thread_call_without_gvl(derive_nogvl, &args, NULL, NULL))
		rb_raise(rb_eRuntimeError, "derive failed");
	ALLOCV_END(pass_tmp);
	ALLOCV_END(salt_tmp);
	return str;
}

/* xmalloc'd copy (freed after a call that cannot raise), alloca and a local array. */
static VALUE derive_heap(VALUE self, VALUE pass, VALUE salt)
{
	struct derive_args a;
	unsigned char out[32];
	unsigned char saltbuf[16];
	long passlen = RSTRING_LEN(pass);
	char *copy = ALLOC_N(char, passlen);
	memcpy(copy, RSTRING_PTR(pass), passlen);
	long saltlen = RSTRING_LEN(salt) < 16 ? RSTRING_LEN(salt) : 16;
	memcpy(saltbuf, RSTRING_PTR(salt), saltlen);
	a.pass = copy;
	a.passlen = passlen;
	a.salt = saltbuf;
	a.saltlen = saltlen;
	a.out = out;
	a.outlen = sizeof(out);
	void *ok = rb_thread_call_without_gvl2(derive_nogvl, &a, NULL, NULL);
	xfree(copy);
	if (!ok)
		return Qnil;
	return rb_str_new((const char *)out, sizeof(out));
}

static VALUE derive_alloca(VALUE self, VALUE pass)
{
	struct derive_args a = {0};
	unsigned char out[32];
	long passlen = RSTRING_LEN(pass);
	char *copy = alloca(passlen);
	memcpy(copy, RSTRING_PTR(pass), passlen);
	a.pass = copy;
	a.passlen = passlen;
	a.out = out;
	a.outlen = sizeof(out);
	rb_thread_call_without_gvl(derive_nogvl, &a, NULL, NULL);
	return rb_str_new((const char *)out, sizeof(out));
}

/* A fresh string made from the input's bytes is owned too (design.md). */
static VALUE derive_fresh_copy(VALUE self, VALUE pass)
{
	struct derive_args a = {0};
	unsigned char out[32];
	VALUE copy = rb_str_new(RSTRING_PTR(pass), RSTRING_LEN(pass));
	a.pass = RSTRING_PTR(copy);
	a.passlen = RSTRING_LEN(copy);
	a.out = out;
	a.outlen = sizeof(out);
	rb_thread_call_without_gvl(derive_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(copy);
	return rb_str_new((const char *)out, sizeof(out));
}

void Init_traps_copy(void)
{
	VALUE c = rb_define_class("Derive", rb_cObject);
	rb_define_method(c, "allocv", derive_allocv, 3);
	rb_define_method(c, "heap", derive_heap, 2);
	rb_define_method(c, "alloca", derive_alloca, 1);
	rb_define_method(c, "fresh_copy", derive_fresh_copy, 1);
}
