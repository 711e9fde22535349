/* Writes protected by a mutex: taken in the callback, taken around a helper
 * call, held by the caller across the release, taken through another
 * library's lock wrapper, or inside pthread_once. And the early-unlock path
 * that leaves the rest of the function unprotected. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <stdbool.h>

/* another library's mutex API, as a buildless parse sees it */
typedef struct { long opaque; } lib_mu;
void lib_mu_lock(lib_mu *mu);
void lib_mu_unlock(lib_mu *mu);

struct queue {
	void *head, *tail;
	lib_mu mu;
	bool closed;
};

static struct queue q;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static long table[64];
static long misses;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int ready;

/* only called with q.mu held */
static void *dequeue(void)
{
	void *item = q.head;
	q.head = q.tail = NULL;
	return item;
}

static void init_once(void)
{
	ready = 1;
}

static void *pop_nogvl(void *p)
{
	void *item;
	(void)p;
	pthread_once(&once, init_once);
	lib_mu_lock(&q.mu);
	item = dequeue();
	if (q.closed) {
		lib_mu_unlock(&q.mu);
		return NULL;
	}
	q.closed = item == NULL;             /* still locked: the unlock above returned */
	lib_mu_unlock(&q.mu);
	return item;
}

static void *update_nogvl(void *p)
{
	long *v = p;
	pthread_mutex_lock(&table_lock);
	table[*v & 63] = *v;
	pthread_mutex_unlock(&table_lock);
	misses++; /* expect: shared-mutable-state */ /* expect-msg: 'update_nogvl' writes static 'misses' */
	return NULL;
}

/* the caller holds table_lock across the call */
static void *update_held(void *p)
{
	long *v = p;
	table[*v & 63] = 0;
	return NULL;
}

static VALUE
rb_pop(VALUE self, VALUE v)
{
	long n = NUM2LONG(v);
	rb_thread_call_without_gvl(pop_nogvl, NULL, NULL, NULL);
	rb_thread_call_without_gvl(update_nogvl, &n, NULL, NULL);
	pthread_mutex_lock(&table_lock);
	rb_thread_call_without_gvl(update_held, &n, NULL, NULL); /* expect: small-work-nogvl */
	pthread_mutex_unlock(&table_lock);
	return Qnil;
}

void Init_locked(void)
{
	rb_define_method(rb_cObject, "pop", rb_pop, 1);
}
