/* One callback released from two places: the first holds the lock across
 * the release, the second does not. Sites that share a callback share the
 * gate's evidence only when they agree on the lock held at the call: the
 * unlocked site's write is still reported. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>

static pthread_mutex_t hits_lock = PTHREAD_MUTEX_INITIALIZER;
static long hits;
static long sums[64];

static void *bump_nogvl(void *p)
{
	long *v = p;
	for (long i = 0; i < *v; i++)
		sums[i & 63] += i; /* expect: shared-mutable-state */ /* expect-msg: 'bump_nogvl' writes static 'sums' */
	hits++;
	return NULL;
}

static VALUE
rb_bump_locked(VALUE self, VALUE v)
{
	long n = NUM2LONG(v);
	pthread_mutex_lock(&hits_lock);
	rb_thread_call_without_gvl(bump_nogvl, &n, NULL, NULL); /* expect: offload-candidate */
	pthread_mutex_unlock(&hits_lock);
	return self;
}

static VALUE
rb_bump(VALUE self, VALUE v)
{
	long n = NUM2LONG(v);
	rb_thread_call_without_gvl(bump_nogvl, &n, NULL, NULL);
	return self;
}

void Init_shared_callback_lock(void)
{
	rb_define_method(rb_cObject, "bump_locked", rb_bump_locked, 1);
	rb_define_method(rb_cObject, "bump", rb_bump, 1);
}
