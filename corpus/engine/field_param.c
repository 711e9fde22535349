/* nogvl-lint-test: --enable debug-release-site,debug-no-gvl --disable small-work-nogvl */
/* A helper stores its function-pointer parameter in a struct and releases the
 * GVL from a second function that reads the field (io-event style): the
 * helper is a release wrapper, each of its calls a site of its own. */
#include <ruby.h>
#include <ruby/thread.h>

struct blocking_args {
	void *(*function)(void *);
	void *data;
};

static VALUE run_blocking(VALUE p)
{
	struct blocking_args *a = (struct blocking_args *)p;
	rb_thread_call_without_gvl(a->function, a->data, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'poll_events'|'wait_child' (struct field) */
	return Qnil;
}

static void blocking_operation(void *(*function)(void *), void *data)
{
	struct blocking_args a = {.function = function, .data = data};
	int state = 0;
	rb_protect(run_blocking, (VALUE)&a, &state);
}

static void *poll_events(void *p) /* expect: debug-no-gvl */
{
	return p;
}

static void *wait_child(void *p) /* expect: debug-no-gvl */
{
	return p;
}

VALUE select_once(VALUE self)
{
	int x = 0;
	blocking_operation(poll_events, &x); /* expect: debug-release-site */ /* expect-msg: release site: rb_thread_call_without_gvl via 'blocking_operation', callback 'poll_events' (direct) */
	blocking_operation(wait_child, &x); /* expect: debug-release-site */ /* expect-msg: release site: rb_thread_call_without_gvl via 'blocking_operation', callback 'wait_child' (direct) */
	return Qnil;
}
