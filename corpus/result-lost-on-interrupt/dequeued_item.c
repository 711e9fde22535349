/* result-lost-on-interrupt: the callback takes an item off a shared queue
 * and returns it, but rb_thread_call_without_gvl handles pending interrupts
 * after the callback returned and raises instead of returning: the item is
 * gone from the queue and its work never runs. */
#include <pthread.h>
#include <ruby.h>
#include <ruby/thread.h>
#include <stdbool.h>
#include <stdlib.h>

struct item {
	struct item *next;
	void (*fn)(void *);
	void *arg;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct item *head;
	bool abort;
} queue = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, false};

static struct item *pop(void)
{
	struct item *it = queue.head;
	if (it)
		queue.head = it->next;
	return it;
}

static void *wait_item(void *p)
{
	struct item *it = NULL;
	(void)p;
	pthread_mutex_lock(&queue.mu);
	while (!queue.abort) {
		if ((it = pop()) != NULL)
			break;
		pthread_cond_wait(&queue.cv, &queue.mu);
	}
	pthread_mutex_unlock(&queue.mu);
	return it;
}

static void wake(void *p)
{
	(void)p;
	pthread_mutex_lock(&queue.mu);
	queue.abort = true;
	pthread_cond_signal(&queue.cv);
	pthread_mutex_unlock(&queue.mu);
}

void run_item(struct item *it);

/* bad: the item's work runs after the call, which may raise first */
static VALUE serve(VALUE self)
{
	struct item *it = rb_thread_call_without_gvl(wait_item, NULL, wake, NULL); /* expect: result-lost-on-interrupt */ /* expect-msg: loses 'it', which the callback 'wait_item' took from shared state */
	if (it == NULL)
		return Qfalse;
	it->fn(it->arg);
	free(it); /* expect: cleanup-not-ensured */
	return Qtrue;
}

/* bad: the same, with a cast and the item handed to a function */
static VALUE serve_cast(VALUE self)
{
	struct item *it = (struct item *)rb_thread_call_without_gvl(wait_item, NULL, wake, NULL); /* expect: result-lost-on-interrupt */
	if (it)
		run_item(it);
	return Qnil;
}

/* trap: RB_NOGVL_INTR_FAIL returns instead of raising; the interrupt is
 * handled after the item */
static VALUE serve_intr_fail(VALUE self)
{
	struct item *it = rb_nogvl(wait_item, NULL, wake, NULL, RB_NOGVL_INTR_FAIL);
	if (it)
		run_item(it);
	rb_thread_check_ints();
	return Qnil;
}

/* trap: rb_thread_call_without_gvl2 does not raise either */
static VALUE serve_gvl2(VALUE self)
{
	struct item *it = rb_thread_call_without_gvl2(wait_item, NULL, wake, NULL);
	if (it)
		run_item(it);
	rb_thread_check_ints();
	return Qnil;
}

/* trap: the caller only tests whether there was an item */
static VALUE has_item(VALUE self)
{
	void *it = rb_thread_call_without_gvl(wait_item, NULL, wake, NULL);
	return it ? Qtrue : Qfalse;
}

struct job {
	long n, sum;
	volatile int stop;
};

/* returns its own data, nothing taken from shared state */
static void *sum_job(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n && !j->stop; i++)
		j->sum += i;
	return j;
}

static void stop_job(void *p)
{
	((struct job *)p)->stop = 1;
}

void report_job(struct job *j);

/* trap: the result is the caller's own struct */
static VALUE sum(VALUE self, VALUE n)
{
	struct job j = {NUM2LONG(n), 0, 0};
	struct job *r = rb_thread_call_without_gvl(sum_job, &j, stop_job, &j); /* expect: offload-candidate */
	report_job(r);
	return LONG2NUM(j.sum);
}

void Init_dequeued_item(void)
{
	rb_define_method(rb_cObject, "serve", serve, 0);
	rb_define_method(rb_cObject, "serve_cast", serve_cast, 0);
	rb_define_method(rb_cObject, "serve_intr_fail", serve_intr_fail, 0);
	rb_define_method(rb_cObject, "serve_gvl2", serve_gvl2, 0);
	rb_define_method(rb_cObject, "has_item", has_item, 0);
	rb_define_method(rb_cObject, "sum", sum, 1);
}
