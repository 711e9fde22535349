/* Locks taken and released through helpers that receive the mutex as a
 * pointer: balanced inside the callback is fine; an unlock in a callback
 * that locks nothing is the caller's lock crossing threads. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct shared {
	pthread_mutex_t *mu;
	long n;
};

static void take(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
}

static void give(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m); /* expect: lock-across-boundary */ /* expect-msg: 'give' unlocks mutex 'm', which the callback does not lock itself */
}

/* balanced through the helpers: fine */
static void *balanced(void *p)
{
	struct shared *s = p;
	take(s->mu);
	s->n++;
	give(s->mu);
	return NULL;
}

/* only gives back what the caller took */
static void *finish(void *p)
{
	struct shared *s = p;
	s->n++;
	give(s->mu);
	return NULL;
}

static VALUE
run_helpers(VALUE self)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct shared s = {&mu, 0};
	rb_nogvl(balanced, &s, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	pthread_mutex_lock(&mu);
	rb_nogvl(finish, &s, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	pthread_mutex_lock(&mu);
	rb_thread_call_without_gvl(finish, &s, NULL, NULL); /* unflagged twin: silent */
	return LONG2NUM(s.n);
}

void Init_helpers(void)
{
	rb_define_method(rb_cObject, "run_helpers", run_helpers, 0);
}
