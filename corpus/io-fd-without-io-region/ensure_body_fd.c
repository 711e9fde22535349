/* The descriptor is taken from a Ruby IO in the method, stored into the data
 * struct there, and the struct reaches the releasing body through
 * rb_ensure: directly, or through the gem's own locking helper that hands
 * its function-pointer parameter to rb_ensure. IO#close in another thread
 * neither waits for nor interrupts the read, and the file-descriptors offload
 * gate fails (on 1987d5b the three were wrong offload candidates: the
 * descriptor was looked for only in the body). A descriptor the method
 * opened itself is not reported. */
#include <ruby.h>
#include <ruby/thread.h>
#include <fcntl.h>
#include <unistd.h>

struct peek_job {
	int fd;
	char buf[64];
	ssize_t n;
};

static void *peek_nogvl(void *p)
{
	struct peek_job *j = p;
	j->n = read(j->fd, j->buf, sizeof(j->buf)); /* expect: io-fd-without-io-region */ /* expect-msg: 'read' blocks on a Ruby IO's descriptor */
	return NULL;
}

static VALUE peek_body(VALUE arg)
{
	struct peek_job *j = (struct peek_job *)arg;
	rb_thread_call_without_gvl(peek_nogvl, j, RUBY_UBF_IO, NULL);
	return Qnil;
}

static VALUE release_lock(VALUE self)
{
	(void)self;
	return Qnil;
}

static VALUE locked_run(VALUE self, VALUE (*fn)(VALUE), void *data)
{
	return rb_ensure(fn, (VALUE)data, release_lock, self);
}

VALUE peek_io(VALUE self, VALUE io)
{
	struct peek_job j = {.fd = -1};
	j.fd = NUM2INT(rb_funcall(io, rb_intern("fileno"), 0));
	locked_run(self, peek_body, &j);
	return LONG2NUM(j.n);
}

static void *peek_direct_nogvl(void *p)
{
	struct peek_job *j = p;
	j->n = read(j->fd, j->buf, sizeof(j->buf)); /* expect: io-fd-without-io-region */ /* expect-msg: 'read' blocks on a Ruby IO's descriptor */
	return NULL;
}

static VALUE peek_direct_body(VALUE arg)
{
	struct peek_job *j = (struct peek_job *)arg;
	rb_thread_call_without_gvl(peek_direct_nogvl, j, RUBY_UBF_IO, NULL);
	return Qnil;
}

VALUE peek_io_direct(VALUE self, VALUE io)
{
	struct peek_job j = {.fd = -1};
	j.fd = NUM2INT(rb_funcall(io, rb_intern("fileno"), 0));
	rb_ensure(peek_direct_body, (VALUE)&j, release_lock, self);
	return LONG2NUM(j.n);
}

/* trap: a descriptor the method opened and closes itself */
static void *peek_own_nogvl(void *p)
{
	struct peek_job *j = p;
	j->n = read(j->fd, j->buf, sizeof(j->buf));
	return NULL;
}

static VALUE peek_own_body(VALUE arg)
{
	struct peek_job *j = (struct peek_job *)arg;
	rb_thread_call_without_gvl(peek_own_nogvl, j, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	return Qnil;
}

VALUE peek_path(VALUE self, VALUE path)
{
	struct peek_job j = {.fd = -1};
	j.fd = open(StringValueCStr(path), O_RDONLY);
	if (j.fd < 0)
		return Qnil;
	locked_run(self, peek_own_body, &j);
	close(j.fd);
	return LONG2NUM(j.n);
}

/* the gem's helper keeps IO#fileno's result in a local before converting
 * it; the method round-trips it through a Ruby Integer into a compound
 * literal, and the locking helper runs the body */
static int fd_of(VALUE o)
{
	if (rb_respond_to(o, rb_intern("fileno"))) {
		o = rb_funcall(o, rb_intern("fileno"), 0);
		return NUM2INT(o);
	}
	return -1;
}

static void *peek_helper_nogvl(void *p)
{
	struct peek_job *j = p;
	j->n = read(j->fd, j->buf, sizeof(j->buf)); /* expect: io-fd-without-io-region */ /* expect-msg: 'read' blocks on a Ruby IO's descriptor */
	return NULL;
}

static VALUE peek_helper_body(VALUE arg)
{
	struct peek_job *j = (struct peek_job *)arg;
	rb_thread_call_without_gvl(peek_helper_nogvl, j, RUBY_UBF_IO, NULL);
	return Qnil;
}

VALUE peek_io_helper(VALUE self, VALUE io)
{
	struct peek_job j;
	VALUE v = INT2NUM(fd_of(io));
	j = (struct peek_job){.fd = NUM2INT(v)};
	locked_run(self, peek_helper_body, &j);
	return LONG2NUM(j.n);
}

/* trap: a helper returning some other number of the object */
static int size_of(VALUE o)
{
	o = rb_funcall(o, rb_intern("size"), 0);
	return NUM2INT(o);
}

static void *peek_size_nogvl(void *p)
{
	struct peek_job *j = p;
	j->n = read(j->fd, j->buf, sizeof(j->buf));
	return NULL;
}

static VALUE peek_size_body(VALUE arg)
{
	struct peek_job *j = (struct peek_job *)arg;
	rb_thread_call_without_gvl(peek_size_nogvl, j, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	return Qnil;
}

VALUE peek_numbered(VALUE self, VALUE obj)
{
	struct peek_job j = {.fd = size_of(obj)};
	locked_run(self, peek_size_body, &j);
	return LONG2NUM(j.n);
}

void Init_ensure_body_fd(void)
{
	rb_define_method(rb_cObject, "peek_io", peek_io, 1);
	rb_define_method(rb_cObject, "peek_io_direct", peek_io_direct, 1);
	rb_define_method(rb_cObject, "peek_path", peek_path, 1);
	rb_define_method(rb_cObject, "peek_io_helper", peek_io_helper, 1);
	rb_define_method(rb_cObject, "peek_numbered", peek_numbered, 1);
}
