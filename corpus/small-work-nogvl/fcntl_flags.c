/* nogvl-lint-test: --disable offload-candidate */
/* fcntl that reads or sets descriptor or status flags only updates the file
 * table: bounded, small work. A lock that waits (F_SETLKW) is not, nor is a
 * command that is not a constant (the offload verdicts are not this case's
 * business). */
#include <ruby.h>
#include <ruby/thread.h>
#include <fcntl.h>

struct fl_args {
	int fd, cmd;
	long out;
	struct flock lk;
};

static void *get_flags(void *p)
{
	struct fl_args *a = p;
	a->out = fcntl(a->fd, F_GETFL);
	return NULL;
}

static void *set_nonblock(void *p)
{
	struct fl_args *a = p;
	a->out = fcntl(a->fd, F_SETFL, O_NONBLOCK);
	return NULL;
}

static void *wait_lock(void *p)
{
	struct fl_args *a = p;
	a->out = fcntl(a->fd, F_SETLKW, &a->lk);
	return NULL;
}

static void *any_cmd(void *p)
{
	struct fl_args *a = p;
	a->out = fcntl(a->fd, a->cmd);
	return NULL;
}

static VALUE fl_run(VALUE self, VALUE fd)
{
	struct fl_args a = {0};
	a.fd = NUM2INT(fd);
	rb_thread_call_without_gvl(get_flags, &a, NULL, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(set_nonblock, &a, NULL, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(wait_lock, &a, RUBY_UBF_IO, NULL); /* trap: small-work-nogvl */
	rb_thread_call_without_gvl(any_cmd, &a, RUBY_UBF_IO, NULL); /* trap: small-work-nogvl */
	return LONG2NUM(a.out);
}

void Init_fcntl_flags(void)
{
	rb_define_method(rb_cObject, "fl_run", fl_run, 1);
}
