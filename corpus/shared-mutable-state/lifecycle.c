/* A callback registered with the gem's own event table for a once-per-process
 * event (start, shutdown, exit) runs once: it is not concurrent with itself,
 * whichever thread dispatches the table. A callback registered for a
 * repeating event (idle, a worker's crash), registered in a loop, or also
 * stored elsewhere is an ordinary callback. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>

typedef enum { EV_ON_START, EV_ON_IDLE, EV_ON_CHILD_CRASH, EV_AT_EXIT, EV_COUNT } ev_type;

struct entry {
	void (*fn)(void *);
	void *arg;
	struct entry *next;
};

static struct entry *table[EV_COUNT];
static int started;
static int stopped;
static long idle_rounds;
static int crashes;
static int looped;
static int stored;
static void (*saved_hook)(void *);

static void on_event(ev_type t, void (*fn)(void *), void *arg)
{
	struct entry *e = malloc(sizeof(*e));
	if (!e)
		return;
	e->fn = fn;
	e->arg = arg;
	e->next = table[t];
	table[t] = e;
}

static void run_event(ev_type t)
{
	for (struct entry *e = table[t]; e; e = e->next)
		e->fn(e->arg);
}

static void on_start(void *arg)
{
	started = 1;
	(void)arg;
}

static void at_exit_hook(void *arg)
{
	stopped = 1;
	(void)arg;
}

static void on_idle(void *arg)
{
	idle_rounds++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'idle_rounds' */
	(void)arg;
}

static void on_crash(void *arg)
{
	crashes++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'crashes' */
	(void)arg;
}

static void per_listener(void *arg)
{
	looped = 1; /* expect: shared-mutable-state */ /* expect-msg: writes static 'looped' */
	(void)arg;
}

static void also_stored(void *arg)
{
	stored = 1; /* expect: shared-mutable-state */ /* expect-msg: writes static 'stored' */
	(void)arg;
}

static void *reactor(void *arg)
{
	run_event(EV_ON_START);
	run_event(EV_ON_IDLE);
	run_event(EV_ON_CHILD_CRASH);
	run_event(EV_AT_EXIT);
	if (saved_hook)
		saved_hook(arg);
	return arg;
}

static VALUE serve(VALUE self)
{
	rb_thread_call_without_gvl(reactor, NULL, NULL, NULL);
	return self;
}

void Init_lifecycle(void)
{
	on_event(EV_ON_START, on_start, NULL);
	on_event(EV_AT_EXIT, at_exit_hook, NULL);
	on_event(EV_ON_IDLE, on_idle, NULL);
	on_event(EV_ON_CHILD_CRASH, on_crash, NULL);
	for (int i = 0; i < 4; i++)
		on_event(EV_ON_START, per_listener, NULL);
	on_event(EV_AT_EXIT, also_stored, NULL);
	saved_hook = also_stored;
	rb_define_method(rb_cObject, "serve", serve, 0);
}
