/* Writes through a global or static pointer: there is one pointer, so every
 * thread running the callback reaches the same object through it, whether
 * it points at a static or at memory malloc'd once. Not reported: the
 * pointee's own mutex held, an atomic builtin, a thread-local pointer, a
 * read, a local copy, and an indexed slot (g[i], g->slots[i]: the index may
 * pick a slot per thread). */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <stdlib.h>

struct stats {
	long count;
	long bytes;
	char last[16];
};

struct locked_stats {
	pthread_mutex_t mu;
	long count;
};

struct table {
	struct stats slots[8];
};

static struct stats the_stats;
static struct stats *g_stats = &the_stats;
struct stats *g_heap_stats;
static long *g_counter;
static struct locked_stats *g_locked;
static long *g_atomic;
static __thread struct stats *t_stats;
static struct stats *g_slots;
static struct table *g_table;

static void *count_request(void *p)
{
	g_stats->count++; /* expect: shared-mutable-state */ /* expect-msg: writes through static pointer 'g_stats' */
	g_stats->last[0] = 'x'; /* a second write: a note on the first */
	return p;
}

static void *add_bytes(void *p)
{
	g_heap_stats->bytes += 10; /* expect: shared-mutable-state */ /* expect-msg: writes through global pointer 'g_heap_stats' */
	return p;
}

static void reset_counter(void)
{
	*g_counter = 0; /* expect: shared-mutable-state */ /* expect-msg: writes through static pointer 'g_counter' */
}

static void *reset(void *p)
{
	reset_counter();
	return p;
}

static void *traps(void *p)
{
	long *out = p;
	long i = *out & 7;
	pthread_mutex_lock(&g_locked->mu);
	g_locked->count++;
	pthread_mutex_unlock(&g_locked->mu);
	__atomic_fetch_add(g_atomic, 1, __ATOMIC_SEQ_CST);
	if (t_stats)
		t_stats->count++;
	struct stats local = *g_stats;
	local.count++;
	g_slots[i].count = local.count;
	g_table->slots[i].bytes = 1;
	*out = g_stats->count;
	return p;
}

static VALUE run_all(VALUE self)
{
	long x = 0;
	rb_thread_call_without_gvl(count_request, NULL, NULL, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(add_bytes, NULL, NULL, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(reset, NULL, NULL, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(traps, &x, NULL, NULL);
	return LONG2NUM(x);
}

void Init_global_pointer(void)
{
	g_heap_stats = calloc(1, sizeof(*g_heap_stats));
	g_counter = calloc(1, sizeof(long));
	g_locked = calloc(1, sizeof(*g_locked));
	g_atomic = calloc(1, sizeof(long));
	g_slots = calloc(8, sizeof(*g_slots));
	g_table = calloc(1, sizeof(*g_table));
	rb_define_method(rb_cObject, "run_all", run_all, 0);
}
