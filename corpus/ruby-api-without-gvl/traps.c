/* Things that must stay silent for ruby-api-without-gvl. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct buf {
	char *ptr;
	long len;
	VALUE result;
	int ok;
};

/* The gem's own function whose name starts with rb_: it has a body here, so
 * it is not Ruby's API. */
static long rb_count_spaces(const char *p, long n)
{
	long c = 0;
	for (long i = 0; i < n; i++)
		c += p[i] == ' ';
	return c;
}

static void *make_string_with_gvl(void *p)
{
	struct buf *b = p;
	b->result = rb_str_new(b->ptr, b->len); /* with the GVL again: fine */
	return NULL;
}

static void maybe_log(struct buf *b)
{
	if (ruby_thread_has_gvl_p()) {
		rb_warn("length %ld", b->len); /* only runs when the GVL is held */
	}
}

static void *count_nogvl(void *p)
{
	struct buf *b = p;
	char *copy = xmalloc((size_t)b->len); /* ruby_xmalloc works without the GVL */
	memcpy(copy, b->ptr, (size_t)b->len);
	b->ok = rb_count_spaces(copy, b->len) > 0;
	xfree(copy);
	maybe_log(b);
	rb_thread_call_with_gvl(make_string_with_gvl, b);
	if (b->ok)
		return (void *)Qtrue; /* constant macros are not API calls */
	return (void *)INT2FIX(0);
}

VALUE count_spaces(VALUE self, VALUE str)
{
	struct buf b;
	VALUE frozen = rb_str_new_frozen(str);
	b.ptr = RSTRING_PTR(frozen); /* pointers computed before the release */
	b.len = RSTRING_LEN(frozen);
	b.ok = 0;
	rb_thread_call_without_gvl(count_nogvl, &b, NULL, NULL);
	RB_GC_GUARD(frozen);
	return b.result;
}
