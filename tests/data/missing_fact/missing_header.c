/* A callback in a file that does not parse for want of a header: the
 * missing fact is that header (tests/cli/missing_fact.sh). */
#include <ruby.h>
#include <ruby/thread.h>
#include <nogvl_test_missing_lib.h>

struct work {
	long n;
	long out;
};

static void *hdr_cb(void *p)
{
	struct work *w = p;
	for (long i = 0; i < w->n; i++)
		w->out += (long)i;
	return NULL;
}

static VALUE run_hdr(VALUE self)
{
	struct work w = {4, 0};
	rb_nogvl(hdr_cb, &w, NULL, NULL, 0);
	return LONG2NUM(w.out);
}

void Init_missing_header(void)
{
	rb_define_method(rb_cObject, "run_hdr", run_hdr, 0);
}
