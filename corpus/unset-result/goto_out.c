/* nogvl-lint-test: --disable offload-candidate,small-work-nogvl */
/* `if (!ran) goto out;` around a release that may not run the callback: the
 * goto skips what lies between it and the label, but the code after the
 * label runs on that path too, so a result read there may be unset. A
 * backward goto (a retry) still ends the path like a return (goto_retry.c). */
#include <ruby.h>
#include <ruby/thread.h>

struct job {
	int fd;
	long n;
	long extra;
};

static void *work_nogvl(void *p)
{
	struct job *j = p;
	j->n = j->fd * 2;
	j->extra = 1;
	return p;
}

/* the result is read after the label the early exit jumps to */
static VALUE run_out(VALUE self, VALUE fd)
{
	struct job j;
	j.fd = NUM2INT(fd);
	if (!rb_nogvl(work_nogvl, &j, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL))
		goto out;
	rb_thread_check_ints();
out:
	return LONG2NUM(j.n); /* expect: unset-result */ /* expect-msg: 'j.n' is read after rb_nogvl */
}

/* trap: the read lies between the goto and its label, which the goto skips */
static VALUE run_skipped(VALUE self, VALUE fd)
{
	struct job j;
	VALUE res = Qnil;
	void *ran;
	j.fd = NUM2INT(fd);
	ran = rb_nogvl(work_nogvl, &j, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL);
	if (ran == NULL)
		goto done;
	res = LONG2NUM(j.n);
done:
	return res;
}

/* the result is set after the call, but only on the path the goto skips */
static VALUE run_set_skipped(VALUE self, VALUE fd)
{
	struct job j;
	j.fd = NUM2INT(fd);
	if (!rb_nogvl(work_nogvl, &j, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL)) {
		rb_thread_check_ints();
		goto out;
	}
	j.extra = 2;
out:
	return LONG2NUM(j.extra); /* expect: unset-result */
}

/* trap: the early exit sets the result itself before it jumps */
static VALUE run_set_on_exit(VALUE self, VALUE fd)
{
	struct job j;
	j.fd = NUM2INT(fd);
	if (!rb_nogvl(work_nogvl, &j, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL)) {
		j.n = -1;
		goto out;
	}
	j.n += 1;
out:
	return LONG2NUM(j.n);
}

/* trap: set before the call, so the label's read is fine on every path */
static VALUE run_preset(VALUE self, VALUE fd)
{
	struct job j = {0};
	j.fd = NUM2INT(fd);
	if (!rb_nogvl(work_nogvl, &j, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL))
		goto out;
	j.n *= 2;
out:
	return LONG2NUM(j.n);
}

/* trap: both gotos, a retry back and a forward exit that returns no result */
static VALUE run_retry_or_fail(VALUE self, VALUE fd)
{
	struct job j;
	int tries = 0;
	j.fd = NUM2INT(fd);
retry:
	if (!rb_nogvl(work_nogvl, &j, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL)) {
		if (++tries < 3)
			goto retry;
		goto fail;
	}
	return LONG2NUM(j.n);
fail:
	return Qnil;
}

/* trap: the goto's label is inside the early exit, which returns */
static VALUE run_inner_label(VALUE self, VALUE fd)
{
	struct job j;
	j.fd = NUM2INT(fd);
	if (!rb_nogvl(work_nogvl, &j, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL)) {
		if (j.fd < 0)
			goto bad_fd;
		rb_thread_check_ints();
	bad_fd:
		return Qnil;
	}
	return LONG2NUM(j.n);
}

void Init_goto_out(void)
{
	rb_define_method(rb_cObject, "run_out", run_out, 1);
	rb_define_method(rb_cObject, "run_skipped", run_skipped, 1);
	rb_define_method(rb_cObject, "run_set_skipped", run_set_skipped, 1);
	rb_define_method(rb_cObject, "run_set_on_exit", run_set_on_exit, 1);
	rb_define_method(rb_cObject, "run_preset", run_preset, 1);
	rb_define_method(rb_cObject, "run_retry_or_fail", run_retry_or_fail, 1);
	rb_define_method(rb_cObject, "run_inner_label", run_inner_label, 1);
}
