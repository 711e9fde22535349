/* The shape of the first patch proposed in Ruby's Feature #11625 ("Unlock GVL
 * for SHA1 calculations"), written from its description: Digest#update copies
 * its input with rb_str_dup and hashes the copy without the GVL, with
 * RUBY_UBF_PROCESS as the unblocking function. The review asked for
 * rb_str_new_frozen instead of rb_str_dup, because the copy is an ordinary
 * string that code walking ObjectSpace can still modify mid-hash, and the
 * revised patches also keep the copy alive with RB_GC_GUARD. (The review's
 * other point, no UBF for CPU work, belongs to ubf-on-cpu-work.) */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdint.h>
#include <string.h>

struct sha1_ctx {
	uint32_t state[5];
	uint64_t count;
	unsigned char buffer[64];
};

void sha1_update(struct sha1_ctx *ctx, const unsigned char *data, size_t len);
void sha1_final(unsigned char digest[20], struct sha1_ctx *ctx);

static const rb_data_type_t sha1_type = {
	"SHA1", {NULL, RUBY_TYPED_DEFAULT_FREE, NULL}, NULL, NULL, RUBY_TYPED_FREE_IMMEDIATELY,
};

struct update_args {
	struct sha1_ctx *ctx;
	const unsigned char *data;
	size_t len;
};

static void *update_nogvl(void *p)
{
	struct update_args *a = p;
	sha1_update(a->ctx, a->data, a->len);
	return NULL;
}

static VALUE sha1_update_m(VALUE self, VALUE str)
{
	struct update_args a;
	VALUE copy;

	StringValue(str);
	copy = rb_str_dup(str);
	a.ctx = rb_check_typeddata(self, &sha1_type);
	a.data = (const unsigned char *)RSTRING_PTR(copy); /* expect: unfrozen-input */ /* expect-msg: use rb_str_new_frozen instead of rb_str_dup */
	a.len = (size_t)RSTRING_LEN(copy);
	rb_thread_call_without_gvl(update_nogvl, &a, RUBY_UBF_PROCESS, NULL); /* expect: missing-gc-guard */ /* expect-msg: RB_GC_GUARD(copy) */
	return self;
}

struct final_args {
	struct sha1_ctx *ctx;
	unsigned char digest[20];
};

static void *final_nogvl(void *p)
{
	struct final_args *a = p;
	sha1_final(a->digest, a->ctx);
	return NULL;
}

static VALUE sha1_finish_m(VALUE self)
{
	struct final_args a;
	a.ctx = rb_check_typeddata(self, &sha1_type);
	rb_thread_call_without_gvl(final_nogvl, &a, RUBY_UBF_PROCESS, NULL);
	return rb_str_new((const char *)a.digest, sizeof(a.digest));
}

void Init_digest_review(void)
{
	VALUE c = rb_define_class("SHA1Patch", rb_cObject);
	rb_define_method(c, "update", sha1_update_m, 1);
	rb_define_method(c, "finish", sha1_finish_m, 0);
}
