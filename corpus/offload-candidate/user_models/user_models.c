/* nogvl-lint-test: --enable debug-offload-verdict */
/* Library models the gem ships in its .nogvl-lint.yml (models: [mylib.yml]):
 * they add knowledge, and a verdict that rests on one says so. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

unsigned long mylib_hash(const char *p, long n);
unsigned long mylib_crc(const char *p, long n);
char *mylib_alloc_copy(const char *p, long n);
int mylib_sign(const char *p, long n);
void mylib_wake(void *arg);
void mylib_wake_locked(void *arg);
unsigned long ERR_get_error(void);
char *strtok(char *s, const char *delim);

struct job {
	const char *in;
	long n;
	unsigned long result;
	char *copy;
	char buf[64];
};

static void *hash_nogvl(void *p)
{
	struct job *j = p;
	j->result = mylib_hash(j->in, j->n);
	return NULL;
}

static void *crc_nogvl(void *p)
{
	struct job *j = p;
	j->result = mylib_crc(j->in, j->n);
	return NULL;
}

static void *copy_nogvl(void *p)
{
	struct job *j = p;
	j->copy = mylib_alloc_copy(j->in, j->n);
	return NULL;
}

static void *sign_nogvl(void *p)
{
	struct job *j = p;
	j->result = (unsigned long)mylib_sign(j->in, j->n);
	return NULL;
}

static void *tok_nogvl(void *p)
{
	struct job *j = p;
	j->result = strtok(j->buf, ",") != NULL;
	return NULL;
}

static void *wait_nogvl(void *p)
{
	struct job *j = p;
	j->result = mylib_hash(j->in, j->n);
	return NULL;
}

static void ubf_wake(void *p)
{
	mylib_wake(p);
}

static void ubf_wake_locked(void *p)
{
	mylib_wake_locked(p); /* expect: ubf-not-async-safe */
}

static VALUE run(VALUE self, VALUE len)
{
	struct job j;
	char in[64];
	(void)self;
	memset(&j, 0, sizeof(j));
	memset(in, 'x', sizeof(in));
	j.in = in;
	j.n = NUM2LONG(len) & 63;
	rb_thread_call_without_gvl(hash_nogvl, &j, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate; models: mylib_hash (mylib, user model) */
	rb_thread_call_without_gvl(crc_nogvl, &j, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: models: mylib_crc (mylib, user model) */
	rb_thread_call_without_gvl(copy_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: Ruby API fail: 'copy_nogvl' calls 'mylib_alloc_copy', which allocates through Ruby's allocator */
	rb_thread_call_without_gvl(sign_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; per-thread error channel fail */
	if (j.result == 0 && ERR_get_error() != 0)
		rb_raise(rb_eRuntimeError, "sign failed");
	rb_thread_call_without_gvl(tok_nogvl, &j, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: models: strtok (mylib, user model) */
	rb_nogvl(wait_nogvl, &j, ubf_wake, &j, RB_NOGVL_UBF_ASYNC_SAFE); /* expect: debug-offload-verdict */ /* async_signal_safe: true in the model: no ubf-not-async-safe */
	rb_nogvl(wait_nogvl, &j, ubf_wake_locked, &j, RB_NOGVL_UBF_ASYNC_SAFE); /* expect: debug-offload-verdict */
	return ULONG2NUM(j.result);
}

void Init_user_models(void)
{
	rb_define_method(rb_cObject, "run", run, 1);
}
