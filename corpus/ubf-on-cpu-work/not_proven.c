/* ubf-on-cpu-work needs a proof: no finding when the callback does no real
 * work (a configuration stub that returns a constant), or when its file has
 * parse errors (a missing library header can hide the blocking call). */
#include <ruby.h>
#include <ruby/thread.h>
#include <some_client_library.h> /* not installed: the file parses with errors */

struct call_args {
	MYSQLISH *conn; /* unknown type */
	int rc;
	unsigned long acc;
};

/* the fallback compiled when the library lacks the function */
static int lib_cancel_blocking(void *conn)
{
	(void)conn;
	return 0;
}

static void *cancel_nogvl(void *p)
{
	struct call_args *a = p;
	a->rc = lib_cancel_blocking(a);
	return NULL;
}

static void *loop_nogvl(void *p)
{
	struct call_args *a = p;
	for (int i = 0; i < 10; i++) {
		a->acc += (unsigned long)i;
		a->rc = client_read_result(a->conn); /* undeclared: hidden by the parse error */
	}
	return NULL;
}

/* looks like CPU work, but in a file with parse errors a call may be missing */
static void *sum_nogvl(void *p)
{
	struct call_args *a = p;
	for (int i = 0; i < 1000; i++)
		a->acc += (unsigned long)i * 7;
	return NULL;
}

VALUE not_proven(VALUE self)
{
	struct call_args a = {0};
	rb_thread_call_without_gvl(cancel_nogvl, &a, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(loop_nogvl, &a, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(sum_nogvl, &a, RUBY_UBF_IO, NULL);
	return INT2NUM(a.rc);
}
