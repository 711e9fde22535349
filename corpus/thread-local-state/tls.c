/* Thread-local state in callbacks marked RB_NOGVL_OFFLOAD_SAFE: the worker
 * thread has its own copy. Each flagged callback has an unflagged twin that
 * must stay silent (the callback then runs on the calling thread). */
#include <ruby.h>
#include <ruby/thread.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

static __thread int depth;
static _Thread_local const char *current_name;
static pthread_key_t ctx_key;

struct job {
	long n;
	pthread_t owner;
	locale_t loc;
};

/* set by the caller before the call, read in the callback */
static void *uses_tls(void *p)
{
	struct job *j = p;
	j->n = depth; /* expect: thread-local-state */ /* expect-msg: 'uses_tls' uses thread-local variable 'depth': with RB_NOGVL_OFFLOAD_SAFE the callback may run on a worker thread */
	if (current_name) /* expect: thread-local-state */
		j->n++;
	j->n += depth;                    /* the same variable again in this function: reported once */
	return NULL;
}

static void *uses_specific(void *p)
{
	struct job *j = p;
	void *ctx = pthread_getspecific(ctx_key); /* expect: thread-local-state */ /* expect-msg: uses thread-specific data with 'pthread_getspecific' */
	j->n = ctx != NULL;
	return NULL;
}

static void *uses_identity(void *p)
{
	struct job *j = p;
	if (pthread_equal(pthread_self(), j->owner)) /* expect: thread-local-state */ /* expect-msg: asks for the running thread's identity with 'pthread_self' */
		j->n = 1;
	j->n += gettid(); /* expect: thread-local-state */
	return NULL;
}

/* the caller's locale (set with uselocale on its thread) is not the worker's */
static void *uses_locale(void *p)
{
	struct job *j = p;
	j->loc = duplocale(uselocale((locale_t)0)); /* expect: thread-local-state */ /* expect-msg: depends on the thread's locale through 'uselocale' */
	return NULL;
}

/* blocks SIGPIPE on the running thread and leaves it blocked */
static void *uses_sigmask(void *p)
{
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, &old); /* expect: thread-local-state */ /* expect-msg: depends on the thread's signal mask through 'pthread_sigmask' */
	(void)p;
	return NULL;
}

/* switching the locale and the signal mask and restoring both before
 * returning only touches the thread the callback runs on: fine */
static void *scoped_locale_and_mask(void *p)
{
	struct job *j = p;
	sigset_t set, old;
	locale_t prev = uselocale(j->loc);
	sigemptyset(&set);
	sigaddset(&set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	j->n = write(1, "x", 1);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	uselocale(prev);
	return NULL;
}

/* A seed set first and cleared last inside the callback: every read sees
 * this run's value, on whatever thread it runs. Fine with the flag. */
static long seeded_read(void)
{
	return depth * 2;
}

static void *seeded(void *p)
{
	struct job *j = p;
	depth = (int)j->n;
	j->n = seeded_read();
	depth = 0;
	return NULL;
}

static void *seeded_specific(void *p)
{
	struct job *j = p;
	pthread_setspecific(ctx_key, j);
	j->n = pthread_getspecific(ctx_key) != NULL;
	pthread_setspecific(ctx_key, NULL);
	return NULL;
}

static VALUE
run_flagged(VALUE self)
{
	struct job j = {0};
	j.owner = pthread_self();
	depth = 1;
	rb_nogvl(uses_tls, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, small-work-nogvl */
	rb_nogvl(uses_specific, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	rb_nogvl(uses_identity, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	rb_nogvl(uses_locale, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	rb_nogvl(uses_sigmask, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	rb_nogvl(seeded, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: small-work-nogvl */
	rb_nogvl(seeded_specific, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	rb_nogvl(scoped_locale_and_mask, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	return LONG2NUM(j.n);
}

/* the unflagged twins, and flags the tool cannot read: silent */
static VALUE
run_plain(VALUE self, VALUE flags)
{
	struct job j = {0};
	int f = NUM2INT(flags);
	j.owner = pthread_self();
	rb_thread_call_without_gvl(uses_tls, &j, NULL, NULL); /* expect: small-work-nogvl */
	rb_nogvl(uses_specific, &j, NULL, NULL, 0);
	rb_thread_call_without_gvl2(uses_identity, &j, NULL, NULL);
	rb_nogvl(uses_locale, &j, NULL, NULL, RB_NOGVL_INTR_FAIL);
	rb_nogvl(uses_sigmask, &j, NULL, NULL, f);
	return LONG2NUM(j.n);
}

void Init_tls(void)
{
	pthread_key_create(&ctx_key, NULL);
	rb_define_method(rb_cObject, "run_flagged", run_flagged, 0);
	rb_define_method(rb_cObject, "run_plain", run_plain, 1);
}
