/* nogvl-lint-test: --enable debug-offload-verdict */
/* A buffer reached through a global or static pointer is process-wide:
 * every fiber can reach, replace or free it while a worker runs the
 * callback, so data that holds it is never an offload candidate. A pointer
 * to const data (a table, a message) only read is not flagged. */
#include <ruby.h>
#include <ruby/thread.h>

struct sum_args {
	const char *label;
	int *cells;
	long n;
};

static void *sum_nogvl(void *p)
{
	struct sum_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->cells[i] += (int)i + a->label[0];
	return NULL;
}

int *shared_cells;
static int *private_cells;
static const char *const label_text = "cells";

VALUE sum_shared(VALUE self)
{
	struct sum_args a = {label_text, shared_cells, 16};
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: [missing: shared_cells] */
	return self;
}

VALUE sum_static(VALUE self)
{
	struct sum_args a;
	a.label = label_text;
	a.cells = private_cells;
	a.n = 16;
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: the callback's data holds what the global or static pointer 'private_cells' points to */
	return self;
}

VALUE sum_own(VALUE self)
{
	int mine[16] = {0};
	struct sum_args a = {label_text, mine, 16};
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL); /* expect: offload-candidate:note, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return self;
}
