/* A branch taken only by the first thread to bump or swap a flag
 * (`if (0 == atomic_fetch_add(&started, 1))`) runs at most once in the
 * process, like pthread_once's routine: its writes, and those of what only
 * that branch calls, are not concurrent with themselves. Not once: a flag
 * the gem resets, a counter compared with anything but 0, the branch for the
 * later callers, and a local flag. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_int started;
static atomic_int closed;
static atomic_int rearmed;
static atomic_int hits;
static int done_flag;
static char *log_buf;
static int log_fd = -1;
static int pool_size;
static int rearm_count;
static int hit_count;
static int late_count;
static int local_count;

/* reached only from the once-branch of stop_all */
static void close_log(void)
{
	free(log_buf);
	log_buf = NULL;
	log_fd = -1;
}

static void stop_all(void)
{
	if (0 == atomic_fetch_add(&started, 1)) {
		close_log();
		pool_size = 0;
	}
	if (atomic_exchange(&closed, 1) == 0)
		pool_size = -1;
	if (!__sync_lock_test_and_set(&done_flag, 1))
		pool_size = -2;
}

/* rearmed is reset below: the branch can run again */
static void rearm(void)
{
	if (atomic_fetch_add(&rearmed, 1) == 0)
		rearm_count++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'rearm_count' */
}

static void reset_rearm(void)
{
	atomic_store(&rearmed, 0);
}

static void count_hits(void)
{
	if (atomic_fetch_add(&hits, 1) < 10)
		hit_count++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'hit_count' */
}

static void count_late(void)
{
	if (atomic_fetch_add(&started, 1) != 0)
		late_count++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'late_count' */
}

static void local_once(void)
{
	atomic_int mine = 0;
	if (0 == atomic_fetch_add(&mine, 1))
		local_count++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'local_count' */
}

static void *serve(void *arg)
{
	char c;
	(void)arg;
	if (read(0, &c, 1) < 0)
		return NULL;
	rearm();
	count_hits();
	count_late();
	local_once();
	stop_all();
	return NULL;
}

VALUE server_run(VALUE self)
{
	rb_thread_call_without_gvl(serve, NULL, RUBY_UBF_IO, NULL);
	reset_rearm();
	return self;
}
