/* Each callback fails one offload gate (the calls lack the flag): none is a
 * candidate. Other rules report what they own. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <string.h>

unsigned long ERR_get_error(void); /* OpenSSL's per-thread error queue */
int EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size, const void *type,
	       void *impl);
int secret_library_call(const char *p, long n); /* no body, not a known library call */

struct job {
	const char *p;
	long n;
	long out;
	VALUE obj;
	unsigned char md[64];
	unsigned int md_len;
};

static __thread long per_thread_calls;
static char scratch[256];
static pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;

static void *ruby_api_nogvl(void *p) /* Ruby API */
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->out += i;
	j->obj = rb_ary_new(); /* expect: ruby-api-without-gvl */
	return NULL;
}

static void *refresh(void *p)
{
	return p;
}

static void *with_gvl_nogvl(void *p) /* rb_thread_call_with_gvl */
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->out += i;
	rb_thread_call_with_gvl(refresh, j);
	return NULL;
}

static void *tls_nogvl(void *p) /* thread-local state */
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->out += i;
	per_thread_calls++;
	return NULL;
}

static void *digest_nogvl(void *p) /* the caller reads ERR_get_error after */
{
	struct job *j = p;
	j->out = EVP_Digest(j->p, (size_t)j->n, j->md, &j->md_len, NULL, NULL);
	return NULL;
}

static void *static_buffer_nogvl(void *p) /* a static scratch buffer */
{
	struct job *j = p;
	for (long i = 0; i < j->n && i < 255; i++)
		scratch[i] = j->p[i]; /* expect: shared-mutable-state */
	return NULL;
}

static void *unlock_nogvl(void *p) /* unlocks what the caller locked */
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->out += i;
	pthread_mutex_unlock(&big_lock);
	return NULL;
}

static void *opaque_nogvl(void *p) /* an unknown external callee */
{
	struct job *j = p;
	j->out = secret_library_call(j->p, j->n);
	return NULL;
}

static void *read_input_nogvl(void *p) /* input not frozen */
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->out += j->p[i];
	return NULL;
}

VALUE run_all(VALUE self, VALUE str, VALUE frozen_src)
{
	struct job j = {0};
	VALUE f = rb_str_new_frozen(frozen_src);
	j.p = RSTRING_PTR(f);
	j.n = RSTRING_LEN(f);
	rb_thread_call_without_gvl(ruby_api_nogvl, &j, NULL, NULL);
	rb_thread_call_without_gvl(with_gvl_nogvl, &j, NULL, NULL);
	rb_thread_call_without_gvl(tls_nogvl, &j, NULL, NULL);
	rb_thread_call_without_gvl(digest_nogvl, &j, NULL, NULL);
	if (!j.out)
		rb_raise(rb_eRuntimeError, "digest failed: %lu", ERR_get_error());
	rb_thread_call_without_gvl(static_buffer_nogvl, &j, NULL, NULL);
	pthread_mutex_lock(&big_lock);
	rb_thread_call_without_gvl(unlock_nogvl, &j, NULL, NULL);
	rb_thread_call_without_gvl(opaque_nogvl, &j, NULL, NULL);
	j.p = RSTRING_PTR(str); /* expect: unfrozen-input */
	j.n = RSTRING_LEN(str);
	rb_thread_call_without_gvl(read_input_nogvl, &j, NULL, NULL);
	RB_GC_GUARD(f);
	return LONG2NUM(j.out);
}
