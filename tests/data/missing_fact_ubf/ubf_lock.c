/* A site whose only missing fact is evidence of the unblocking-function gate:
 * the UBF takes a mutex before it sets the flag (tests/cli/missing_fact.sh; not in missing_fact/: its
 * ubf-not-async-safe error would change that run's exit status). */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>

struct waiter {
	pthread_mutex_t mu;
	int stop;
	long n;
};

static void *wait_cb(void *p)
{
	struct waiter *w = p;
	for (long i = 0; i < 1000 && !w->stop; i++)
		w->n += i;
	return NULL;
}

static void wait_ubf(void *p)
{
	struct waiter *w = p;
	pthread_mutex_lock(&w->mu);
	w->stop = 1;
	pthread_mutex_unlock(&w->mu);
}

static VALUE run_wait(VALUE self)
{
	struct waiter w = {PTHREAD_MUTEX_INITIALIZER, 0, 0};
	rb_nogvl(wait_cb, &w, wait_ubf, &w, 0);
	return LONG2NUM(w.n);
}

void Init_ubf_lock(void)
{
	rb_define_method(rb_cObject, "run_wait", run_wait, 0);
}
