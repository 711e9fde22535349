/* A library call modelled as blocking on the descriptor it is given
 * (rules/models/libmagic.yml: magic_descriptor reads a pipe until EOF) used
 * on a Ruby IO's descriptor in a plain no-GVL callback: IO#close in another
 * thread neither waits for nor interrupts it. On a descriptor the method
 * opened itself it is not reported (the model's EINTR retry is, on both:
 * RUBY_UBF_IO's signal cannot end a wait on a pipe). */
#include <ruby.h>
#include <ruby/io.h>
#include <ruby/thread.h>
#include <fcntl.h>
#include <magic.h>
#include <unistd.h>

struct kind_job {
	magic_t cookie;
	int fd;
	const char *out;
};

static void *kind_nogvl(void *p)
{
	struct kind_job *j = p;
	j->out = magic_descriptor(j->cookie, j->fd); /* expect: io-fd-without-io-region, uninterruptible-blocking */ /* expect-msg: 'magic_descriptor' blocks on a Ruby IO's descriptor */
	return NULL;
}

static magic_t cookie;

VALUE kind_of_io(VALUE self, VALUE io)
{
	struct kind_job j = {cookie, -1, NULL};
	(void)self;
	j.fd = NUM2INT(rb_funcall(io, rb_intern("fileno"), 0));
	rb_thread_call_without_gvl(kind_nogvl, &j, RUBY_UBF_IO, NULL);
	return j.out ? rb_str_new_cstr(j.out) : Qnil;
}

/* trap: a descriptor the method opened and closes itself */
static void *own_kind_nogvl(void *p)
{
	struct kind_job *j = p;
	j->out = magic_descriptor(j->cookie, j->fd); /* expect: uninterruptible-blocking */ /* expect-msg: 'magic_descriptor' restarts its wait on EINTR */
	return NULL;
}

VALUE kind_of_path(VALUE self, VALUE path)
{
	struct kind_job j = {cookie, -1, NULL};
	(void)self;
	j.fd = open(StringValueCStr(path), O_RDONLY);
	if (j.fd < 0)
		return Qnil;
	rb_thread_call_without_gvl(own_kind_nogvl, &j, RUBY_UBF_IO, NULL);
	close(j.fd);
	return j.out ? rb_str_new_cstr(j.out) : Qnil;
}

void Init_library_fd(void)
{
	cookie = magic_open(MAGIC_NONE);
	rb_define_method(rb_cObject, "kind_of_io", kind_of_io, 1);
	rb_define_method(rb_cObject, "kind_of_path", kind_of_path, 1);
}
