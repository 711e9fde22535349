/* The call matters only where it runs without the GVL: a helper called only
 * with the GVL, or under ruby_thread_has_gvl_p(), or through
 * rb_thread_call_with_gvl is fine; a helper also reached from a callback is
 * reported with the chain. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>
#include <time.h>

static void format_time(time_t t, char *out, size_t n)
{
	struct tm *tm = localtime(&t); /* expect: mt-unsafe-call */ /* expect-msg: but 'format_time' runs without the GVL */
	strftime(out, n, "%F", tm);
}

static const char *describe_gvl_only(int e)
{
	return strerror(e);
}

static const char *describe_guarded(int e)
{
	return strerror(e);
}

static void *describe_with_gvl(void *p)
{
	int *e = p;
	return (void *)strerror(*e);
}

struct job {
	time_t when;
	char out[32];
	int err;
};

static void *work(void *p)
{
	struct job *j = p;
	format_time(j->when, j->out, sizeof(j->out));
	if (ruby_thread_has_gvl_p())
		(void)describe_guarded(j->err);
	(void)rb_thread_call_with_gvl(describe_with_gvl, &j->err);
	return NULL;
}

static VALUE
rb_work(VALUE self)
{
	struct job j = {0};
	char buf[32];
	format_time(0, buf, sizeof(buf));
	rb_thread_call_without_gvl(work, &j, NULL, NULL);
	return rb_str_new_cstr(describe_gvl_only(j.err));
}

void Init_context(void)
{
	rb_define_method(rb_cObject, "work", rb_work, 0);
}
