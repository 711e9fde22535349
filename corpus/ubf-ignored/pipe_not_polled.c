/* A UBF that writes to a pipe or eventfd only wakes a callback that waits on
 * that descriptor. Waiting on other descriptors (a read on the socket, a
 * poll or select of the socket alone, an accept) does not count. Traps: the
 * pipe's read end polled under its own name (wake_r for wake_w), a pollfd
 * set prepared by the caller, an eventfd polled with the socket. */
#include <ruby.h>
#include <ruby/thread.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn {
	int fd;
	int wake[2];
	int wake_r, wake_w;
	int efd;
	struct pollfd pfds[2];
	char buf[64];
	ssize_t n;
};

static void wake_pipe(void *p)
{
	struct conn *c = p;
	char b = 1;
	(void)!write(c->wake[1], &b, 1);
}

static void wake_named(void *p)
{
	struct conn *c = p;
	char b = 1;
	(void)!write(c->wake_w, &b, 1);
}

static void wake_event(void *p)
{
	struct conn *c = p;
	eventfd_write(c->efd, 1);
}

static void poke(int fd)
{
	char b = 1;
	(void)!write(fd, &b, 1);
}

static void wake_via_helper(void *p)
{
	struct conn *c = p;
	poke(c->wake[1]);
}

static void *read_socket(void *p)
{
	struct conn *c = p;
	c->n = read(c->fd, c->buf, sizeof(c->buf));
	return NULL;
}

static void *poll_socket(void *p)
{
	struct conn *c = p;
	struct pollfd f = {c->fd, POLLIN, 0};
	if (poll(&f, 1, -1) > 0)
		c->n = read(c->fd, c->buf, sizeof(c->buf));
	return NULL;
}

static void *select_socket(void *p)
{
	struct conn *c = p;
	fd_set r;
	FD_ZERO(&r);
	FD_SET(c->fd, &r);
	if (select(c->fd + 1, &r, NULL, NULL, NULL) > 0)
		c->n = read(c->fd, c->buf, sizeof(c->buf));
	return NULL;
}

static void *accept_socket(void *p)
{
	struct conn *c = p;
	c->n = accept(c->fd, NULL, NULL);
	return NULL;
}

static void *poll_both_named(void *p)
{
	struct conn *c = p;
	struct pollfd f[2] = {{c->fd, POLLIN, 0}, {c->wake_r, POLLIN, 0}};
	if (poll(f, 2, -1) > 0 && (f[0].revents & POLLIN))
		c->n = read(c->fd, c->buf, sizeof(c->buf));
	return NULL;
}

static void *poll_prepared(void *p)
{
	struct conn *c = p;
	if (poll(c->pfds, 2, -1) > 0 && (c->pfds[0].revents & POLLIN))
		c->n = read(c->fd, c->buf, sizeof(c->buf));
	return NULL;
}

static void *poll_event(void *p)
{
	struct conn *c = p;
	struct pollfd f[2] = {{c->fd, POLLIN, 0}, {c->efd, POLLIN, 0}};
	if (poll(f, 2, -1) > 0 && (f[0].revents & POLLIN))
		c->n = read(c->fd, c->buf, sizeof(c->buf));
	return NULL;
}

struct conn *conn_of(VALUE self);

static VALUE conn_wait(VALUE self)
{
	struct conn *c = conn_of(self);
	rb_thread_call_without_gvl(read_socket, c, wake_pipe, c); /* expect: ubf-ignored */ /* expect-msg: 'read_socket' never waits on it */
	rb_thread_call_without_gvl(poll_socket, c, wake_pipe, c); /* expect: ubf-ignored */
	rb_thread_call_without_gvl(select_socket, c, wake_event, c); /* expect: ubf-ignored */
	rb_thread_call_without_gvl(accept_socket, c, wake_named, c); /* expect: ubf-ignored */
	rb_thread_call_without_gvl(poll_both_named, c, wake_named, c); /* expect: offload-candidate */
	rb_thread_call_without_gvl(poll_event, c, wake_event, c); /* expect: offload-candidate */
	return LONG2NUM((long)c->n);
}

static VALUE conn_wait_prepared(VALUE self)
{
	struct conn *c = conn_of(self);
	c->pfds[0].fd = c->fd;
	c->pfds[0].events = POLLIN;
	c->pfds[1].fd = c->wake[0];
	c->pfds[1].events = POLLIN;
	rb_thread_call_without_gvl(poll_prepared, c, wake_pipe, c); /* expect: offload-candidate */
	return LONG2NUM((long)c->n);
}

static VALUE conn_wait_helper(VALUE self)
{
	struct conn *c = conn_of(self);
	rb_thread_call_without_gvl(read_socket, c, wake_via_helper, c); /* expect: ubf-ignored */
	return LONG2NUM((long)c->n);
}

void Init_pipe_not_polled(void)
{
	rb_define_method(rb_cObject, "conn_wait", conn_wait, 0);
	rb_define_method(rb_cObject, "conn_wait_prepared", conn_wait_prepared, 0);
	rb_define_method(rb_cObject, "conn_wait_helper", conn_wait_helper, 0);
}
