/* With RB_NOGVL_UBF_ASYNC_SAFE Ruby may call the UBF from its signal handler:
 * every call must be on the POSIX async-signal-safe list. */
#include <ruby.h>
#include <ruby/thread.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct op {
	volatile sig_atomic_t stop;
	_Atomic int cancel;
	int wake_w;
	int efd;
	pthread_t worker;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char msg[64];
	long n;
};

/* all async-signal-safe: flags, write(2), eventfd_write, errno kept */
static void stop_pipe(void *p)
{
	struct op *o = p;
	int saved = errno;
	char c = 1;
	o->stop = 1;
	atomic_store(&o->cancel, 1);
	(void)write(o->wake_w, &c, 1);
	eventfd_write(o->efd, 1);
	memset(o->msg, 0, sizeof(o->msg));
	errno = saved;
}

/* pthread_kill of the thread the callback saved: async-signal-safe */
static void stop_kill(void *p)
{
	struct op *o = p;
	o->stop = 1;
	pthread_kill(o->worker, SIGVTALRM);
}

/* the condition-variable wake-up: fine without the flag, not with it */
static void stop_cond(void *p)
{
	struct op *o = p;
	pthread_mutex_lock(&o->mu); /* expect: ubf-not-async-safe */ /* expect-msg: waits for a lock */
	o->stop = 1;
	pthread_cond_signal(&o->cv); /* expect: ubf-not-async-safe */ /* expect-msg: 'pthread_cond_signal' is not async-signal-safe (POSIX.1-2017 2.4.3, signal-safety(7)), but the call passes RB_NOGVL_UBF_ASYNC_SAFE */
	pthread_mutex_unlock(&o->mu); /* expect: ubf-not-async-safe */
}

static void stop_cond_plain(void *p)
{
	struct op *o = p;
	pthread_mutex_lock(&o->mu);
	o->stop = 1;
	pthread_cond_signal(&o->cv);
	pthread_mutex_unlock(&o->mu);
}

static void stop_format(void *p)
{
	struct op *o = p;
	o->stop = 1;
	snprintf(o->msg, sizeof(o->msg), "stopped at %ld", o->n); /* expect: ubf-not-async-safe */ /* expect-msg: 'snprintf' is not async-signal-safe */
}

static void *run_nogvl(void *p)
{
	struct op *o = p;
	o->worker = pthread_self();
	pthread_mutex_lock(&o->mu);
	while (!o->stop)
		pthread_cond_wait(&o->cv, &o->mu);
	pthread_mutex_unlock(&o->mu);
	return NULL;
}

VALUE async_safe_sites(VALUE self)
{
	struct op o = {0};
	rb_nogvl(run_nogvl, &o, stop_pipe, &o, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_nogvl(run_nogvl, &o, stop_kill, &o, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_nogvl(run_nogvl, &o, stop_cond, &o, RB_NOGVL_UBF_ASYNC_SAFE | RB_NOGVL_INTR_FAIL);
	rb_nogvl(run_nogvl, &o, stop_cond_plain, &o, 0);
	rb_thread_call_without_gvl(run_nogvl, &o, stop_format, &o); /* not strict: snprintf is fine here */
	rb_nogvl(run_nogvl, &o, stop_format, &o, RB_NOGVL_UBF_ASYNC_SAFE);
	return LONG2NUM(o.n);
}
