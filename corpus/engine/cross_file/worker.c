/* worker.c: the callback lives in another file than its release site. */
#include "worker.h"

void *worker_run(void *p)
{
	struct work_args *a = p;
	a->n = worker_len(a->str);
	if (a->n == 0)
		rb_raise(rb_eArgError, "empty"); /* expect: ruby-api-without-gvl */
	return NULL;
}
