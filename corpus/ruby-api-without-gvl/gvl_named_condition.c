/* A condition named after the GVL (a `have_gvl` parameter, a gem's own
 * "am I holding the GVL" function) where exactly one side takes the GVL
 * (rb_thread_call_with_gvl, or a helper named for taking it): the other side
 * is where the gem holds it already. A profiler-style error path: code that
 * may run with or without the GVL builds its exception directly when it holds
 * the GVL and re-enters Ruby first when it does not. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdbool.h>

struct fail_args {
	int err;
	const char *what;
};

static bool gvl_is_mine(void);

static void *report_failure(void *p)
{
	struct fail_args *a = p;
	rb_warn("%s failed (%d)", a->what, a->err); /* runs with the GVL */
	return NULL;
}

/* takes the GVL itself: its name says so */
static void grab_gvl_and_report(int err, const char *what)
{
	struct fail_args a = {err, what};
	rb_thread_call_with_gvl(report_failure, &a);
}

/* the other side calls a helper named for taking the GVL */
static void report_either(int err, bool have_gvl, const char *what)
{
	if (have_gvl) {
		VALUE msg = rb_sprintf("%s failed (%d)", what, err); /* holds the GVL here */
		rb_warn("%" PRIsVALUE, msg);
	} else {
		grab_gvl_and_report(err, what);
	}
}

NORETURN(static void give_up(VALUE msg));
static void give_up(VALUE msg)
{
	rb_exc_raise(rb_exc_new_str(rb_eRuntimeError, msg));
}

/* the branch ends in a noreturn helper; the statements after it re-enter */
static void report_or_raise(int err, const char *what)
{
	struct fail_args a = {err, what};
	if (gvl_is_mine()) {
		VALUE msg = rb_sprintf("%s failed (%d)", what, err); /* holds the GVL here */
		give_up(msg);
	}
	rb_thread_call_with_gvl(report_failure, &a);
}

static int counter;

/* traps */
static void *count_up(void *p)
{
	(void)p;
	counter++;
	return NULL;
}

/* both sides take the GVL: the condition tells nothing about holding it */
static void both_take(bool have_gvl)
{
	if (have_gvl) {
		rb_gc_start(); /* expect: ruby-api-without-gvl */
		rb_thread_call_with_gvl(count_up, NULL);
	} else {
		rb_thread_call_with_gvl(count_up, NULL);
	}
}

/* a condition that does not name the GVL */
static void unnamed(bool ready, const char *what)
{
	if (ready)
		rb_gc_start(); /* expect: ruby-api-without-gvl */
	else
		grab_gvl_and_report(0, what);
}

/* named, but neither side takes the GVL */
static void neither(bool have_gvl)
{
	if (have_gvl)
		rb_gc_start(); /* expect: ruby-api-without-gvl */
	else
		return;
}

/* the branch does not leave: the statements after it run on both paths */
static void falls_through(int err, const char *what)
{
	struct fail_args a = {err, what};
	if (gvl_is_mine())
		rb_gc_start(); /* expect: ruby-api-without-gvl */
	rb_thread_call_with_gvl(report_failure, &a);
}

static bool gvl_is_mine(void)
{
	return ruby_thread_has_gvl_p() != 0;
}

static void *work(void *p)
{
	int *rc = p;
	if (*rc) {
		report_either(*rc, false, "work");
		report_or_raise(*rc, "work");
	}
	both_take(false);
	unnamed(false, "work");
	neither(false);
	falls_through(*rc, "work");
	return NULL;
}

VALUE named_run(VALUE self)
{
	int rc = 0;
	rb_thread_call_without_gvl(work, &rc, RUBY_UBF_IO, NULL);
	return self;
}
