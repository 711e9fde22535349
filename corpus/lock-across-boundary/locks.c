/* Mutexes locked on one side of a flagged release call and unlocked on the
 * other. Every flagged case has an unflagged twin that stays silent (the
 * callback then runs on the thread that owns the lock). */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

static pthread_mutex_t db_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
static long stats;

struct conn {
	pthread_mutex_t lock;
	int busy;
	long rows;
};

/* the caller locked db_lock before the call */
static void *query_and_unlock(void *p)
{
	long *rows = p;
	*rows = 42;
	pthread_mutex_unlock(&db_lock); /* expect: lock-across-boundary */ /* expect-msg: 'query_and_unlock' unlocks mutex 'db_lock' that the caller locked before the GVL was released */
	return NULL;
}

/* locks, and the caller unlocks after the call */
static void *lock_for_caller(void *p)
{
	struct conn *c = p;
	pthread_mutex_lock(&c->lock); /* expect: lock-across-boundary */ /* expect-msg: 'lock_for_caller' locks mutex 'c->lock' and leaves it locked for the caller to unlock */
	c->busy = 1;
	return NULL;
}

/* waits on a condition with the caller's mutex */
static void *wait_ready(void *p)
{
	struct conn *c = p;
	while (!c->busy)
		pthread_cond_wait(&ready, &c->lock); /* expect: lock-across-boundary, uninterruptible-blocking */ /* expect-msg: waits on a condition with mutex 'c->lock' that the caller locked */
	return NULL;
}

/* the caller holds db_lock: dropping it for the slow part and taking it
 * back still unlocks the caller's lock from this thread */
static void *drop_and_retake(void *p)
{
	long *rows = p;
	pthread_mutex_unlock(&db_lock); /* expect: lock-across-boundary */
	*rows = 7;
	pthread_mutex_lock(&db_lock);
	return NULL;
}

/* balanced inside the callback: fine */
static void *count(void *p)
{
	(void)p;
	pthread_mutex_lock(&stats_lock);
	stats++;
	pthread_mutex_unlock(&stats_lock);
	return NULL;
}

static VALUE
flagged(VALUE self)
{
	long rows = 0;
	struct conn c = {0};
	pthread_mutex_init(&c.lock, NULL);
	pthread_mutex_lock(&db_lock);
	rb_nogvl(query_and_unlock, &rows, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	rb_nogvl(lock_for_caller, &c, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	c.rows = rows;
	pthread_mutex_unlock(&c.lock);
	pthread_mutex_lock(&c.lock);
	rb_nogvl(wait_ready, &c, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	pthread_mutex_unlock(&c.lock);
	rb_nogvl(count, NULL, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	pthread_mutex_lock(&db_lock);
	rb_nogvl(drop_and_retake, &rows, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	pthread_mutex_unlock(&db_lock);
	/* held around the call, never touched by the callback: not this rule */
	pthread_mutex_lock(&db_lock);
	rb_nogvl(count, NULL, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	pthread_mutex_unlock(&db_lock);
	return LONG2NUM(c.rows);
}

static VALUE
plain(VALUE self)
{
	long rows = 0;
	struct conn c = {0};
	pthread_mutex_init(&c.lock, NULL);
	pthread_mutex_lock(&db_lock);
	rb_thread_call_without_gvl(query_and_unlock, &rows, NULL, NULL);
	rb_nogvl(lock_for_caller, &c, NULL, NULL, 0);
	pthread_mutex_unlock(&c.lock);
	pthread_mutex_lock(&c.lock);
	rb_thread_call_without_gvl2(wait_ready, &c, NULL, NULL);
	pthread_mutex_unlock(&c.lock);
	pthread_mutex_lock(&db_lock);
	rb_nogvl(drop_and_retake, &rows, NULL, NULL, 0);
	pthread_mutex_unlock(&db_lock);
	return LONG2NUM(rows);
}

void Init_locks(void)
{
	rb_define_method(rb_cObject, "flagged", flagged, 0);
	rb_define_method(rb_cObject, "plain", plain, 0);
}
