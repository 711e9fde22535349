/* ubf-ignored: a custom UBF whose flag nothing reads, or whose pipe nothing
 * waits on: cancelling cannot shorten the callback. */
#include <ruby.h>
#include <ruby/thread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

struct hash_job {
	const unsigned char *p;
	size_t n;
	unsigned long h;
	volatile int stop;
	_Atomic int cancel;
	int wake_r, wake_w;
};

static volatile sig_atomic_t hash_stop;

static void set_stop(void *p)
{
	struct hash_job *j = p;
	j->stop = 1;
}

static void set_cancel_atomic(void *p)
{
	struct hash_job *j = p;
	atomic_store(&j->cancel, 1);
}

static void wake_only(void *p)
{
	struct hash_job *j = p;
	char c = 1;
	(void)write(j->wake_w, &c, 1);
}

static void stop_and_wake(void *p)
{
	struct hash_job *j = p;
	char c = 1;
	j->stop = 1;
	(void)write(j->wake_w, &c, 1);
}

static void set_global(void *p)
{
	(void)p;
	hash_stop = 1;
}

/* never looks at any flag or descriptor */
static void *hash_nogvl(void *p)
{
	struct hash_job *j = p;
	for (size_t i = 0; i < j->n; i++)
		j->h = (j->h ^ j->p[i]) * 1099511628211UL;
	return NULL;
}

VALUE hash_sites(VALUE self, VALUE str)
{
	struct hash_job j = {0};
	j.p = (const unsigned char *)RSTRING_PTR(str); /* expect: unfrozen-input */
	j.n = (size_t)RSTRING_LEN(str);
	rb_thread_call_without_gvl(hash_nogvl, &j, set_stop, &j); /* expect: ubf-ignored */ /* expect-msg: the unblocking function 'set_stop' sets 'stop', but nothing reads it */ /* expect-msg: the callback 'hash_nogvl' never checks it */
	rb_thread_call_without_gvl(hash_nogvl, &j, set_cancel_atomic, &j); /* expect: ubf-ignored */ /* expect-msg: sets 'cancel' */
	rb_thread_call_without_gvl(hash_nogvl, &j, wake_only, &j); /* expect: ubf-ignored */ /* expect-msg: writes to a pipe or eventfd, but the callback 'hash_nogvl' never waits on it */
	rb_thread_call_without_gvl(hash_nogvl, &j, stop_and_wake, &j); /* expect: ubf-ignored */ /* expect-msg: sets 'stop' and writes to a pipe */
	rb_nogvl(hash_nogvl, &j, set_global, NULL, RB_NOGVL_UBF_ASYNC_SAFE); /* expect: ubf-ignored */ /* expect-msg: sets 'hash_stop' */
	RB_GC_GUARD(str);
	return ULONG2NUM(j.h);
}

/* The callback hands the library only its handle: the library cannot see the
 * flag the UBF sets. */
struct db;
int db_run(struct db *h);

struct db_job {
	struct db *h;
	volatile int cancelled;
	int rc;
};

static void db_cancel(void *p)
{
	struct db_job *j = p;
	j->cancelled = 1;
}

static void *db_nogvl(void *p)
{
	struct db_job *j = p;
	j->rc = db_run(j->h);
	return NULL;
}

VALUE db_exec(VALUE self)
{
	struct db_job j = {0};
	rb_thread_call_without_gvl(db_nogvl, &j, db_cancel, &j); /* expect: ubf-ignored */
	return INT2NUM(j.rc);
}
