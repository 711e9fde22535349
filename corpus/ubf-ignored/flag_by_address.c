/* A flag the callback reads only through a pointer it hands a helper
 * (`stopped(&g_stop)`, `stopped(&j->stop)`) is read: the UBF is not ignored.
 * The same helper handed another member leaves the UBF's flag unread. */
#include <ruby.h>
#include <ruby/thread.h>

struct job {
	size_t n;
	unsigned long h;
	volatile int stop;
	volatile int halt;
	volatile int busy;
	volatile int quit;
};

static volatile int g_stop;

static int stopped(volatile int *p)
{
	return *p;
}

static void set_stop(void *p)
{
	struct job *j = p;
	j->stop = 1;
}

static void set_halt(void *p)
{
	struct job *j = p;
	j->halt = 1;
}

static void set_quit(void *p)
{
	struct job *j = p;
	j->quit = 1;
}

static void set_global(void *p)
{
	(void)p;
	g_stop = 1;
}

static void *by_member(void *p)
{
	struct job *j = p;
	for (size_t i = 0; i < j->n && !stopped(&j->stop); i++)
		j->h++;
	return NULL;
}

static void *by_cast_member(void *p)
{
	for (size_t i = 0; i < ((struct job *)p)->n && !stopped(&((struct job *)p)->halt); i++)
		((struct job *)p)->h++;
	return NULL;
}

static void *by_global(void *p)
{
	struct job *j = p;
	for (size_t i = 0; i < j->n && !stopped(&g_stop); i++)
		j->h++;
	return NULL;
}

/* checks 'busy'; nothing reads 'quit' */
static void *other_member(void *p)
{
	struct job *j = p;
	for (size_t i = 0; i < j->n && !stopped(&j->busy); i++)
		j->h++;
	return NULL;
}

VALUE job_run(VALUE self)
{
	struct job j = {0};
	rb_thread_call_without_gvl(by_member, &j, set_stop, &j); /* expect: offload-candidate */
	rb_thread_call_without_gvl(by_cast_member, &j, set_halt, &j); /* expect: offload-candidate */
	rb_thread_call_without_gvl(by_global, &j, set_global, &j); /* expect: offload-candidate */
	return ULONG2NUM(j.h);
}

VALUE job_run_other(VALUE self)
{
	struct job j = {0};
	rb_thread_call_without_gvl(other_member, &j, set_quit, &j); /* expect: ubf-ignored */ /* expect-msg: sets 'quit', but nothing reads it */
	return ULONG2NUM(j.h);
}
