/* A VALUE read again on a retry path after the call (the loop reads it before
 * the next call) is live across the call: no guard needed. Without the loop
 * the same shape is a finding. */
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
	for (long i = 0; i < w->len; i++)
		w->done += lib_write(w->p + i, 1);
	return NULL;
}

static VALUE write_all(VALUE self, VALUE str)
{
	VALUE buf = rb_str_new_frozen(str);
	struct wr w = {0};
	while (w.done < RSTRING_LEN(buf)) {
		w.p = RSTRING_PTR(buf) + w.done; /* read on every retry */
		w.len = RSTRING_LEN(buf) - w.done;
		rb_thread_call_without_gvl(write_nogvl, &w, RUBY_UBF_IO, NULL);
	}
	return LONG2NUM(w.done);
}

static VALUE write_once(VALUE self, VALUE str)
{
	VALUE buf = rb_str_new_frozen(str);
	struct wr w = {0};
	w.p = RSTRING_PTR(buf);
	w.len = RSTRING_LEN(buf);
	rb_thread_call_without_gvl(write_nogvl, &w, RUBY_UBF_IO, NULL); /* expect: missing-gc-guard */
	return LONG2NUM(w.done);
}

void Init_retry(void)
{
	rb_define_method(rb_cObject, "write_all", write_all, 1);
	rb_define_method(rb_cObject, "write_once", write_once, 1);
}
