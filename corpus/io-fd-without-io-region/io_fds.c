/* A Ruby IO's descriptor used by a blocking call in a plain no-GVL callback:
 * IO#close in another thread neither waits for nor interrupts it. */
#include <ruby.h>
#include <ruby/io.h>
#include <ruby/thread.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct rd {
	int fd;
	char buf[256];
	ssize_t n;
};

static void *read_nogvl(void *p)
{
	struct rd *r = p;
	r->n = read(r->fd, r->buf, sizeof(r->buf)); /* expect: io-fd-without-io-region */ /* expect-msg: 'read' blocks on a Ruby IO's descriptor */
	return NULL;
}

static void *wait_nogvl(void *p)
{
	struct rd *r = p;
	struct pollfd pfd = {r->fd, POLLIN, 0};
	r->n = poll(&pfd, 1, -1); /* expect: io-fd-without-io-region */ /* expect-msg: 'poll' blocks */
	return NULL;
}

static void *recv_nogvl(void *p)
{
	struct rd *r = p;
	r->n = recv(r->fd, r->buf, sizeof(r->buf), 0); /* expect: io-fd-without-io-region */ /* expect-msg: 'recv' blocks */
	return NULL;
}

/* the gem's own helper that returns an IO's descriptor */
static int io_fd_of(VALUE io)
{
	return NUM2INT(rb_funcall(io, rb_intern("fileno"), 0));
}

VALUE read_descriptor(VALUE self, VALUE io)
{
	struct rd r = {0};
	r.fd = rb_io_descriptor(io);
	rb_thread_call_without_gvl(read_nogvl, &r, RUBY_UBF_IO, NULL);
	return LONG2NUM(r.n);
}

VALUE wait_fptr(VALUE self, VALUE io)
{
	rb_io_t *fptr;
	GetOpenFile(io, fptr);
	struct rd r = {0};
	r.fd = fptr->fd;
	rb_thread_call_without_gvl(wait_nogvl, &r, RUBY_UBF_IO, NULL);
	return LONG2NUM(r.n);
}

VALUE wait_fileno(VALUE self, VALUE io)
{
	int fd = NUM2INT(rb_funcall(io, rb_intern("fileno"), 0));
	struct rd r = {0};
	r.fd = fd;
	rb_thread_call_without_gvl(recv_nogvl, &r, RUBY_UBF_IO, NULL);
	return LONG2NUM(r.n);
}

VALUE wait_helper(VALUE self, VALUE io)
{
	struct rd r = {0};
	r.fd = io_fd_of(io);
	rb_nogvl(wait_nogvl, &r, RUBY_UBF_IO, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	return LONG2NUM(r.n);
}
