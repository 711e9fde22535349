/* A VALUE read again after a retry label that the code after the call jumps
 * back to (`retry: ... call ...; goto retry;`) is live across the call, as in
 * a loop (retry.c): no guard needed. A forward goto, or a label after the
 * pointer is taken, is no retry path for it. */
#include <errno.h>
#include <ruby.h>
#include <ruby/thread.h>

struct wr {
	const char *p;
	long len;
	long done;
};

long lib_write(const char *p, long len);

static void *write_nogvl(void *p)
{
	struct wr *w = p;
	w->done = lib_write(w->p, w->len);
	return NULL;
}

static VALUE write_retry(VALUE self, VALUE str)
{
	VALUE buf = rb_str_new_frozen(str);
	struct wr w = {0};
retry:
	w.p = RSTRING_PTR(buf); /* read on every retry */
	w.len = RSTRING_LEN(buf);
	rb_thread_call_without_gvl(write_nogvl, &w, RUBY_UBF_IO, NULL);
	if (w.done < 0 && errno == EINTR)
		goto retry;
	return LONG2NUM(w.done);
}

/* trap: the goto jumps forward */
static VALUE write_forward(VALUE self, VALUE str)
{
	VALUE buf = rb_str_new_frozen(str);
	struct wr w = {0};
	w.p = RSTRING_PTR(buf);
	w.len = RSTRING_LEN(buf);
	rb_thread_call_without_gvl(write_nogvl, &w, RUBY_UBF_IO, NULL); /* expect: missing-gc-guard */
	if (w.done < 0)
		goto out;
	w.done++;
out:
	return LONG2NUM(w.done);
}

/* trap: the label is after the pointer is taken: the retry does not read buf */
static VALUE write_late_label(VALUE self, VALUE str)
{
	VALUE buf = rb_str_new_frozen(str);
	struct wr w = {0};
	w.p = RSTRING_PTR(buf);
	w.len = RSTRING_LEN(buf);
again:
	rb_thread_call_without_gvl(write_nogvl, &w, RUBY_UBF_IO, NULL); /* expect: missing-gc-guard */
	if (w.done < 0 && errno == EINTR)
		goto again;
	return LONG2NUM(w.done);
}

void Init_goto_retry(void)
{
	rb_define_method(rb_cObject, "write_retry", write_retry, 1);
	rb_define_method(rb_cObject, "write_forward", write_forward, 1);
	rb_define_method(rb_cObject, "write_late_label", write_late_label, 1);
}
