/* digest_ext.c: an example Ruby extension with typical GVL-release patterns,
 * good and bad. Run `nogvl-lint corpus/examples/digest_ext` to see what the
 * linter says about it. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

#include "hash_core.h"

struct update_args {
	struct hash_ctx *ctx;
	const unsigned char *ptr;
	size_t len;
};

static void *update_nogvl(void *p)
{
	struct update_args *a = p;
	hash_update(a->ctx, a->ptr, a->len);
	return NULL;
}

static const rb_data_type_t digest_type = {
	"DigestExt", {NULL, RUBY_TYPED_DEFAULT_FREE, NULL}, NULL, NULL, RUBY_TYPED_FREE_IMMEDIATELY,
};

/* Digest#update: the pattern of a first patch reviewed in Ruby's bug tracker
 * (Feature #11625): the input is copied with rb_str_dup and the hash runs
 * without the GVL with RUBY_UBF_PROCESS. */
static VALUE digest_update(VALUE self, VALUE str)
{
	struct update_args a;
	VALUE copy = rb_str_dup(str);
	a.ctx = rb_check_typeddata(self, &digest_type);
	a.ptr = (const unsigned char *)RSTRING_PTR(copy); /* expect: unfrozen-input */ /* expect-msg: rb_str_new_frozen */
	a.len = (size_t)RSTRING_LEN(copy);
	rb_thread_call_without_gvl(update_nogvl, &a, RUBY_UBF_PROCESS, NULL); /* expect: missing-gc-guard, ubf-on-cpu-work */
	return self;
}

struct check_args {
	VALUE str;
	int ok;
};

static size_t input_length(VALUE s)
{
	return (size_t)RSTRING_LEN(s); /* expect: value-access-without-gvl */
}

static void *check_nogvl(void *p)
{
	struct check_args *a = p;
	a->ok = input_length(a->str) > 0;
	if (!a->ok)
		rb_raise(rb_eArgError, "empty input"); /* expect: ruby-api-without-gvl */
	return NULL;
}

static VALUE digest_check(VALUE self, VALUE str)
{
	struct check_args a = {str, 0};
	rb_thread_call_without_gvl(check_nogvl, &a, NULL, NULL);
	return a.ok ? Qtrue : Qfalse;
}

/* Password stretching, the bcrypt shape: frozen copy of the input, a per-call
 * output buffer, no Ruby API in the callback, RB_GC_GUARD after the call. */
struct stretch_args {
	const unsigned char *pw;
	size_t len;
	unsigned rounds;
	unsigned char out[32];
};

static void *stretch_nogvl(void *p)
{
	struct stretch_args *a = p;
	hash_stretch(a->pw, a->len, a->rounds, a->out);
	return NULL;
}

static VALUE digest_stretch(VALUE self, VALUE password, VALUE rounds)
{
	struct stretch_args a;
	VALUE pw = rb_str_new_frozen(password);
	memset(&a, 0, sizeof(a));
	a.pw = (const unsigned char *)RSTRING_PTR(pw);
	a.len = (size_t)RSTRING_LEN(pw);
	a.rounds = NUM2UINT(rounds);
	rb_nogvl(stretch_nogvl, &a, NULL, NULL, 0); /* expect: offload-candidate */
	RB_GC_GUARD(pw);
	return rb_str_new((const char *)a.out, sizeof(a.out));
}

void Init_digest_ext(void)
{
	VALUE c = rb_define_class("DigestExt", rb_cObject);
	rb_define_method(c, "update", digest_update, 1);
	rb_define_method(c, "check", digest_check, 1);
	rb_define_method(c, "stretch", digest_stretch, 2);
}
