/* nogvl-lint-test: --enable debug-offload-verdict */
/* The release is in a helper two calls below the method, and the method
 * frees its buffers after the helpers return: a raise at the release (a
 * pending interrupt today, a cancelled offload tomorrow) unwinds through both
 * helpers and the method, so the frees are skipped. The finding is at the
 * skipped cleanup, and the offload candidate waits for it. Freed in an
 * rb_ensure handler, or a result the raising call never returned, is fine. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

struct squash_args {
	const unsigned char *in;
	unsigned char *out;
	size_t n;
};

static void *squash_nogvl(void *p)
{
	struct squash_args *a = p;
	for (size_t i = 0; i < a->n; i++)
		a->out[i] = (unsigned char)(a->in[i] ^ 0x5a);
	return NULL;
}

/* the helper that releases */
static int squash_chunk(const unsigned char *in, unsigned char *out, size_t n)
{
	struct squash_args a = {in, out, n};
	rb_thread_call_without_gvl(squash_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: candidate (withheld: cleanup-not-ensured, the cleanup at line 52 runs outside rb_ensure) */
	return 0;
}

/* one frame up: loops over the chunks */
static int squash_all(const unsigned char *in, unsigned char *out, size_t n)
{
	for (size_t off = 0; off < n; off += 64)
		if (squash_chunk(in + off, out + off, n - off < 64 ? n - off : 64) != 0)
			return -1;
	return 0;
}

/* two frames up: owns the buffers and frees them after the work */
static VALUE squash(VALUE self, VALUE len)
{
	size_t n = (size_t)(NUM2LONG(len) & 4095);
	unsigned char *in = calloc(1, n + 1), *out = calloc(1, n + 1);
	(void)self;
	int r = squash_all(in, out, n);
	VALUE res = rb_str_new((const char *)out, (long)n);
	free(in); /* expect: cleanup-not-ensured */ /* expect-msg: 'free' of 'in' is skipped when rb_thread_call_without_gvl raises: it leaks */
	free(out);
	if (r != 0)
		rb_raise(rb_eRuntimeError, "squash failed");
	return res;
}

/* ---- the same helpers, with the buffers freed in an rb_ensure handler ---- */

struct job {
	unsigned char *in, *out;
	size_t n;
};

static void *mask_nogvl(void *p)
{
	struct squash_args *a = p;
	for (size_t i = 0; i < a->n; i++)
		a->out[i] = (unsigned char)(a->in[i] & 0x7f);
	return NULL;
}

static int mask_chunk(const unsigned char *in, unsigned char *out, size_t n)
{
	struct squash_args a = {in, out, n};
	rb_thread_call_without_gvl(mask_nogvl, &a, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return 0;
}

static int mask_all(const unsigned char *in, unsigned char *out, size_t n)
{
	return mask_chunk(in, out, n);
}

static VALUE mask_body(VALUE p)
{
	struct job *j = (struct job *)p;
	mask_all(j->in, j->out, j->n);
	return rb_str_new((const char *)j->out, (long)j->n);
}

static VALUE mask_cleanup(VALUE p)
{
	struct job *j = (struct job *)p;
	free(j->in);
	free(j->out);
	return Qnil;
}

static VALUE mask(VALUE self, VALUE len)
{
	struct job j;
	(void)self;
	j.n = (size_t)(NUM2LONG(len) & 4095);
	j.in = calloc(1, j.n + 1);
	j.out = calloc(1, j.n + 1);
	return rb_ensure(mask_body, (VALUE)&j, mask_cleanup, (VALUE)&j);
}

/* ---- memory made after the release: a raise comes before it exists ---- */

struct size_args {
	const unsigned char *in;
	size_t n;
	size_t need;
};

static void *size_nogvl(void *p)
{
	struct size_args *a = p;
	a->need = 1;
	for (size_t i = 0; i < a->n; i++)
		a->need += a->in[i] > 0x7f ? 2 : 1;
	return NULL;
}

static unsigned char *widen_new(const unsigned char *in, size_t n)
{
	struct size_args a = {in, n, 0};
	rb_thread_call_without_gvl(size_nogvl, &a, NULL, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return calloc(1, a.need);
}

static VALUE widen(VALUE self, VALUE str)
{
	(void)self;
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	unsigned char *b = widen_new((const unsigned char *)RSTRING_PTR(copy), (size_t)RSTRING_LEN(copy));
	RB_GC_GUARD(copy);
	VALUE res = rb_str_new((const char *)b, b ? 1 : 0);
	free(b);
	return res;
}

void Init_two_frames(void)
{
	rb_define_method(rb_cObject, "squash", squash, 1);
	rb_define_method(rb_cObject, "mask", mask, 1);
	rb_define_method(rb_cObject, "widen", widen, 1);
}
