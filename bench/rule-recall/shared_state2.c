/* measures: shared-mutable-state. Second held-out batch. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

struct cache {
	char key[32];
	long val;
};

struct req {
	long n;
	const char *key;
	char out[64];
	struct cache *mine;
};

static struct cache last;
static struct cache *cache_slot = &last;
static char errbuf[128];
static long seq;
static struct {
	long hits, misses;
} counters;
static double avg;
static time_t last_seen;
static pthread_mutex_t cmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int inited;

static void set_error(const char *msg)
{
	snprintf(errbuf, sizeof(errbuf), "%s", msg); /* want: shared-mutable-state */ /* label added after the first run: the shape was written as a positive, the label was left off */
}

static void init_once(void)
{
	inited = 1;
}

static void *r_strcpy(void *p)
{
	struct req *r = p;
	strncpy(last.key, r->key, sizeof(last.key) - 1); /* want: shared-mutable-state */
	return NULL;
}

static void *r_anon(void *p)
{
	struct req *r = p;
	if (r->n)
		counters.hits++; /* want: shared-mutable-state */
	return NULL;
}

static void *r_error_helper(void *p)
{
	struct req *r = p;
	if (!r->key)
		set_error("no key");
	return NULL;
}

static void *r_seq(void *p)
{
	struct req *r = p;
	r->n = ++seq; /* want: shared-mutable-state */
	return NULL;
}

static void *r_double(void *p)
{
	struct req *r = p;
	avg = avg * 0.9 + (double)r->n * 0.1; /* want: shared-mutable-state */
	return NULL;
}

static void *r_time(void *p)
{
	(void)p;
	time(&last_seen); /* want: shared-mutable-state */
	return NULL;
}

static void *r_slot(void *p)
{
	struct req *r = p;
	cache_slot->val = r->n; /* want: shared-mutable-state */
	return NULL;
}

/* traps */
static void *q_mutex_helper(void *p)
{
	struct req *r = p;
	pthread_mutex_lock(&cmu);
	last.val = r->n;
	pthread_mutex_unlock(&cmu);
	return NULL;
}

static void *q_once(void *p)
{
	(void)p;
	pthread_once(&once, init_once);
	return NULL;
}

static void *q_own_cache(void *p)
{
	struct req *r = p;
	strncpy(r->mine->key, r->key, sizeof(r->mine->key) - 1);
	r->mine->val = r->n;
	return NULL;
}

static void *q_out_buf(void *p)
{
	struct req *r = p;
	snprintf(r->out, sizeof(r->out), "%ld", r->n + seq);
	return NULL;
}

static void *q_time_local(void *p)
{
	struct req *r = p;
	time_t now;
	time(&now);
	r->n = (long)now;
	return NULL;
}

static VALUE r_run(VALUE self)
{
	struct cache mine = {{0}, 0};
	struct req r = {1, "k", {0}, &mine};
	rb_thread_call_without_gvl(r_strcpy, &r, NULL, NULL);
	rb_thread_call_without_gvl(r_anon, &r, NULL, NULL);
	rb_thread_call_without_gvl(r_error_helper, &r, NULL, NULL);
	rb_thread_call_without_gvl(r_seq, &r, NULL, NULL);
	rb_thread_call_without_gvl(r_double, &r, NULL, NULL);
	rb_thread_call_without_gvl(r_time, &r, NULL, NULL);
	rb_thread_call_without_gvl(r_slot, &r, NULL, NULL);
	rb_thread_call_without_gvl(q_mutex_helper, &r, NULL, NULL);
	rb_thread_call_without_gvl(q_once, &r, NULL, NULL);
	rb_thread_call_without_gvl(q_own_cache, &r, NULL, NULL);
	rb_thread_call_without_gvl(q_out_buf, &r, NULL, NULL);
	rb_thread_call_without_gvl(q_time_local, &r, NULL, NULL);
	return LONG2NUM(r.n);
}

void Init_shared_state2(void)
{
	rb_define_method(rb_cObject, "r_run", r_run, 0);
}
