/* The OpenSSL pattern: the callback runs a crypto routine that reports
 * failure through OpenSSL's per-thread error queue, and the caller reads the
 * queue after the call to build its exception. With RB_NOGVL_OFFLOAD_SAFE the
 * routine may run on a worker thread and the errors stay there; without the
 * flag (what ruby/openssl does) the callback runs on the calling thread and
 * this is correct. OpenSSL's declarations are written out here, as a
 * buildless parse without OpenSSL's headers would see them. */
#include <ruby.h>
#include <ruby/thread.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

typedef struct evp_md_st EVP_MD;
int PKCS5_PBKDF2_HMAC(const char *pass, int passlen, const unsigned char *salt, int saltlen, int iter,
		      const EVP_MD *digest, int keylen, unsigned char *out);
const EVP_MD *EVP_sha256(void);
unsigned long ERR_get_error(void);
unsigned long ERR_peek_last_error(void);
void ERR_clear_error(void);

static VALUE eKDFError;

struct kdf_args {
	const char *pass;
	int passlen;
	const unsigned char *salt;
	int saltlen;
	int iters;
	unsigned char *out;
	int len;
	const EVP_MD *md;
};

static void *kdf_nogvl(void *p)
{
	struct kdf_args *a = p;
	int ok = PKCS5_PBKDF2_HMAC(a->pass, a->passlen, a->salt, a->saltlen, a->iters, a->md, a->len, a->out);
	return (void *)(long)ok;
}

/* like ossl_raise: builds the message from the queue */
static void raise_kdf_error(const char *what)
{
	unsigned long e = ERR_peek_last_error();
	ERR_clear_error();
	rb_raise(eKDFError, "%s: error %lu", what, e);
}

static VALUE
kdf_offloaded(VALUE self, VALUE pass, VALUE salt)
{
	struct kdf_args a;
	VALUE out = rb_str_new(NULL, 32);
	pass = rb_str_new_frozen(pass);
	salt = rb_str_new_frozen(salt);
	a.pass = RSTRING_PTR(pass);
	a.passlen = (int)RSTRING_LEN(pass);
	a.salt = (const unsigned char *)RSTRING_PTR(salt);
	a.saltlen = (int)RSTRING_LEN(salt);
	a.iters = 100000;
	a.out = (unsigned char *)RSTRING_PTR(out);
	a.len = 32;
	a.md = EVP_sha256();
	if (!rb_nogvl(kdf_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE)) /* expect: offload-unsafe */
		raise_kdf_error("PKCS5_PBKDF2_HMAC"); /* expect: thread-local-state */ /* expect-msg: reads OpenSSL's per-thread error queue (through 'raise_kdf_error') after the call */
	RB_GC_GUARD(pass);
	RB_GC_GUARD(salt);
	return out;
}

/* The same with a direct read. */
static VALUE
kdf_offloaded_direct(VALUE self, VALUE pass, VALUE salt)
{
	struct kdf_args a = {0};
	VALUE out = rb_str_new(NULL, 32);
	pass = rb_str_new_frozen(pass);
	salt = rb_str_new_frozen(salt);
	a.pass = RSTRING_PTR(pass);
	a.passlen = (int)RSTRING_LEN(pass);
	a.salt = (const unsigned char *)RSTRING_PTR(salt);
	a.saltlen = (int)RSTRING_LEN(salt);
	a.out = (unsigned char *)RSTRING_PTR(out);
	a.len = 32;
	a.md = EVP_sha256();
	if (!rb_nogvl(kdf_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE)) { /* expect: offload-unsafe */
		unsigned long e = ERR_get_error(); /* expect: thread-local-state */ /* expect-msg: reads OpenSSL's per-thread error queue with 'ERR_get_error' after the call */
		rb_raise(eKDFError, "error %lu", e);
	}
	RB_GC_GUARD(pass);
	RB_GC_GUARD(salt);
	return out;
}

/* Unflagged twin: the callback runs on this thread, the queue is ours.
 * Silent (the offload gate still fails). */
static VALUE
kdf_plain(VALUE self, VALUE pass, VALUE salt)
{
	struct kdf_args a = {0};
	VALUE out = rb_str_new(NULL, 32);
	pass = rb_str_new_frozen(pass);
	salt = rb_str_new_frozen(salt);
	a.pass = RSTRING_PTR(pass);
	a.passlen = (int)RSTRING_LEN(pass);
	a.salt = (const unsigned char *)RSTRING_PTR(salt);
	a.saltlen = (int)RSTRING_LEN(salt);
	a.out = (unsigned char *)RSTRING_PTR(out);
	a.len = 32;
	a.md = EVP_sha256();
	if (!rb_thread_call_without_gvl(kdf_nogvl, &a, NULL, NULL))
		raise_kdf_error("PKCS5_PBKDF2_HMAC");
	RB_GC_GUARD(pass);
	RB_GC_GUARD(salt);
	return out;
}

/* Unflagged twin of the direct read: silent. */
static VALUE
kdf_plain_direct(VALUE self, VALUE pass)
{
	struct kdf_args a = {0};
	VALUE out = rb_str_new(NULL, 32);
	pass = rb_str_new_frozen(pass);
	a.pass = RSTRING_PTR(pass);
	a.passlen = (int)RSTRING_LEN(pass);
	a.out = (unsigned char *)RSTRING_PTR(out);
	a.len = 32;
	a.md = EVP_sha256();
	if (!rb_nogvl(kdf_nogvl, &a, NULL, NULL, 0))
		rb_raise(eKDFError, "error %lu", ERR_get_error());
	RB_GC_GUARD(pass);
	return out;
}

/* Flagged, but the callback returns the error code itself: fine. */
struct kdf_result {
	struct kdf_args a;
	unsigned long err;
};

static void *kdf_nogvl_err(void *p)
{
	struct kdf_result *r = p;
	ERR_clear_error();
	if (!PKCS5_PBKDF2_HMAC(r->a.pass, r->a.passlen, r->a.salt, r->a.saltlen, r->a.iters, r->a.md, r->a.len,
			       r->a.out))
		r->err = ERR_get_error(); /* read on the thread that ran the routine: fine */
	return NULL;
}

static VALUE
kdf_offloaded_ok(VALUE self, VALUE pass)
{
	struct kdf_result r = {0};
	VALUE out = rb_str_new(NULL, 32);
	pass = rb_str_new_frozen(pass);
	r.a.pass = RSTRING_PTR(pass);
	r.a.passlen = (int)RSTRING_LEN(pass);
	r.a.out = (unsigned char *)RSTRING_PTR(out);
	r.a.len = 32;
	r.a.md = EVP_sha256();
	rb_nogvl(kdf_nogvl_err, &r, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	if (r.err)
		rb_raise(eKDFError, "error %lu", r.err);
	RB_GC_GUARD(pass);
	return out;
}

void Init_openssl_pattern(void)
{
	eKDFError = rb_define_class("KDFError", rb_eStandardError);
	rb_define_method(rb_cObject, "kdf_offloaded", kdf_offloaded, 2);
	rb_define_method(rb_cObject, "kdf_offloaded_direct", kdf_offloaded_direct, 2);
	rb_define_method(rb_cObject, "kdf_plain", kdf_plain, 2);
	rb_define_method(rb_cObject, "kdf_offloaded_ok", kdf_offloaded_ok, 1);
	rb_define_method(rb_cObject, "kdf_plain_direct", kdf_plain_direct, 1);
}
