/* Traps: frozen inputs. None of these may be reported. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>

struct kdf_args {
	const char *key;
	const char *salt;
	long keylen;
	char *out;
};

void kdf_run(const char *key, long keylen, const char *salt, char *out);

static void *kdf_nogvl(void *p)
{
	struct kdf_args *a = p;
	kdf_run(a->key, a->keylen, a->salt, a->out);
	return a->out;
}

/* The bcrypt shape: the arguments replaced by frozen copies, RB_GC_GUARD after. */
static VALUE kdf_bcrypt_style(VALUE self, VALUE key, VALUE salt)
{
	struct kdf_args a;
	char out[64];
	key = rb_str_new_frozen(key);
	salt = rb_str_new_frozen(salt);
	a.key = StringValueCStr(key);
	a.keylen = RSTRING_LEN(key);
	a.salt = NIL_P(salt) ? NULL : StringValuePtr(salt);
	a.out = out;
	rb_thread_call_without_gvl(kdf_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(key);
	RB_GC_GUARD(salt);
	return rb_str_new_cstr(out);
}

/* The older spellings of the same thing. */
static VALUE kdf_old_names(VALUE self, VALUE key, VALUE salt)
{
	struct kdf_args a;
	char out[64];
	VALUE k = rb_str_dup_frozen(key);
	VALUE s = rb_str_new4(salt);
	a.key = RSTRING_PTR(k);
	a.keylen = RSTRING_LEN(k);
	a.salt = RSTRING_PTR(s);
	a.out = out;
	rb_thread_call_without_gvl(kdf_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(k);
	RB_GC_GUARD(s);
	return rb_str_new_cstr(out);
}

/* A dup that is then frozen (rb_obj_freeze returns its argument, frozen). */
static VALUE kdf_freeze(VALUE self, VALUE key, VALUE salt)
{
	struct kdf_args a;
	char out[64];
	VALUE k = rb_obj_freeze(rb_str_dup(key));
	VALUE s = rb_str_dup(salt);
	OBJ_FREEZE(s);
	a.key = RSTRING_PTR(k);
	a.keylen = RSTRING_LEN(k);
	a.salt = RSTRING_PTR(s);
	a.out = out;
	rb_thread_call_without_gvl(kdf_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(k);
	RB_GC_GUARD(s);
	return rb_str_new_cstr(out);
}

/* A static helper whose every caller passes a frozen string. */
static VALUE kdf_helper(VALUE key, VALUE salt)
{
	struct kdf_args a;
	char out[64];
	a.key = RSTRING_PTR(key);
	a.keylen = RSTRING_LEN(key);
	a.salt = RSTRING_PTR(salt);
	a.out = out;
	rb_thread_call_without_gvl(kdf_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(key);
	RB_GC_GUARD(salt);
	return rb_str_new_cstr(out);
}

static VALUE kdf_via_helper(VALUE self, VALUE key, VALUE salt)
{
	VALUE k = rb_str_new_frozen(key);
	return kdf_helper(k, rb_str_new_frozen(salt));
}

void Init_traps_frozen(void)
{
	VALUE c = rb_define_class("KDF", rb_cObject);
	rb_define_method(c, "bcrypt_style", kdf_bcrypt_style, 2);
	rb_define_method(c, "old_names", kdf_old_names, 2);
	rb_define_method(c, "freeze", kdf_freeze, 2);
	rb_define_method(c, "via_helper", kdf_via_helper, 2);
}
