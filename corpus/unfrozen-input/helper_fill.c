/* The callback's data struct filled in by a helper: the input is followed into
 * the helper through its parameter. */
#include <ruby.h>
#include <ruby/thread.h>

struct job {
	const char *src;
	long len;
	long result;
};

long checksum(const char *p, long n);

static void *job_nogvl(void *p)
{
	struct job *j = p;
	j->result = checksum(j->src, j->len);
	return NULL;
}

static void job_init(struct job *j, VALUE str)
{
	j->src = RSTRING_PTR(str); /* expect: unfrozen-input */ /* expect-msg: 'str' is an argument of 'job_shared' */
	j->len = RSTRING_LEN(str);
	j->result = 0;
}

static VALUE job_shared(VALUE self, VALUE str)
{
	struct job j;
	job_init(&j, str);
	rb_thread_call_without_gvl(job_nogvl, &j, NULL, NULL);
	RB_GC_GUARD(str);
	return LONG2NUM(j.result);
}

/* Trap: the caller passes a frozen copy it keeps alive. */
static VALUE job_frozen(VALUE self, VALUE str)
{
	struct job j;
	VALUE fz = rb_str_new_frozen(str);
	job_init(&j, fz);
	rb_thread_call_without_gvl(job_nogvl, &j, NULL, NULL);
	RB_GC_GUARD(fz);
	return LONG2NUM(j.result);
}

void Init_helper_fill(void)
{
	VALUE c = rb_define_class("Job", rb_cObject);
	rb_define_method(c, "shared", job_shared, 1);
	rb_define_method(c, "frozen", job_frozen, 1);
}
