/* Input of tests/unit/test_ubf.c: one release site per UBF shape; the test
 * checks gate_check_ubf's state for each, by the UBF's name. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

struct g {
	volatile int stop;
	int wake_w;
	pthread_t th;
	pthread_t caller;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	VALUE obj;
	long n;
};

struct lib;
void lib_cancel(struct lib *l);
static __thread int tls_hits;

static void *work(void *p)
{
	struct g *a = p;
	a->th = pthread_self();
	while (!a->stop)
		a->n++;
	return NULL;
}

static void ubf_flag_pipe(void *p)
{
	struct g *a = p;
	char c = 1;
	a->stop = 1;
	(void)write(a->wake_w, &c, 1);
}

static void ubf_kill_own(void *p)
{
	struct g *a = p;
	pthread_kill(a->th, SIGVTALRM);
}

static void ubf_kill_caller(void *p)
{
	struct g *a = p;
	pthread_kill(a->caller, SIGVTALRM);
}

static void ubf_self(void *p)
{
	struct g *a = p;
	if (pthread_equal(pthread_self(), a->th))
		a->stop = 1;
}

static void ubf_ruby(void *p)
{
	struct g *a = p;
	rb_funcall(a->obj, rb_intern("cancel"), 0);
}

static void ubf_cond(void *p)
{
	struct g *a = p;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_signal(&a->cv);
	pthread_mutex_unlock(&a->mu);
}

static void ubf_lib(void *p)
{
	lib_cancel((struct lib *)p);
}

static void ubf_tls(void *p)
{
	struct g *a = p;
	tls_hits++;
	a->stop = 1;
}

VALUE gate_sites(VALUE self)
{
	struct g a = {0};
	a.caller = pthread_self();
	rb_thread_call_without_gvl(work, &a, NULL, NULL);
	rb_thread_call_without_gvl(work, &a, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(work, &a, ubf_flag_pipe, &a);
	rb_thread_call_without_gvl(work, &a, ubf_kill_own, &a);
	rb_thread_call_without_gvl(work, &a, ubf_kill_caller, &a);
	rb_thread_call_without_gvl(work, &a, ubf_self, &a);
	rb_thread_call_without_gvl(work, &a, ubf_ruby, &a);
	rb_thread_call_without_gvl(work, &a, ubf_cond, &a);
	rb_thread_call_without_gvl(work, &a, ubf_lib, &a);
	rb_thread_call_without_gvl(work, &a, ubf_tls, &a);
	return LONG2NUM(a.n);
}
