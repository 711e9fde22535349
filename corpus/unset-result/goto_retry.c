/* nogvl-lint-test: --disable offload-candidate */
/* `goto retry` around a release that may not run the callback (stop 24 left
 * open whether unset-result should use retry regions, RG_RETRY). It does not
 * need them: a branch whose last statement is a backward goto already ends
 * the path for the rule (ends_with_return; a forward one resumes at its
 * label: goto_out.c), so `if (!ran) goto retry;` guards what follows like
 * `if (!ran) return;`, and a result set
 * before the call inside the retry region is set on every pass. What the
 * goto does not excuse: a retry decided by a result field the callback may
 * not have written. */
#include <ruby.h>
#include <ruby/thread.h>

struct rd {
	int fd;
	long n;
	int err;
};

static void *read_nogvl(void *p)
{
	struct rd *r = p;
	r->n = r->fd * 2;
	r->err = 0;
	return p;
}

/* trap: the callback's return value checked, retried with goto when it did not run */
static VALUE read_retry(VALUE self, VALUE fd)
{
	struct rd r;
	void *ran;
	r.fd = NUM2INT(fd);
retry:
	ran = rb_nogvl(read_nogvl, &r, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL);
	if (!ran) {
		rb_thread_check_ints();
		goto retry;
	}
	return LONG2NUM(r.n);
}

/* retried only on an error the callback reports: when it did not run, r.err is garbage */
static VALUE read_retry_err(VALUE self, VALUE fd)
{
	struct rd r;
	r.fd = NUM2INT(fd);
retry:
	rb_nogvl(read_nogvl, &r, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL);
	if (r.err == EINTR) /* expect: unset-result */
		goto retry;
	return LONG2NUM(r.n); /* expect: unset-result */
}

/* trap: the result is set after the label, before the call, on every pass */
static VALUE read_retry_reset(VALUE self, VALUE fd)
{
	struct rd r;
	r.fd = NUM2INT(fd);
retry:
	r.n = -1;
	rb_nogvl(read_nogvl, &r, RUBY_UBF_IO, NULL, RB_NOGVL_INTR_FAIL);
	if (r.n < 0) {
		rb_thread_check_ints();
		goto retry;
	}
	return LONG2NUM(r.n);
}

void Init_goto_retry(void)
{
	rb_define_method(rb_cObject, "read_retry", read_retry, 1);
	rb_define_method(rb_cObject, "read_retry_err", read_retry_err, 1);
	rb_define_method(rb_cObject, "read_retry_reset", read_retry_reset, 1);
}
