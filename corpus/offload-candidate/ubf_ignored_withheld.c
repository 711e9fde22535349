/* nogvl-lint-test: --enable debug-offload-verdict */
/* Every gate holds, but the unblocking function sets a flag the callback
 * never reads (ubf-ignored). Offloading makes cancellation routine: a fiber
 * scheduler's timeout or task stop runs the UBF on the event-loop thread and
 * then waits for the worker, so each cancel would hold the fiber and a pool
 * worker for the callback's whole run. The suggestion waits until the UBF
 * works. The fixed callback, which polls the flag, is offered. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>

struct hash_args {
	unsigned char *buf;
	long n;
	unsigned long out;
	volatile int stop;
};

static void *hash_nogvl(void *p)
{
	struct hash_args *a = p;
	for (long i = 0; i < a->n; i++)
		a->out = a->out * 31 + a->buf[i];
	return NULL;
}

static void hash_ubf(void *p)
{
	struct hash_args *a = p;
	a->stop = 1;
}

static VALUE hash_free(VALUE p)
{
	free((void *)p);
	return Qnil;
}

struct hash_call {
	struct hash_args a;
};

static VALUE hash_run(VALUE p)
{
	struct hash_args *a = (struct hash_args *)p;
	rb_nogvl(hash_nogvl, a, hash_ubf, a, 0); /* expect: ubf-ignored, debug-offload-verdict */ /* expect-msg: offload verdict: candidate (withheld: ubf-ignored, the callback ignores the unblocking function of line 46) */
	return Qnil;
}

static VALUE hash_ignored(VALUE self, VALUE len)
{
	struct hash_args a = {0};
	(void)self;
	a.n = NUM2LONG(len);
	a.buf = calloc(1, (size_t)a.n + 1);
	rb_ensure(hash_run, (VALUE)&a, hash_free, (VALUE)a.buf);
	return ULONG2NUM(a.out);
}

/* The fixed shape: the callback checks the flag between slices. */
struct sum_args {
	unsigned char *buf;
	long n;
	unsigned long out;
	volatile int stop;
};

static void *sum_nogvl(void *p)
{
	struct sum_args *a = p;
	for (long i = 0; i < a->n && !a->stop; i++)
		a->out += a->buf[i];
	return NULL;
}

static void sum_ubf(void *p)
{
	struct sum_args *a = p;
	a->stop = 1;
}

static VALUE sum_run(VALUE p)
{
	struct sum_args *a = (struct sum_args *)p;
	rb_nogvl(sum_nogvl, a, sum_ubf, a, 0); /* expect: offload-candidate:note, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return Qnil;
}

static VALUE sum_polled(VALUE self, VALUE len)
{
	struct sum_args a = {0};
	(void)self;
	a.n = NUM2LONG(len);
	a.buf = calloc(1, (size_t)a.n + 1);
	rb_ensure(sum_run, (VALUE)&a, hash_free, (VALUE)a.buf);
	return ULONG2NUM(a.out);
}

void Init_ubf_ignored_withheld(void)
{
	rb_define_method(rb_cObject, "hash_ignored", hash_ignored, 1);
	rb_define_method(rb_cObject, "sum_polled", sum_polled, 1);
}
