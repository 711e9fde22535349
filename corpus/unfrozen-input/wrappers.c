/* Release wrappers: one that forwards the caller's data, one that builds its
 * own struct from pointer parameters. Each finding is reported once, at the
 * caller's pointer. */
#include <ruby.h>
#include <ruby/thread.h>

struct job {
	const char *p;
	long n;
	long out;
};

long work(const char *p, long n);

static void *job_nogvl(void *x)
{
	struct job *j = x;
	j->out = work(j->p, j->n);
	return NULL;
}

/* Forwards fn and data: the callers' data is analysed at each call. */
static void *without_gvl(void *(*fn)(void *), void *data)
{
	return rb_thread_call_without_gvl(fn, data, NULL, NULL);
}

static VALUE run_forwarded(VALUE self, VALUE str)
{
	struct job j = {0};
	j.p = RSTRING_PTR(str); /* expect: unfrozen-input */
	j.n = RSTRING_LEN(str);
	without_gvl(job_nogvl, &j);
	RB_GC_GUARD(str);
	return LONG2NUM(j.out);
}

/* Builds its own struct from a pointer parameter. */
static long with_job(void *(*fn)(void *), const char *p, long n)
{
	struct job j = {p, n, 0};
	rb_thread_call_without_gvl(fn, &j, NULL, NULL);
	return j.out;
}

static VALUE run_built(VALUE self, VALUE str)
{
	long r = with_job(job_nogvl, RSTRING_PTR(str), RSTRING_LEN(str)); /* expect: unfrozen-input */ /* expect-msg: callback of with_job a pointer */
	RB_GC_GUARD(str);
	return LONG2NUM(r);
}

static VALUE run_built_frozen(VALUE self, VALUE str)
{
	VALUE fz = rb_str_new_frozen(str);
	long r = with_job(job_nogvl, RSTRING_PTR(fz), RSTRING_LEN(fz));
	RB_GC_GUARD(fz);
	return LONG2NUM(r);
}

void Init_wrappers(void)
{
	VALUE c = rb_define_class("Wrapped", rb_cObject);
	rb_define_method(c, "forwarded", run_forwarded, 1);
	rb_define_method(c, "built", run_built, 1);
	rb_define_method(c, "built_frozen", run_built_frozen, 1);
}
