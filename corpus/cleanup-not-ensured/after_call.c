/* rb_thread_call_without_gvl (and rb_nogvl without RB_NOGVL_INTR_FAIL) handles
 * pending interrupts after the callback returns, so it can raise instead of
 * returning (Thread#raise, Thread#kill, a signal trap); with
 * RB_NOGVL_OFFLOAD_SAFE a fiber scheduler can also raise into the waiting
 * fiber. Cleanup written after such a call is then skipped. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct squeeze_args {
	char *in;
	long len;
	char *out;
	long outlen;
};

struct squeezer;
struct squeezer *squeezer_new(void);
void squeezer_free(struct squeezer *s);
long squeeze(const char *in, long len, char *out, long outlen);

static void *squeeze_nogvl(void *p)
{
	struct squeeze_args *a = p;
	a->outlen = squeeze(a->in, a->len, a->out, a->len);
	return NULL;
}

static VALUE squeeze_malloc(VALUE self, VALUE str)
{
	struct squeeze_args a;
	VALUE res;
	a.len = RSTRING_LEN(str);
	a.in = malloc(a.len);
	memcpy(a.in, RSTRING_PTR(str), a.len);
	a.out = ALLOC_N(char, a.len);
	a.outlen = 0;
	rb_thread_call_without_gvl(squeeze_nogvl, &a, NULL, NULL);
	res = rb_str_new(a.out, a.outlen);
	free(a.in); /* expect: cleanup-not-ensured */ /* expect-msg: rb_ensure */
	xfree(a.out); /* skipped by the same call: a note on the finding above */
	return res;
}

/* A library object freed after the call, and a locked string unlocked after it. */
static VALUE squeeze_lib(VALUE self, VALUE str)
{
	struct squeeze_args a = {0};
	char out[256];
	struct squeezer *s = squeezer_new();
	rb_str_locktmp(str);
	a.in = RSTRING_PTR(str);
	a.len = RSTRING_LEN(str) < 256 ? RSTRING_LEN(str) : 256;
	a.out = out;
	rb_nogvl(squeeze_nogvl, &a, NULL, NULL, 0);
	squeezer_free(s); /* a note on the unlock below (one finding per raising call) */
	rb_str_unlocktmp(str); /* expect: cleanup-not-ensured */ /* expect-msg: stays locked */
	return rb_str_new(out, a.outlen);
}

/* Offloadable calls raise when the scheduler cancels them, even with INTR_FAIL. */
static VALUE squeeze_offload(VALUE self, VALUE str)
{
	struct squeeze_args a = {0};
	VALUE res;
	a.len = RSTRING_LEN(str);
	a.in = xmalloc(a.len);
	memcpy(a.in, RSTRING_PTR(str), a.len);
	a.out = xmalloc(a.len);
	rb_nogvl(squeeze_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL | RB_NOGVL_OFFLOAD_SAFE);
	res = rb_str_new(a.out, a.outlen);
	ruby_xfree(a.in); /* expect: cleanup-not-ensured */ /* expect-msg: is skipped when rb_nogvl raises */
	ruby_xfree(a.out); /* a note */
	return res;
}

/* Memory the callback allocated and returned: lost too when the call raises. */
char *make_salt(long cost);

static void *salt_nogvl(void *p)
{
	return make_salt(*(long *)p);
}

static VALUE gen_salt(VALUE self, VALUE cost)
{
	long c = NUM2LONG(cost);
	char *salt = rb_thread_call_without_gvl(salt_nogvl, &c, NULL, NULL);
	VALUE res;
	if (!salt)
		return Qnil;
	res = rb_str_new_cstr(salt);
	free(salt); /* expect: cleanup-not-ensured */ /* expect-msg: the return value is then lost */
	return res;
}

/* Memory the callback stores in the data struct (a crypt_ra(&args->data) shape). */
struct crypt_args {
	const char *key;
	void *data;
	int size;
};

char *lib_crypt(const char *key, void **data, int *size);

static void *crypt_nogvl(void *p)
{
	struct crypt_args *a = p;
	return lib_crypt(a->key, &a->data, &a->size);
}

static VALUE do_crypt(VALUE self, VALUE key)
{
	struct crypt_args args;
	char *value;
	VALUE out;
	key = rb_str_new_frozen(key);
	args.key = StringValueCStr(key);
	args.data = NULL;
	args.size = 0;
	value = rb_thread_call_without_gvl(crypt_nogvl, &args, NULL, NULL);
	RB_GC_GUARD(key);
	if (!value)
		return Qnil;
	out = rb_str_new_cstr(value);
	free(args.data); /* expect: cleanup-not-ensured */ /* expect-msg: memory the callback stored in its data */
	return out;
}

/* A cleanup macro is one finding where it is used. */
#define FREE_BUFS          \
	do {               \
		xfree(a.in);  \
		xfree(a.out); \
	} while (0)

static VALUE squeeze_macro(VALUE self, VALUE str)
{
	struct squeeze_args a = {0};
	VALUE res;
	a.len = RSTRING_LEN(str);
	a.in = ALLOC_N(char, a.len);
	memcpy(a.in, RSTRING_PTR(str), a.len);
	a.out = ALLOC_N(char, a.len);
	rb_thread_call_without_gvl(squeeze_nogvl, &a, NULL, NULL);
	res = rb_str_new(a.out, a.outlen);
	FREE_BUFS; /* expect: cleanup-not-ensured */
	return res;
}

void Init_after_call(void)
{
	VALUE c = rb_define_class("Squeeze", rb_cObject);
	rb_define_method(c, "malloc", squeeze_malloc, 1);
	rb_define_method(c, "lib", squeeze_lib, 1);
	rb_define_method(c, "offload", squeeze_offload, 1);
	rb_define_method(c, "salt", gen_salt, 1);
	rb_define_method(c, "crypt", do_crypt, 1);
	rb_define_method(c, "macro", squeeze_macro, 1);
}
