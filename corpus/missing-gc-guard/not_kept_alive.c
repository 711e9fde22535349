/* The VALUE that owns the bytes the callback reads must stay alive until the
 * release call returns: after RSTRING_PTR the compiler may drop the VALUE, and
 * then nothing stops the GC from freeing (or compaction from moving) the
 * string while the callback still reads it. */
#include <ruby.h>
#include <ruby/thread.h>

struct hash_args {
	const char *key;
	long keylen;
	const char *salt;
	unsigned char out[32];
};

void hash_key(const char *key, long keylen, const char *salt, unsigned char *out);

static void *hash_nogvl(void *p)
{
	struct hash_args *a = p;
	hash_key(a->key, a->keylen, a->salt, a->out);
	return NULL;
}

/* Frozen copies, but no RB_GC_GUARD after the call (bcrypt-ruby before PR #270). */
static VALUE hash_unguarded(VALUE self, VALUE key, VALUE salt)
{
	struct hash_args a;
	key = rb_str_new_frozen(key);
	salt = rb_str_new_frozen(salt);
	a.key = StringValueCStr(key);
	a.keylen = RSTRING_LEN(key);
	a.salt = StringValueCStr(salt);
	rb_thread_call_without_gvl(hash_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: add RB_GC_GUARD(key), RB_GC_GUARD(salt) after the call */
	return rb_str_new((const char *)a.out, sizeof(a.out));
}

/* RB_GC_GUARD before the call protects nothing after it. */
static VALUE hash_guard_before(VALUE self, VALUE key)
{
	struct hash_args a;
	VALUE k = rb_str_new_frozen(key);
	a.key = RSTRING_PTR(k);
	a.keylen = RSTRING_LEN(k);
	a.salt = "";
	RB_GC_GUARD(k);
	rb_thread_call_without_gvl(hash_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: move it after the call */
	return rb_str_new((const char *)a.out, sizeof(a.out));
}

/* A frozen temporary: nothing ever holds it. */
static VALUE hash_temporary(VALUE self, VALUE key)
{
	struct hash_args a;
	a.key = RSTRING_PTR(rb_str_new_frozen(key));
	a.keylen = RSTRING_LEN(key);
	a.salt = "";
	rb_thread_call_without_gvl(hash_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: temporary */
	RB_GC_GUARD(key);
	return rb_str_new((const char *)a.out, sizeof(a.out));
}

/* A helper makes the frozen copy and keeps only its pointer. */
static void hash_prepare(struct hash_args *a, VALUE key)
{
	VALUE k = rb_str_new_frozen(key);
	a->key = RSTRING_PTR(k);
	a->keylen = RSTRING_LEN(k);
	a->salt = "";
}

static VALUE hash_via_helper(VALUE self, VALUE key)
{
	struct hash_args a;
	hash_prepare(&a, key);
	rb_thread_call_without_gvl(hash_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: local to 'hash_prepare' */
	return rb_str_new((const char *)a.out, sizeof(a.out));
}

void Init_not_kept_alive(void)
{
	VALUE c = rb_define_class("Hasher", rb_cObject);
	rb_define_method(c, "unguarded", hash_unguarded, 2);
	rb_define_method(c, "guard_before", hash_guard_before, 1);
	rb_define_method(c, "temporary", hash_temporary, 1);
	rb_define_method(c, "via_helper", hash_via_helper, 1);
}
