/* Three "cannot verify" sites, each missing one fact (a library model for
 * frob_compress, the target of the pointer hook), and one safe site
 * (tests/cli/missing_fact.sh). */
#include <ruby.h>
#include <ruby/thread.h>

extern int frob_compress(char *buf, long n);

struct job {
	char buf[64];
	long n;
	int rc;
};

static void *lib_cb(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->rc += frob_compress(j->buf, i);
	return NULL;
}

static int (*hook)(long);

static void *ptr_cb(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->rc += hook(i);
	return NULL;
}

static void *sum_cb(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->rc += (int)i;
	return NULL;
}

static VALUE run_lib(VALUE self)
{
	struct job j = {{0}, 4, 0};
	rb_nogvl(lib_cb, &j, NULL, NULL, 0);
	return INT2NUM(j.rc);
}

static VALUE run_ptr(VALUE self)
{
	struct job j = {{0}, 4, 0};
	rb_nogvl(ptr_cb, &j, NULL, NULL, 0);
	return INT2NUM(j.rc);
}

static VALUE run_sum(VALUE self)
{
	struct job j = {{0}, 4, 0};
	rb_nogvl(sum_cb, &j, NULL, NULL, 0);
	return INT2NUM(j.rc);
}

void Init_library_and_pointer(void)
{
	rb_define_method(rb_cObject, "run_lib", run_lib, 0);
	rb_define_method(rb_cObject, "run_ptr", run_ptr, 0);
	rb_define_method(rb_cObject, "run_sum", run_sum, 0);
}
