/* After fork() returns 0 the child has one thread: a write in the child's
 * branch (and in what only that branch calls) is not concurrent with
 * anything. The parent's branch and the code after the if still are, and a
 * pid that also comes from somewhere else proves nothing. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <unistd.h>

static int worker_id;
static int spawned;
static int restarts;
static int children_seen;
static int reset_count;
static int other_count;
static int negated_parent;

/* the gem's wrapper: returns fork()'s result */
static int gem_fork(void)
{
	return fork();
}

/* called only from child branches */
static void child_reset(void)
{
	reset_count = 0;
}

/* called from a child branch and from the parent's */
static void shared_reset(void)
{
	other_count = 0; /* expect: shared-mutable-state */ /* expect-msg: writes static 'other_count' */
}

static void note_parent(void)
{
	negated_parent = 1; /* expect: shared-mutable-state */ /* expect-msg: writes static 'negated_parent' */
}

static void note_restart(void)
{
	restarts++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'restarts' */
}

static void *spawn_worker(void *arg)
{
	pid_t child = gem_fork();
	if (child == -1) {
		return NULL;
	} else if (child) {
		spawned++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'spawned' */
		shared_reset();
	} else {
		worker_id = 1; /* the child: one thread */
		child_reset();
		shared_reset();
		_exit(0);
	}
	pid_t p = fork();
	if (p == 0) {
		worker_id = 2;
		child_reset();
		_exit(0);
	}
	if (!p) {
		worker_id = 3;
	} else {
		note_parent(); /* the parent of `if (!p)` */
	}
	if (p != 0)
		note_restart(); /* the parent */
	else
		child_reset();
	return arg;
}

/* a pid variable also set from elsewhere is not a fork result */
static void *mixed_pid(void *arg)
{
	pid_t pid = fork();
	if (arg)
		pid = getpid();
	if (pid == 0) {
		children_seen++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'children_seen' */
		_exit(0);
	}
	return arg;
}

static VALUE spawn(VALUE self)
{
	rb_thread_call_without_gvl(spawn_worker, NULL, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(mixed_pid, NULL, RUBY_UBF_IO, NULL);
	return self;
}

void Init_fork_child(void)
{
	rb_define_method(rb_cObject, "spawn", spawn, 0);
}
