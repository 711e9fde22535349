/* A UBF that takes a lock: Ruby calls it on the interrupting thread under the
 * target's interrupt lock (or from a signal handler), so a lock the callback
 * holds stalls the VM. Direct, through a spin lock, around a pipe write.
 * Traps: a trylock, the condition-variable wake-up (lock, flag, signal,
 * unlock: the recognised pattern without RB_NOGVL_UBF_ASYNC_SAFE), an
 * atomic flag. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <threads.h>
#include <unistd.h>

struct task {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_spinlock_t sl;
	mtx_t cm;
	int wake[2];
	int fd;
	int cancel;
	int acancel;
	char buf[64];
	ssize_t n;
};

static void stop_locked(void *p)
{
	struct task *t = p;
	pthread_mutex_lock(&t->mu); /* expect: ubf-not-async-safe */ /* expect-msg: 'pthread_mutex_lock' waits for a lock in the unblocking function 'stop_locked' */
	t->cancel = 1;
	pthread_mutex_unlock(&t->mu);
}

static void stop_spin(void *p)
{
	struct task *t = p;
	pthread_spin_lock(&t->sl); /* expect: ubf-not-async-safe */ /* expect-msg: 'pthread_spin_lock' waits for a lock */
	t->cancel = 1;
	pthread_spin_unlock(&t->sl);
}

static void stop_pipe_locked(void *p)
{
	struct task *t = p;
	char b = 1;
	pthread_mutex_lock(&t->mu); /* expect: ubf-not-async-safe */
	(void)!write(t->wake[1], &b, 1);
	pthread_mutex_unlock(&t->mu);
}

static void stop_c11(void *p)
{
	struct task *t = p;
	mtx_lock(&t->cm); /* expect: ubf-not-async-safe */ /* expect-msg: 'mtx_lock' waits for a lock */
	t->cancel = 1;
	mtx_unlock(&t->cm);
}

static void stop_try(void *p)
{
	struct task *t = p;
	if (pthread_mutex_trylock(&t->mu) == 0) {
		t->cancel = 1;
		pthread_mutex_unlock(&t->mu);
	}
}

static void stop_cond(void *p)
{
	struct task *t = p;
	pthread_mutex_lock(&t->mu);
	t->cancel = 1;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

static void stop_atomic(void *p)
{
	struct task *t = p;
	__atomic_store_n(&t->acancel, 1, __ATOMIC_SEQ_CST);
}

static void *loop_nogvl(void *p)
{
	struct task *t = p;
	while (!t->cancel && !__atomic_load_n(&t->acancel, __ATOMIC_SEQ_CST)) {
		t->n = read(t->fd, t->buf, sizeof(t->buf));
		if (t->n <= 0)
			break;
	}
	return NULL;
}

static void *wait_nogvl(void *p)
{
	struct task *t = p;
	pthread_mutex_lock(&t->mu);
	while (!t->cancel)
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

struct task *task_of(VALUE self);

static VALUE task_run(VALUE self)
{
	struct task *t = task_of(self);
	rb_thread_call_without_gvl(loop_nogvl, t, stop_locked, t);
	rb_thread_call_without_gvl(loop_nogvl, t, stop_spin, t);
	rb_thread_call_without_gvl(loop_nogvl, t, stop_pipe_locked, t);
	rb_thread_call_without_gvl(loop_nogvl, t, stop_c11, t);
	rb_thread_call_without_gvl(loop_nogvl, t, stop_try, t); /* expect: offload-candidate */
	rb_thread_call_without_gvl(wait_nogvl, t, stop_cond, t);
	rb_thread_call_without_gvl(loop_nogvl, t, stop_atomic, t); /* expect: offload-candidate */
	return self;
}

void Init_takes_mutex(void)
{
	rb_define_method(rb_cObject, "task_run", task_run, 0);
}
