/* GC roots on the stack around a release call that can raise. */
#include <ruby.h>
#include <ruby/thread.h>

struct job {
	VALUE str;
	long n;
	const unsigned char *buf;
	long len;
};

static void *work(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->len; i++)
		j->n += j->buf[i];
	return NULL;
}

VALUE run_unregister_after(VALUE self, VALUE s)
{
	struct job j = {s, 0, NULL, 0};
	VALUE keep = rb_str_dup(s);
	rb_gc_register_address(&keep); /* expect: dangling-gc-root */ /* expect-msg: unregisters it only if rb_thread_call_without_gvl returns */
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: offload-candidate */
	rb_gc_unregister_address(&keep);
	return LONG2NUM(j.n);
}

VALUE run_never_unregistered(VALUE self, VALUE s)
{
	struct job j = {s, 0, NULL, 0};
	rb_global_variable(&s); /* expect: dangling-gc-root */ /* expect-msg: never unregisters it */
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: offload-candidate */
	return LONG2NUM(j.n);
}

/* traps */
static VALUE cached;

VALUE run_static_root(VALUE self, VALUE s)
{
	struct job j = {s, 0, NULL, 0};
	cached = s;
	rb_gc_register_address(&cached); /* a static: lives as long as the process */
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: offload-candidate */
	return LONG2NUM(j.n);
}

VALUE run_unregistered_before(VALUE self, VALUE s)
{
	struct job j = {s, 0, NULL, 0};
	VALUE keep = rb_str_dup(s);
	rb_gc_register_address(&keep);
	j.str = keep;
	rb_gc_unregister_address(&keep); /* gone before the call */
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: offload-candidate */
	return LONG2NUM(j.n);
}

VALUE run_intr_fail(VALUE self, VALUE s)
{
	struct job j = {s, 0, NULL, 0};
	VALUE keep = rb_str_dup(s);
	rb_gc_register_address(&keep);
	rb_thread_call_without_gvl2(work, &j, NULL, NULL); /* returns instead of raising */ /* expect: offload-candidate */
	rb_gc_unregister_address(&keep);
	return LONG2NUM(j.n);
}
