/* Traps for a gem's own GVL flag: only the branch that calls f directly while
 * the other side of the same condition passes that same f to
 * rb_thread_call_with_gvl counts as holding the GVL. */
#include <ruby.h>
#include <ruby/thread.h>

static int ready;

struct job {
	VALUE handler;
	long n;
};

static void *notify(void *p)
{
	struct job *j = p;
	rb_funcall(j->handler, rb_intern("call"), 0); /* expect: ruby-api-without-gvl */
	return NULL;
}

static void *report(void *p)
{
	struct job *j = p;
	rb_warn("job %ld", j->n); /* runs with the GVL: only given to rb_thread_call_with_gvl */
	return NULL;
}

static void *count(void *p)
{
	struct job *j = p;
	rb_warn("count %ld", j->n); /* expect: ruby-api-without-gvl */
	return NULL;
}

/* the other branch re-enters with a different function: no pairing */
static void other_function(struct job *j)
{
	if (ready)
		notify(j);
	else
		rb_thread_call_with_gvl(report, j);
}

/* both in the same branch: the direct call is not on the "held" side */
static void same_branch(struct job *j)
{
	if (ready) {
		rb_thread_call_with_gvl(report, j);
		count(j);
	}
}

static void *worker(void *p)
{
	struct job *j = p;
	other_function(j);
	same_branch(j);
	return NULL;
}

VALUE run_traps(VALUE self, VALUE handler)
{
	struct job j = {handler, 1};
	rb_thread_call_without_gvl(worker, &j, NULL, NULL);
	return Qnil;
}
