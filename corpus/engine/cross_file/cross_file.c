/* nogvl-lint-test: --enable debug-release-site */
/* cross_file.c: releases the GVL around a callback defined in worker.c. */
#include <ruby.h>
#include <ruby/thread.h>

#include "worker.h"

static VALUE cross_run(VALUE self, VALUE str)
{
	struct work_args a = {str, 0};
	rb_thread_call_without_gvl(worker_run, &a, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'worker_run' */
	return LONG2NUM(a.n);
}

void Init_cross_file(void)
{
	rb_define_method(rb_cObject, "cross_run", cross_run, 1);
}
