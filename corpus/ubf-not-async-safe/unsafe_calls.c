/* ubf-not-async-safe: what an unblocking function must not do, with or
 * without RB_NOGVL_UBF_ASYNC_SAFE. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct req {
	volatile int stop;
	pthread_mutex_t mu;
	char *note;
	VALUE owner;
	long progress;
};

static void log_cancel(struct req *r)
{
	fprintf(stderr, "cancelling at %ld\n", r->progress); /* expect: ubf-not-async-safe */ /* expect-msg: 'fprintf' does stdio in the unblocking function 'log_cancel' */
}

static void cancel_ruby(void *p)
{
	struct req *r = p;
	r->stop = 1;
	rb_funcall(r->owner, rb_intern("cancelled!"), 0); /* expect: ubf-not-async-safe, ubf-not-async-safe */ /* expect-msg: Ruby C API 'rb_funcall' is called in the unblocking function 'cancel_ruby' */
}

static void cancel_alloc(void *p)
{
	struct req *r = p;
	r->note = malloc(32); /* expect: ubf-not-async-safe */ /* expect-msg: 'malloc' allocates or frees memory */
	r->stop = 1;
}

static void cancel_free(void *p)
{
	struct req *r = p;
	xfree(r->note); /* expect: ubf-not-async-safe */
	r->note = NULL;
	r->stop = 1;
}

static void cancel_logged(void *p)
{
	struct req *r = p;
	r->stop = 1;
	log_cancel(r);
}

/* a lock the callback holds while it works: the interrupting thread, which
 * usually holds the GVL, waits for the whole computation */
static void cancel_locked(void *p)
{
	struct req *r = p;
	pthread_mutex_lock(&r->mu); /* expect: ubf-not-async-safe */ /* expect-msg: 'pthread_mutex_lock' waits for a lock */
	r->stop = 1;
	pthread_mutex_unlock(&r->mu);
}

static void *work_nogvl(void *p)
{
	struct req *r = p;
	pthread_mutex_lock(&r->mu);
	while (!r->stop && r->progress < 1000000)
		r->progress++;
	pthread_mutex_unlock(&r->mu);
	return NULL;
}

VALUE unsafe_sites(VALUE self)
{
	struct req r = {0};
	r.owner = self;
	rb_thread_call_without_gvl(work_nogvl, &r, cancel_ruby, &r);
	rb_thread_call_without_gvl(work_nogvl, &r, cancel_alloc, &r);
	rb_thread_call_without_gvl(work_nogvl, &r, cancel_free, &r);
	rb_thread_call_without_gvl(work_nogvl, &r, cancel_logged, &r);
	rb_thread_call_without_gvl(work_nogvl, &r, cancel_locked, &r);
	/* the same UBF from a second site is reported once */
	rb_thread_call_without_gvl(work_nogvl, &r, cancel_alloc, &r);
	return LONG2NUM(r.progress);
}
