/* Lazy initialisation of a static: a scalar computed from constants only
 * while it is still zero is idempotent (racing threads store the same value);
 * a pointer from malloc, a value computed from other state, or a store that
 * is not under the zero test are real races. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

static unsigned long hash_of(const char *s, size_t n)
{
	unsigned long h = 5381;
	for (size_t i = 0; i < n; i++)
		h = h * 33 + (unsigned char)s[i];
	return h;
}

static char *scratch;
static unsigned long seed;
static long requests;

/* one finding per function: each shape in its own helper */
static void from_input(size_t n)
{
	static unsigned long by_input;
	if (!by_input)
		by_input = hash_of("x", n); /* expect: shared-mutable-state */ /* expect-msg: writes static local 'by_input' */
}

static void lazy_buffer(void)
{
	if (!scratch)
		scratch = malloc(64); /* expect: shared-mutable-state */ /* expect-msg: writes static 'scratch' */
}

static void unconditional(void)
{
	seed = hash_of("seed", 4); /* expect: shared-mutable-state */ /* expect-msg: writes static 'seed' */
}

static void *handle(void *p)
{
	long *n = p;
	static unsigned long len_hash;
	if (!len_hash)
		len_hash = hash_of("content-length", 14); /* idempotent: same value in every thread */
	from_input((size_t)*n);
	lazy_buffer();
	unconditional();
	requests = 1; /* expect: shared-mutable-state */ /* expect-msg: writes static 'requests' */
	*n += (long)len_hash;
	return NULL;
}

VALUE run_handle(VALUE self)
{
	long n = 1;
	rb_thread_call_without_gvl(handle, &n, NULL, NULL);
	return LONG2NUM(n);
}
