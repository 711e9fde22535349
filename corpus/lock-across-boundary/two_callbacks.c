/* A lock taken in one no-GVL callback and released in a later one
 * (real-world.md): with the flag each callback may run on a different worker
 * thread. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct txn {
	pthread_mutex_t lock;
	long value;
};

static void *begin_txn(void *p)
{
	struct txn *t = p;
	pthread_mutex_lock(&t->lock); /* expect: lock-across-boundary */ /* expect-msg: leaves it locked for other code to unlock */
	return NULL;
}

static void *commit_txn(void *p)
{
	struct txn *t = p;
	t->value++;
	pthread_mutex_unlock(&t->lock); /* expect: lock-across-boundary */ /* expect-msg: 'commit_txn' unlocks mutex 't->lock', which the callback does not lock itself */
	return NULL;
}

/* the same pair without the flag: one thread, silent */
static void *begin_plain(void *p)
{
	struct txn *t = p;
	pthread_mutex_lock(&t->lock);
	return NULL;
}

static void *commit_plain(void *p)
{
	struct txn *t = p;
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

static VALUE
run_txn(VALUE self)
{
	struct txn t;
	pthread_mutex_init(&t.lock, NULL);
	t.value = 0;
	rb_nogvl(begin_txn, &t, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	rb_nogvl(commit_txn, &t, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	rb_thread_call_without_gvl(begin_plain, &t, NULL, NULL);
	rb_thread_call_without_gvl(commit_plain, &t, NULL, NULL);
	return LONG2NUM(t.value);
}

void Init_two_callbacks(void)
{
	rb_define_method(rb_cObject, "run_txn", run_txn, 0);
}
