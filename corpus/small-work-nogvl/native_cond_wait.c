/* A consumer that sleeps on Ruby's native condition variable until a producer
 * thread (or the unblocking function) wakes it. rb_native_cond_wait is
 * pthread_cond_wait underneath: it waits without bound, so the callback is no
 * small work however short its body, and without an unblocking function that
 * signals the condition nothing can interrupt it. */
#include <ruby.h>
#include <ruby/thread.h>
#include <ruby/thread_native.h>

struct inbox {
	rb_nativethread_lock_t lock;
	rb_nativethread_cond_t cond;
	int pending;
	int closing;
};

static struct inbox box;

static void *inbox_wait_nogvl(void *p)
{
	struct inbox *b = p;
	rb_native_cond_wait(&b->cond, &b->lock);
	return NULL;
}

static void *inbox_stuck_nogvl(void *p)
{
	struct inbox *b = p;
	rb_native_cond_wait(&b->cond, &b->lock); /* expect: uninterruptible-blocking */ /* expect-msg: signals the condition variable */
	return NULL;
}

static void *inbox_nap_nogvl(void *p)
{
	struct inbox *b = p;
	rb_native_cond_timedwait(&b->cond, &b->lock, 50);
	return NULL;
}

static void inbox_wake(void *p)
{
	struct inbox *b = p;
	rb_nativethread_lock_lock(&b->lock);
	b->closing = 1;
	rb_native_cond_broadcast(&b->cond);
	rb_nativethread_lock_unlock(&b->lock);
}

VALUE inbox_take(VALUE self)
{
	int got;
	rb_nativethread_lock_lock(&box.lock);
	while (!box.pending && !box.closing)
		rb_thread_call_without_gvl(inbox_wait_nogvl, &box, inbox_wake, &box);
	got = box.pending;
	box.pending = 0;
	rb_nativethread_lock_unlock(&box.lock);
	return INT2NUM(got);
}

VALUE inbox_take_stuck(VALUE self)
{
	rb_nativethread_lock_lock(&box.lock);
	rb_thread_call_without_gvl(inbox_stuck_nogvl, &box, NULL, NULL);
	rb_nativethread_lock_unlock(&box.lock);
	return Qnil;
}

VALUE inbox_take_nap(VALUE self)
{
	rb_nativethread_lock_lock(&box.lock);
	rb_thread_call_without_gvl(inbox_nap_nogvl, &box, inbox_wake, &box);
	rb_nativethread_lock_unlock(&box.lock);
	return Qnil;
}
