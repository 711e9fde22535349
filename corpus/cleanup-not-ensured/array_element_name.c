/* Parameter buffers allocated per bind into an array of structs, freed after
 * the statement runs without the GVL: the free is skipped when the release
 * call raises (an interrupt is handled after the callback returns). The
 * message names the memory as an element of the array ('binds[].buf'). */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct bind {
	char *buf;
	long len;
};

struct run {
	struct bind *binds;
	long n;
	long total;
};

static void *run_nogvl(void *p)
{
	struct run *r = p;
	for (long i = 0; i < r->n; i++)
		r->total += r->binds[i].len;
	return NULL;
}

VALUE stmt_run(int argc, VALUE *argv, VALUE self)
{
	struct bind binds[8];
	long n = argc < 8 ? argc : 8;
	for (long i = 0; i < n; i++) {
		VALUE s = StringValue(argv[i]);
		binds[i].len = RSTRING_LEN(s);
		binds[i].buf = xmalloc((size_t)binds[i].len);
		memcpy(binds[i].buf, RSTRING_PTR(s), (size_t)binds[i].len);
	}
	struct run r = {binds, n, 0};
	rb_thread_call_without_gvl(run_nogvl, &r, RUBY_UBF_IO, NULL); /* expect: ubf-on-cpu-work */
	for (long i = 0; i < n; i++)
		xfree(binds[i].buf); /* expect: cleanup-not-ensured */ /* expect-msg: 'xfree' of 'binds[].buf' is skipped when rb_thread_call_without_gvl raises */
	return LONG2NUM(r.total);
}
