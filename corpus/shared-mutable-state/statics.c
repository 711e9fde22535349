/* Writes to globals, file statics and static locals from a callback that runs
 * without the GVL; and the writes that are fine (const data, reads, atomics,
 * writes under a mutex, the declaration of a static local). */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

long total_bytes;                         /* global */
static int calls;                         /* file static */
static struct { long hits, misses; } stats;
static char last_error[128];
static const int crc_table[4] = {0, 1, 2, 3};
static _Atomic long atomic_calls;
static long builtin_calls;
static atomic_long c11_calls;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static long cache_size;

struct job {
	const char *in;
	size_t len;
	unsigned long sum;
};

/* One finding per function: the other unlocked writes of a function are
 * notes on its first; these helpers each have one kind of write. */
static void format_sum(char *scratch, size_t n, unsigned long sum)
{
	(void)scratch;
	(void)n;
	static char out[64];
	snprintf(out, sizeof(out), "%lu", sum); /* expect: shared-mutable-state */ /* expect-msg: writes static local 'out' with 'snprintf' */
	out[0] = 'x';                     /* the same static again in this function: a note on the first write */
}

static void clear_error(void)
{
	memset(last_error, 0, sizeof(last_error)); /* expect: shared-mutable-state */ /* expect-msg: writes static 'last_error' with 'memset' */
}

static void count_run(void)
{
	static int runs = 0;                  /* the initialiser is not a write */
	runs = runs + 1;                      /* expect: shared-mutable-state */ /* expect-msg: writes static local 'runs' */
}

static void *checksum(void *p)
{
	struct job *j = p;
	static char scratch[64];              /* the declaration is not a write */
	unsigned long sum = 0;
	for (size_t i = 0; i < j->len; i++)
		sum += (unsigned char)j->in[i] ^ (unsigned long)crc_table[i & 3]; /* const table: read */
	j->sum = sum;                         /* the caller's per-call data: fine */
	calls++;                              /* expect: shared-mutable-state */ /* expect-msg: 'checksum' writes static 'calls' */
	total_bytes += (long)j->len;          /* one finding per function: a note on the first */
	stats.hits = stats.hits + 1;          /* a note */
	count_run();
	format_sum(scratch, sizeof(scratch), sum);
	clear_error();
	if (total_bytes > 100)                /* a read: fine */
		sum++;
	atomic_calls++;                       /* _Atomic: fine */
	__atomic_fetch_add(&builtin_calls, 1, __ATOMIC_RELAXED); /* atomic builtin: fine */
	__sync_fetch_and_add(&builtin_calls, 1);                 /* fine */
	atomic_fetch_add(&c11_calls, 1);                         /* fine */
	pthread_mutex_lock(&cache_lock);
	cache_size += (long)j->len;           /* under a mutex: fine */
	stats.misses++;                       /* fine */
	pthread_mutex_unlock(&cache_lock);
	return NULL;
}

static VALUE
rb_checksum(VALUE self, VALUE str)
{
	struct job j = {0};
	str = rb_str_new_frozen(str);
	j.in = RSTRING_PTR(str);
	j.len = (size_t)RSTRING_LEN(str);
	rb_thread_call_without_gvl(checksum, &j, NULL, NULL);
	RB_GC_GUARD(str);
	calls++;                              /* with the GVL: fine */
	return ULONG2NUM(j.sum);
}

void Init_statics(void)
{
	rb_define_method(rb_cObject, "checksum", rb_checksum, 1);
}
