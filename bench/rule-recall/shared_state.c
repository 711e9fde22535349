/* measures: shared-mutable-state. Held-out shapes (bench/rule-recall/measure). */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>

struct stats {
	long calls, bytes;
};

struct ss {
	long n;
	char *out;
	struct stats *mine;
};

static long total_calls;
static struct stats global_stats;
static struct stats *stats_ptr = &global_stats;
static char scratch[256];
static long hist[16];
long exported_counter;
static struct stats *current;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static __thread long tls_calls;
static _Atomic long atomic_calls;
static const long limits[2] = {1, 2};

static void bump(long *c)
{
	(*c)++;
}

static void *ss_counter(void *p)
{
	(void)p;
	total_calls++; /* want: shared-mutable-state */
	return NULL;
}

static void *ss_struct_member(void *p)
{
	struct ss *a = p;
	global_stats.bytes += a->n; /* want: shared-mutable-state */
	return NULL;
}

static void *ss_through_pointer(void *p)
{
	struct ss *a = p;
	stats_ptr->calls = a->n; /* want: shared-mutable-state */
	return NULL;
}

static void *ss_scratch(void *p)
{
	struct ss *a = p;
	memcpy(scratch, a->out, 16); /* want: shared-mutable-state */
	return NULL;
}

static void *ss_indexed(void *p)
{
	struct ss *a = p;
	hist[a->n & 15] = 1; /* want: shared-mutable-state */
	return NULL;
}

static void *ss_exported(void *p)
{
	(void)p;
	exported_counter = 0; /* want: shared-mutable-state */
	return NULL;
}

static void *ss_helper(void *p)
{
	(void)p;
	bump(&total_calls); /* want: shared-mutable-state */
	return NULL;
}

static void *ss_local_static(void *p)
{
	static int seen;
	(void)p;
	seen = 1; /* want: shared-mutable-state */
	return NULL;
}

static void *ss_global_ptr_set(void *p)
{
	struct ss *a = p;
	current = a->mine; /* want: shared-mutable-state */
	return NULL;
}

static void *ss_local_alias(void *p)
{
	struct ss *a = p;
	struct stats *s = &global_stats;
	s->calls = a->n; /* want: shared-mutable-state */
	return NULL;
}

/* traps */
static void *tr_locked(void *p)
{
	struct ss *a = p;
	pthread_mutex_lock(&mu);
	global_stats.calls += a->n;
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *tr_tls(void *p)
{
	(void)p;
	tls_calls++;
	return NULL;
}

static void *tr_atomic(void *p)
{
	(void)p;
	atomic_fetch_add(&atomic_calls, 1);
	return NULL;
}

static void *tr_atomic_builtin(void *p)
{
	(void)p;
	__atomic_add_fetch(&total_calls, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *tr_own_struct(void *p)
{
	struct ss *a = p;
	a->mine->calls++;
	return NULL;
}

static void *tr_malloced(void *p)
{
	struct ss *a = p;
	a->out = malloc(16);
	if (a->out)
		memset(a->out, 0, 16);
	return NULL;
}

static void *tr_read_const(void *p)
{
	struct ss *a = p;
	a->n = limits[a->n & 1] + total_calls;
	return NULL;
}

static void *tr_local_buf(void *p)
{
	struct ss *a = p;
	char buf[64];
	memset(buf, 0, sizeof(buf));
	a->n = buf[0];
	return NULL;
}

static void *tr_helper_local(void *p)
{
	struct ss *a = p;
	long c = 0;
	bump(&c);
	a->n = c;
	return NULL;
}

static void *tr_gvl_guard(void *p)
{
	(void)p;
	if (ruby_thread_has_gvl_p())
		total_calls = 0;
	return NULL;
}

static VALUE ss_run(VALUE self)
{
	struct stats mine = {0};
	struct ss a = {1, NULL, &mine};
	rb_thread_call_without_gvl(ss_counter, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_struct_member, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_through_pointer, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_scratch, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_indexed, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_exported, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_helper, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_local_static, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_global_ptr_set, &a, NULL, NULL);
	rb_thread_call_without_gvl(ss_local_alias, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_locked, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_tls, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_atomic, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_atomic_builtin, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_own_struct, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_malloced, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_read_const, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_local_buf, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_helper_local, &a, NULL, NULL);
	rb_thread_call_without_gvl(tr_gvl_guard, &a, NULL, NULL);
	free(a.out);
	return LONG2NUM(a.n);
}

void Init_shared_state(void)
{
	rb_define_method(rb_cObject, "ss_run", ss_run, 0);
}
