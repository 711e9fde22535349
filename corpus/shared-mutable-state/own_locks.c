/* A gem's own locks: a spinlock built on an atomic exchange loop (the shape
 * event libraries bundle), and a wrapper around pthread_mutex_lock. Writes
 * between the lock and its unlock are locked; a single atomic set outside a
 * loop (a flag) is not a lock, and a write after the unlock is unlocked. */
#include <pthread.h>
#include <ruby.h>
#include <ruby/thread.h>
#include <sched.h>

typedef volatile unsigned char spin_t;

static int spin_try(spin_t *l)
{
	return __atomic_exchange_n(l, 1, __ATOMIC_SEQ_CST);
}

static void spin_lock(spin_t *l)
{
	while (spin_try(l))
		sched_yield();
}

static void spin_unlock(spin_t *l)
{
	__atomic_exchange_n(l, 0, __ATOMIC_SEQ_CST);
}

/* test-and-set directly in the loop, released by a clear */
static void tas_lock(spin_t *l)
{
	while (__atomic_test_and_set((void *)l, __ATOMIC_ACQUIRE))
		;
}

static void tas_unlock(spin_t *l)
{
	__atomic_clear((void *)l, __ATOMIC_RELEASE);
}

struct table {
	pthread_mutex_t mu;
	long entries;
};

static void table_lock(struct table *t)
{
	pthread_mutex_lock(&t->mu);
}

static void table_unlock(struct table *t)
{
	pthread_mutex_unlock(&t->mu);
}

/* sets a flag once: not a lock */
static void mark_busy(spin_t *f)
{
	__atomic_exchange_n(f, 1, __ATOMIC_SEQ_CST);
}

struct queue {
	spin_t lock;
	long head, tail;
};

static struct queue jobs;
static spin_t stats_lock;
static long processed;
static struct table table = {PTHREAD_MUTEX_INITIALIZER, 0};
static spin_t busy;
static long unguarded;
static long after_unlock;

/* one finding per function: this shape in its own helper */
static void flagged(void)
{
	mark_busy(&busy);
	unguarded++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'unguarded' */
}

static void *drain(void *p)
{
	(void)p;
	spin_lock(&jobs.lock);
	jobs.head++; /* locked by the project's own spinlock */
	jobs.tail = 0;
	spin_unlock(&jobs.lock);

	tas_lock(&stats_lock);
	processed++; /* locked */
	tas_unlock(&stats_lock);
	after_unlock++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'after_unlock' */

	table_lock(&table);
	table.entries++; /* locked through the pthread wrapper */
	table_unlock(&table);
	flagged();
	return NULL;
}

VALUE run_drain(VALUE self)
{
	rb_thread_call_without_gvl(drain, NULL, NULL, NULL);
	return Qnil;
}
