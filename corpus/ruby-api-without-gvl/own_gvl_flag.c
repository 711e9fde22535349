/* A gem's own "do I hold the GVL" flag (a thread-local here; a field or
 * ruby_thread_has_gvl_p() are the same shape): the helper calls f directly in
 * the branch where the flag says the GVL is held and through
 * rb_thread_call_with_gvl in the other. Worker threads run their callbacks
 * with the GVL released and reach Ruby only through these helpers. */
#include <ruby.h>
#include <ruby/thread.h>

static __thread int holds_gvl = 1;

struct job {
	VALUE handler;
	VALUE result;
	long n;
};

static void *call_handler(void *p)
{
	struct job *j = p;
	j->result = rb_funcall(j->handler, rb_intern("call"), 1, LONG2NUM(j->n)); /* runs with the GVL */
	return NULL;
}

static void *log_line(void *p)
{
	struct job *j = p;
	rb_warn("job %ld done", j->n); /* runs with the GVL */
	return NULL;
}

static void *store_result(void *p)
{
	struct job *j = p;
	rb_ivar_set(j->handler, rb_intern("@last"), j->result); /* runs with the GVL */
	return NULL;
}

/* early-return shape: `if (flag) return f(arg);` then the re-entry */
static void *enter_gvl(void *(*f)(void *), void *arg)
{
	if (holds_gvl)
		return f(arg);
	holds_gvl = 1;
	void *r = rb_thread_call_with_gvl(f, arg);
	holds_gvl = 0;
	return r;
}

/* if/else shape, re-entry in the then branch */
static void with_gvl_else(void *(*f)(void *), void *arg)
{
	if (!holds_gvl) {
		holds_gvl = 1;
		rb_thread_call_with_gvl(f, arg);
		holds_gvl = 0;
	} else {
		f(arg);
	}
}

/* the re-entry returns early, the direct call follows */
static void *with_gvl_rest(void *(*f)(void *), void *arg)
{
	if (!holds_gvl)
		return rb_thread_call_with_gvl(f, arg);
	return f(arg);
}

static void *worker(void *p)
{
	struct job *j = p;
	holds_gvl = 0;
	j->n *= 2;
	enter_gvl(call_handler, j);
	with_gvl_else(log_line, j);
	with_gvl_rest(store_result, j);
	holds_gvl = 1;
	return NULL;
}

VALUE run_job(VALUE self, VALUE handler)
{
	struct job j = {handler, Qnil, 21};
	rb_thread_call_without_gvl(worker, &j, NULL, NULL);
	return j.result;
}
