/* RUBY_UBF_IO interrupts a blocked system call with a signal; a library that
 * restarts its wait on EINTR (libpq's PQexec, per its model) just waits
 * again, so Ctrl-C, Thread#kill and timeouts cannot end the call. A UBF that
 * cancels the library's operation can; a plain read() under RUBY_UBF_IO is
 * fine. PQsetnonblocking elsewhere in the gem changes nothing: PQexec
 * ignores it (eintr_nonblock.c has a library whose non-blocking mode does
 * count). */
#include <ruby.h>
#include <ruby/thread.h>
#include <unistd.h>

typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
PGresult *PQexec(PGconn *conn, const char *query);
int PQrequestCancel(PGconn *conn);
int PQsetnonblocking(PGconn *conn, int arg);

struct exec_args {
	PGconn *conn;
	PGresult *res;
	int fd;
	char buf[64];
	ssize_t n;
};

static void *exec_nogvl(void *p)
{
	struct exec_args *a = p;
	a->res = PQexec(a->conn, "SELECT pg_sleep(60)"); /* expect: uninterruptible-blocking */ /* expect-msg: 'PQexec' restarts its wait on EINTR */
	return NULL;
}

static void *read_nogvl(void *p)
{
	struct exec_args *a = p;
	a->n = read(a->fd, a->buf, sizeof(a->buf));
	return NULL;
}

static void cancel_query(void *p)
{
	struct exec_args *a = p;
	PQrequestCancel(a->conn);
}

PGconn *conn_of(VALUE self);

static VALUE conn_exec(VALUE self)
{
	struct exec_args a = {conn_of(self), NULL, -1, {0}, 0};
	rb_thread_call_without_gvl(exec_nogvl, &a, RUBY_UBF_IO, NULL);
	return a.res ? Qtrue : Qfalse;
}

static VALUE conn_exec_cancellable(VALUE self)
{
	struct exec_args a = {conn_of(self), NULL, -1, {0}, 0};
	PQsetnonblocking(a.conn, 1);
	rb_thread_call_without_gvl(exec_nogvl, &a, cancel_query, &a);
	return a.res ? Qtrue : Qfalse;
}

static VALUE fd_read(VALUE self, VALUE fd)
{
	struct exec_args a = {NULL, NULL, NUM2INT(fd), {0}, 0};
	rb_thread_call_without_gvl(read_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	return rb_str_new(a.buf, a.n > 0 ? a.n : 0);
}

void Init_eintr_retry(void)
{
	VALUE c = rb_define_class("Conn", rb_cObject);
	rb_define_method(c, "exec", conn_exec, 0);
	rb_define_method(c, "exec_cancellable", conn_exec_cancellable, 0);
	rb_define_method(c, "read_fd", fd_read, 1);
}
