/* Traps: the string is locked with rb_str_locktmp for the duration of the
 * call (any modification raises) and unlocked where an exception cannot skip
 * it. */
#include <ruby.h>
#include <ruby/thread.h>

struct io_args {
	int fd;
	char *ptr;
	long len;
	long done;
};

long do_write(int fd, const char *p, long n);

static void *write_nogvl(void *p)
{
	struct io_args *a = p;
	a->done = do_write(a->fd, a->ptr, a->len);
	return NULL;
}

/* The zlib shape: the body of rb_ensure locks and releases the GVL, the ensure
 * function unlocks. */
struct stream {
	VALUE buf;
	struct io_args io;
};

static VALUE run_begin(VALUE arg)
{
	struct stream *s = (struct stream *)arg;
	rb_str_locktmp(s->buf);
	s->io.ptr = RSTRING_PTR(s->buf);
	s->io.len = RSTRING_LEN(s->buf);
	return (VALUE)rb_thread_call_without_gvl(write_nogvl, &s->io, NULL, NULL);
}

static VALUE run_ensure(VALUE arg)
{
	struct stream *s = (struct stream *)arg;
	rb_str_unlocktmp(s->buf);
	return Qnil;
}

static VALUE stream_write(VALUE self, VALUE str, VALUE fd)
{
	struct stream s;
	s.buf = str;
	s.io.fd = NUM2INT(fd);
	s.io.done = 0;
	rb_ensure(run_begin, (VALUE)&s, run_ensure, (VALUE)&s);
	return LONG2NUM(s.io.done);
}

/* rb_str_locktmp_ensure: the string is locked around the body. Ruby exports
 * it without declaring it in the public headers; gems declare it themselves. */
VALUE rb_str_locktmp_ensure(VALUE str, VALUE (*func)(VALUE), VALUE arg);

static VALUE write_locked(VALUE arg)
{
	struct stream *s = (struct stream *)arg;
	s->io.ptr = RSTRING_PTR(s->buf);
	s->io.len = RSTRING_LEN(s->buf);
	rb_thread_call_without_gvl(write_nogvl, &s->io, NULL, NULL);
	return Qnil;
}

static VALUE locked_write(VALUE self, VALUE str, VALUE fd)
{
	struct stream s;
	s.buf = str;
	s.io.fd = NUM2INT(fd);
	s.io.done = 0;
	rb_str_locktmp_ensure(str, write_locked, (VALUE)&s);
	return LONG2NUM(s.io.done);
}

/* Locked in place around a call that cannot raise afterwards
 * (..._gvl2 returns instead of raising). */
static VALUE direct_write(VALUE self, VALUE str, VALUE fd)
{
	struct io_args a = {0};
	a.fd = NUM2INT(fd);
	rb_str_locktmp(str);
	a.ptr = RSTRING_PTR(str);
	a.len = RSTRING_LEN(str);
	rb_thread_call_without_gvl2(write_nogvl, &a, NULL, NULL);
	rb_str_unlocktmp(str);
	return LONG2NUM(a.done);
}

void Init_traps_locktmp(void)
{
	VALUE c = rb_define_class("Out", rb_cObject);
	rb_define_method(c, "stream_write", stream_write, 2);
	rb_define_method(c, "locked_write", locked_write, 2);
	rb_define_method(c, "direct_write", direct_write, 2);
}
