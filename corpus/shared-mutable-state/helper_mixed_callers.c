/* nogvl-lint-test: --disable small-work-nogvl,offload-candidate */
/* A helper that writes through its pointer parameter, called with a static's
 * address from one callback and with the caller's own memory from another:
 * the helper's write is not always shared, so the call that hands it the
 * static is the finding. Traps: a local, the callback's data, a call under a
 * mutex, and a helper that only reads. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>

struct tally {
	long n;
	long hits;
};

static long calls;
static struct tally totals;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void add_one(long *c)
{
	(*c)++;
}

static void add_hits(struct tally *t, long n)
{
	t->hits += n;
}

static long peek(const long *c)
{
	return *c;
}

static void *count_shared(void *p)
{
	struct tally *t = p;
	add_one(&calls); /* expect: shared-mutable-state */ /* expect-msg: writes static 'calls' with 'add_one' */
	add_hits(&totals, t->n); /* the same function's second write: a note on the first */
	return NULL;
}

static void *count_own(void *p)
{
	struct tally *t = p;
	long local = 0;
	add_one(&local);
	add_one(&t->n);
	add_hits(t, local);
	t->n = peek(&calls);
	return NULL;
}

static void *count_locked(void *p)
{
	(void)p;
	pthread_mutex_lock(&mu);
	add_one(&calls);
	pthread_mutex_unlock(&mu);
	return NULL;
}

static VALUE tally_run(VALUE self)
{
	struct tally t = {1, 0};
	rb_thread_call_without_gvl(count_shared, &t, NULL, NULL);
	rb_thread_call_without_gvl(count_own, &t, NULL, NULL);
	rb_thread_call_without_gvl(count_locked, &t, NULL, NULL);
	return LONG2NUM(t.hits);
}

void Init_helper_mixed_callers(void)
{
	rb_define_method(rb_cObject, "tally_run", tally_run, 0);
}
