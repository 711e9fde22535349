/* The zero tests of a fork pid and of a once-flag, in every spelling: the
 * constant first (`0 == pid`, `0 != atomic_exchange(...)`) is the same test
 * as the constant last. A child's branch (and a first caller's) writes with
 * one thread; the parent's branch (the later callers') does not. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdatomic.h>
#include <unistd.h>

static int child_slot;
static int child_else_slot;
static int parent_slot;
static int parent_else_slot;
static atomic_int armed;
static atomic_int opened;
static atomic_int bits;
static int first_count;
static int first_else_count;
static int later_count;
static int bits_count;

static void *run_forks(void *arg)
{
	pid_t pid = fork();
	if (0 == pid) {
		child_slot = 1; /* the child */
		_exit(0);
	}
	pid_t q = fork();
	if (0 != q)
		parent_slot = 1; /* expect: shared-mutable-state */ /* expect-msg: writes static 'parent_slot' */
	else
		child_else_slot = 1; /* the child */
	pid_t r = fork();
	if (0 == r)
		_exit(0);
	else
		parent_else_slot = 1; /* expect-note: also writes static 'parent_else_slot' */
	return arg;
}

static void *run_once(void *arg)
{
	if (0 == atomic_fetch_add(&armed, 1))
		first_count = 1; /* the first caller */
	if (atomic_fetch_or(&bits, 1 << 2) == 0)
		bits_count = 1; /* the first caller: a shift is no comparison */
	if (0 != atomic_exchange(&opened, 1))
		later_count++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'later_count' */
	else
		first_else_count = 1; /* the first caller */
	return arg;
}

static VALUE start(VALUE self)
{
	rb_thread_call_without_gvl(run_forks, NULL, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(run_once, NULL, RUBY_UBF_IO, NULL);
	return self;
}

void Init_zero_tests_mirrored(void)
{
	rb_define_method(rb_cObject, "start", start, 0);
}
