/* A helper fills the callback's data from a string it first converts with
 * rb_obj_as_string into its own parameter (`s = rb_obj_as_string(s)`): for
 * anything but a String that is a new string only the helper's parameter
 * holds, gone when the helper returns, so every caller's release is exposed
 * (posix_mq's send path has this shape). The caller's own argument does not
 * keep it alive. Trap: the helper that does not replace its parameter. */
#include <ruby.h>
#include <ruby/thread.h>
#include <unistd.h>

struct wr {
	const char *p;
	size_t n;
	ssize_t done;
	int fd;
};

static void *wr_nogvl(void *d)
{
	struct wr *w = d;
	w->done = write(w->fd, w->p, w->n);
	return NULL;
}

static void wr_setup(struct wr *w, VALUE s)
{
	s = rb_obj_as_string(s);
	w->p = RSTRING_PTR(s); /* expect: unfrozen-input */ /* expect-msg: 's' comes from 'rb_obj_as_string' */
	w->n = (size_t)RSTRING_LEN(s);
}

static void wr_setup_string(struct wr *w, VALUE s)
{
	w->p = RSTRING_PTR(s); /* expect: unfrozen-input */
	w->n = (size_t)RSTRING_LEN(s);
}

static VALUE wr_send(VALUE self, VALUE s)
{
	struct wr w = {NULL, 0, 0, 1};
	wr_setup(&w, s);
	rb_thread_call_without_gvl(wr_nogvl, &w, RUBY_UBF_IO, NULL); /* expect: missing-gc-guard */ /* expect-msg: 's' is local to 'wr_setup', so nothing keeps it alive after 'wr_setup' returns */
	return LONG2NUM((long)w.done);
}

static VALUE wr_send_args(int argc, VALUE *argv, VALUE self)
{
	struct wr w = {NULL, 0, 0, 1};
	VALUE s;
	rb_scan_args(argc, argv, "1", &s);
	wr_setup(&w, s);
	rb_thread_call_without_gvl(wr_nogvl, &w, RUBY_UBF_IO, NULL); /* expect: missing-gc-guard */
	return LONG2NUM((long)w.done);
}

/* Trap: the helper leaves its parameter alone; the method's argument is
 * held by the method's frame. */
static VALUE wr_send_string(VALUE self, VALUE s)
{
	struct wr w = {NULL, 0, 0, 1};
	Check_Type(s, T_STRING);
	wr_setup_string(&w, s);
	rb_thread_call_without_gvl(wr_nogvl, &w, RUBY_UBF_IO, NULL);
	return LONG2NUM((long)w.done);
}

void Init_helper_replaces_param(void)
{
	VALUE c = rb_define_class("Wr", rb_cObject);
	rb_define_method(c, "send", wr_send, 1);
	rb_define_method(c, "send_args", wr_send_args, -1);
	rb_define_method(c, "send_string", wr_send_string, 1);
}
