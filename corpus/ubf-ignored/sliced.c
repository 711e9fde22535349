/* ubf-ignored trap: the callback does one bounded slice of work and the loop
 * on the caller's side checks the flag between slices (ruby/zlib's shape:
 * "There is no safe way to interrupt" the step itself). */
#include <ruby.h>
#include <ruby/thread.h>

#define SLICE 16384

struct run_args {
	const unsigned char *in;
	size_t len, done;
	unsigned long state;
	int interrupt;
};

static void *step_nogvl(void *p)
{
	struct run_args *a = p;
	size_t end = a->done + SLICE < a->len ? a->done + SLICE : a->len;
	for (; a->done < end; a->done++)
		a->state = a->state * 31 + a->in[a->done];
	return NULL;
}

static void step_unblock(void *p)
{
	struct run_args *a = p;
	a->interrupt = 1;
}

VALUE run_sliced(VALUE self, VALUE str)
{
	struct run_args a = {(const unsigned char *)RSTRING_PTR(str), (size_t)RSTRING_LEN(str), 0, 0, 0}; /* expect: unfrozen-input */
	while (!a.interrupt && a.done < a.len)
		rb_nogvl(step_nogvl, &a, step_unblock, &a, RB_NOGVL_UBF_ASYNC_SAFE);
	if (a.interrupt)
		rb_thread_check_ints();
	RB_GC_GUARD(str);
	return ULONG2NUM(a.state);
}
