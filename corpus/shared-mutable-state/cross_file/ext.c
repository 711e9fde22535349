/* A callback in one file reaches a helper in another that writes globals. */
#include <ruby.h>
#include <ruby/thread.h>
#include "stats.h"

struct fill_args {
	char *buf;
	size_t len;
};

static void *fill(void *p)
{
	struct fill_args *a = p;
	for (size_t i = 0; i < a->len; i++)
		a->buf[i] = (char)i;
	stats_add(a->len);
	(void)stats_read();
	return NULL;
}

static VALUE
rb_fill(VALUE self, VALUE len)
{
	struct fill_args a;
	VALUE out = rb_str_new(NULL, NUM2LONG(len));
	a.buf = RSTRING_PTR(out);
	a.len = (size_t)RSTRING_LEN(out);
	rb_thread_call_without_gvl(fill, &a, NULL, NULL);
	stats_total++; /* with the GVL: fine (for this rule) */
	return out;
}

void Init_cross_file(void)
{
	rb_define_method(rb_cObject, "fill", rb_fill, 1);
}
