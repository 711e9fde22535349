/* uninterruptible-blocking traps around the gem's own threads: waiting for a
 * worker the gem started (a join at shutdown, a condition variable the worker
 * signals when its job is done) is not reported, and a blocking read in the
 * worker's start routine runs on that thread, not in the callback. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <unistd.h>

struct pool {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t done_cv;
	int done;
	int fd;
	char buf[64];
	long n;
};

static void *worker_main(void *p)
{
	struct pool *pl = p;
	pl->n = read(pl->fd, pl->buf, sizeof(pl->buf));
	pthread_mutex_lock(&pl->mu);
	pl->done = 1;
	pthread_cond_signal(&pl->done_cv);
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

static void *start_and_wait_nogvl(void *p)
{
	struct pool *pl = p;
	pthread_create(&pl->th, NULL, worker_main, pl);
	pthread_mutex_lock(&pl->mu);
	while (!pl->done)
		pthread_cond_wait(&pl->done_cv, &pl->mu);
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

static void *join_nogvl(void *p)
{
	struct pool *pl = p;
	pthread_join(pl->th, NULL);
	return NULL;
}

VALUE pool_run(VALUE self)
{
	struct pool pl = {0};
	rb_thread_call_without_gvl(start_and_wait_nogvl, &pl, NULL, NULL);
	rb_thread_call_without_gvl(join_nogvl, &pl, NULL, NULL);
	return LONG2NUM(pl.n);
}
