/* measures: ubf-not-async-safe. Held-out shapes (bench/rule-recall/measure):
 * the label sits on the offending call inside the UBF. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <threads.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>
#include <unistd.h>

struct req {
	volatile int stop;
	int wake_wr;
	long n, out;
	VALUE owner;
	pthread_mutex_t m;
	pthread_cond_t cv;
	mtx_t cm;
	sem_t sem;
	pthread_t th;
	pthread_rwlock_t rw;
	char *msg;
};

static void *work(void *p)
{
	struct req *r = p;
	for (long i = 0; i < r->n && !r->stop; i++)
		r->out += i;
	return NULL;
}

static void u_mutex(void *p)
{
	struct req *r = p;
	pthread_mutex_lock(&r->m); /* want: ubf-not-async-safe */
	r->stop = 1;
	pthread_mutex_unlock(&r->m);
}

static void u_malloc(void *p)
{
	struct req *r = p;
	r->msg = malloc(32); /* want: ubf-not-async-safe */
	r->stop = 1;
}

static void u_printf(void *p)
{
	struct req *r = p;
	fprintf(stderr, "cancel\n"); /* want: ubf-not-async-safe */
	r->stop = 1;
}

static void u_ruby(void *p)
{
	struct req *r = p;
	rb_ivar_set(r->owner, rb_intern("@cancelled"), Qtrue); /* want: ubf-not-async-safe */
	r->stop = 1;
}

static void u_c11(void *p)
{
	struct req *r = p;
	mtx_lock(&r->cm); /* want: ubf-not-async-safe */
	r->stop = 1;
	mtx_unlock(&r->cm);
}

static void u_free(void *p)
{
	struct req *r = p;
	free(r->msg); /* want: ubf-not-async-safe */
	r->stop = 1;
}

static void u_syslog(void *p)
{
	struct req *r = p;
	syslog(LOG_INFO, "cancelled"); /* want: ubf-not-async-safe */
	r->stop = 1;
}

static void u_cond_async(void *p)
{
	struct req *r = p;
	r->stop = 1;
	pthread_cond_signal(&r->cv); /* want: ubf-not-async-safe */
}

static void u_rwlock(void *p)
{
	struct req *r = p;
	pthread_rwlock_wrlock(&r->rw); /* want: ubf-not-async-safe */
	r->stop = 1;
	pthread_rwlock_unlock(&r->rw);
}

static void note_cancel(struct req *r)
{
	puts("cancel"); /* want: ubf-not-async-safe */
	r->stop = 1;
}
static void u_helper(void *p)
{
	note_cancel(p);
}

/* traps */
static void t_flag(void *p)
{
	struct req *r = p;
	r->stop = 1;
}

static void t_pipe(void *p)
{
	struct req *r = p;
	char c = 1;
	r->stop = 1;
	(void)write(r->wake_wr, &c, 1);
}

static void t_kill(void *p)
{
	struct req *r = p;
	r->stop = 1;
	pthread_kill(r->th, SIGUSR1);
}

static void t_sem(void *p)
{
	struct req *r = p;
	r->stop = 1;
	sem_post(&r->sem);
}

static void t_condvar(void *p)
{
	struct req *r = p;
	pthread_mutex_lock(&r->m);
	r->stop = 1;
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->m);
}

static void t_atomic(void *p)
{
	struct req *r = p;
	__atomic_store_n(&r->stop, 1, __ATOMIC_SEQ_CST);
}

static VALUE us_run(VALUE self)
{
	struct req r = {0};
	r.owner = self;
	rb_thread_call_without_gvl(work, &r, u_mutex, &r);
	rb_thread_call_without_gvl(work, &r, u_malloc, &r);
	rb_thread_call_without_gvl(work, &r, u_printf, &r);
	rb_thread_call_without_gvl(work, &r, u_ruby, &r);
	rb_thread_call_without_gvl(work, &r, u_c11, &r);
	rb_thread_call_without_gvl(work, &r, u_free, &r);
	rb_thread_call_without_gvl(work, &r, u_syslog, &r);
	rb_nogvl(work, &r, u_cond_async, &r, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_thread_call_without_gvl(work, &r, u_rwlock, &r);
	rb_thread_call_without_gvl(work, &r, u_helper, &r);
	rb_nogvl(work, &r, t_flag, &r, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_nogvl(work, &r, t_pipe, &r, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_nogvl(work, &r, t_kill, &r, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_nogvl(work, &r, t_sem, &r, RB_NOGVL_UBF_ASYNC_SAFE);
	rb_thread_call_without_gvl(work, &r, t_condvar, &r);
	rb_nogvl(work, &r, t_atomic, &r, RB_NOGVL_UBF_ASYNC_SAFE);
	return LONG2NUM(r.out);
}

void Init_ubf_async(void)
{
	rb_define_method(rb_cObject, "us_run", us_run, 0);
}
