/* measures: ubf-not-async-safe. Second held-out batch: allocation, stdio,
 * locks and Ruby API reached in other ways, and async-safe traps. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <errno.h>

struct op {
	volatile int stop;
	int wfd;
	long n, out;
	char *note;
	VALUE self;
	pthread_spinlock_t spin;
	pthread_mutex_t m;
	pthread_t th;
};

static void *op_work(void *p)
{
	struct op *o = p;
	for (long i = 0; i < o->n && !o->stop; i++)
		o->out += i;
	return NULL;
}

static void a_calloc(void *p)
{
	struct op *o = p;
	o->note = calloc(1, 8); /* want: ubf-not-async-safe */
	o->stop = 1;
}

static void a_snprintf(void *p)
{
	struct op *o = p;
	char buf[32];
	snprintf(buf, sizeof(buf), "%ld", o->n); /* trap: relabelled after the first run: without RB_NOGVL_UBF_ASYNC_SAFE only Ruby API, allocation, locks and stdio count (rules/docs/ubf-not-async-safe.md), and snprintf takes no stream lock */
	o->stop = 1;
}

static void a_strdup(void *p)
{
	struct op *o = p;
	o->note = strdup("cancelled"); /* want: ubf-not-async-safe */
	o->stop = 1;
}

static void a_spin(void *p)
{
	struct op *o = p;
	pthread_spin_lock(&o->spin); /* want: ubf-not-async-safe */
	o->stop = 1;
	pthread_spin_unlock(&o->spin);
}

static void a_raise(void *p)
{
	struct op *o = p;
	o->stop = 1;
	rb_raise(rb_eInterrupt, "cancelled"); /* want: ubf-not-async-safe */
}

static void a_trylock(void *p)
{
	struct op *o = p;
	if (pthread_mutex_trylock(&o->m) == 0) { /* trap: relabelled after the first run: a trylock never waits, and without RB_NOGVL_UBF_ASYNC_SAFE the rule reports waits */
		o->stop = 1;
		pthread_mutex_unlock(&o->m);
	}
}

static void a_perror(void *p)
{
	struct op *o = p;
	perror("cancel"); /* want: ubf-not-async-safe */
	o->stop = 1;
}

static void a_funcall(void *p)
{
	struct op *o = p;
	rb_funcall(o->self, rb_intern("cancel!"), 0); /* want: ubf-not-async-safe */
}

/* traps: async-signal-safe */
static void s_errno(void *p)
{
	struct op *o = p;
	int saved = errno;
	char b = 1;
	o->stop = 1;
	(void)write(o->wfd, &b, 1);
	errno = saved;
}

static void s_raise_signal(void *p)
{
	struct op *o = p;
	o->stop = 1;
	pthread_kill(o->th, SIGVTALRM);
}

static void s_memcpy(void *p)
{
	struct op *o = p;
	long v = 1;
	memcpy((void *)&o->stop, &v, sizeof(int));
}

static void s_sync(void *p)
{
	struct op *o = p;
	__sync_lock_test_and_set(&o->stop, 1);
}

static VALUE op_run(VALUE self)
{
	struct op o = {0};
	o.self = self;
	rb_thread_call_without_gvl(op_work, &o, a_calloc, &o);
	rb_thread_call_without_gvl(op_work, &o, a_snprintf, &o);
	rb_thread_call_without_gvl(op_work, &o, a_strdup, &o);
	rb_thread_call_without_gvl(op_work, &o, a_spin, &o);
	rb_thread_call_without_gvl(op_work, &o, a_raise, &o);
	rb_thread_call_without_gvl(op_work, &o, a_trylock, &o);
	rb_thread_call_without_gvl(op_work, &o, a_perror, &o);
	rb_thread_call_without_gvl(op_work, &o, a_funcall, &o);
	rb_nogvl(op_work, &o, s_errno, &o, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_nogvl(op_work, &o, s_raise_signal, &o, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_nogvl(op_work, &o, s_memcpy, &o, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_nogvl(op_work, &o, s_sync, &o, RB_NOGVL_UBF_ASYNC_SAFE);
	return LONG2NUM(o.out);
}

void Init_ubf_async2(void)
{
	rb_define_method(rb_cObject, "op_run", op_run, 0);
}
