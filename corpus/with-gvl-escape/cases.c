/* Functions run with rb_thread_call_with_gvl from a callback. */
#include <ruby.h>
#include <ruby/thread.h>

struct progress {
	VALUE block;
	VALUE last;
	int state;
	long done;
};

/* unprotected: a raising block longjmps across the blocking region */
static void *report_progress(void *p)
{
	struct progress *pr = p;
	rb_funcall(pr->block, rb_intern("call"), 1, LONG2NUM(pr->done));
	return NULL;
}

/* protected: the exception is caught and re-raised after the call */
static VALUE call_block(VALUE arg)
{
	struct progress *pr = (struct progress *)arg;
	return rb_funcall(pr->block, rb_intern("call"), 1, LONG2NUM(pr->done));
}

static void *report_progress_safely(void *p)
{
	struct progress *pr = p;
	rb_protect(call_block, (VALUE)pr, &pr->state);
	return NULL;
}

/* returns a Ruby object through void * */
static void *make_result(void *p)
{
	struct progress *pr = p;
	VALUE s = rb_str_new_cstr("done");
	(void)pr;
	return (void *)s;
}

static void *work_nogvl(void *p)
{
	struct progress *pr = p;
	for (pr->done = 0; pr->done < 10; pr->done++) {
		rb_thread_call_with_gvl(report_progress, pr); /* expect: with-gvl-escape */ /* expect-msg: can raise ('rb_funcall') */
		rb_thread_call_with_gvl(report_progress_safely, pr);
		if (pr->state)
			break;
	}
	pr->last = (VALUE)rb_thread_call_with_gvl(make_result, pr); /* expect: with-gvl-escape */ /* expect-msg: returns a Ruby object */
	return NULL;
}

VALUE run_with_progress(VALUE self)
{
	struct progress pr = {rb_block_proc(), Qnil, 0, 0};
	rb_thread_call_without_gvl(work_nogvl, &pr, NULL, NULL);
	if (pr.state)
		rb_jump_tag(pr.state);
	return pr.last;
}
