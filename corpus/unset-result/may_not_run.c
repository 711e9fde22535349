/* rb_thread_call_without_gvl2 and rb_nogvl(..., RB_NOGVL_INTR_FAIL) return
 * without running the callback when an interrupt is pending: a result field
 * the callback would have written then holds whatever was on the stack. With
 * only RB_NOGVL_OFFLOAD_SAFE the callback runs or the call raises (a trap). */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct recv_args {
	int fd;
	long want;
	long got;
	int err;
	char *buf;
};

long lib_recv(int fd, char *buf, long n, int *err);

static void *recv_nogvl(void *p)
{
	struct recv_args *a = p;
	a->got = lib_recv(a->fd, a->buf, a->want, &a->err);
	return a;
}

static VALUE recv_gvl2(VALUE self, VALUE fd)
{
	struct recv_args a;
	char buf[256] = "";
	a.fd = NUM2INT(fd);
	a.want = sizeof(buf);
	a.buf = buf;
	rb_thread_call_without_gvl2(recv_nogvl, &a, NULL, NULL);
	if (a.got < 0) /* expect: unset-result */ /* expect-msg: 'a.got' */
		rb_syserr_fail(a.err, "recv"); /* expect: unset-result */ /* expect-msg: 'a.err' */
	return LONG2NUM(a.got);
}

static VALUE recv_intr_fail(VALUE self, VALUE fd)
{
	struct recv_args a;
	char buf[512];
	a.fd = NUM2INT(fd);
	a.want = sizeof(buf);
	a.buf = buf;
	a.err = 0;
	rb_nogvl(recv_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL);
	return rb_str_new(buf, a.got); /* expect: unset-result, unset-result */ /* expect-msg: 'a.got' */ /* expect-msg: 'buf' */
}

static VALUE recv_offload(VALUE self, VALUE fd)
{
	struct recv_args a;
	char buf[512];
	memset(buf, 0, sizeof(buf));
	a.fd = NUM2INT(fd);
	a.want = sizeof(buf);
	a.buf = buf;
	a.err = 0;
	rb_nogvl(recv_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	return rb_str_new(buf, a.got); /* the callback ran, or rb_nogvl raised: never read unset */
}

/* The return value is NULL when the callback did not run. */
static VALUE recv_result_ptr(VALUE self, VALUE fd)
{
	struct recv_args a = {0};
	char buf[64];
	a.fd = NUM2INT(fd);
	a.want = sizeof(buf);
	a.buf = buf;
	struct recv_args *r = rb_thread_call_without_gvl2(recv_nogvl, &a, NULL, NULL);
	return LONG2NUM(r->got); /* expect: unset-result */ /* expect-msg: NULL */
}

void Init_may_not_run(void)
{
	VALUE c = rb_define_class("Recv", rb_cObject);
	rb_define_method(c, "gvl2", recv_gvl2, 1);
	rb_define_method(c, "intr_fail", recv_intr_fail, 1);
	rb_define_method(c, "offload", recv_offload, 1);
	rb_define_method(c, "result_ptr", recv_result_ptr, 1);
}
