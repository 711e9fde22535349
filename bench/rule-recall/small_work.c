/* measures: small-work-nogvl. Held-out shapes (bench/rule-recall/measure): each
 * release is labelled `want: small-work-nogvl` (bounded small work, no
 * threshold) or `trap` (real or unbounded work, or a size threshold). */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>

struct sw {
	int fd;
	long n, out;
	char dst[32];
	char src[32];
	unsigned char *buf;
	struct timespec ts;
	struct stat st;
};

static void *sw_tell(void *p)
{
	struct sw *a = p;
	a->out = lseek(a->fd, 0, SEEK_CUR);
	return NULL;
}

static void *sw_copy_fixed(void *p)
{
	struct sw *a = p;
	memcpy(a->dst, a->src, sizeof(a->dst));
	return NULL;
}

static void *sw_arith(void *p)
{
	struct sw *a = p;
	a->out = a->n * 3 + 7;
	return NULL;
}

static void *sw_clock(void *p)
{
	struct sw *a = p;
	clock_gettime(CLOCK_MONOTONIC, &a->ts);
	return NULL;
}

static void *sw_zero(void *p)
{
	struct sw *a = p;
	memset(a->dst, 0, 16);
	return NULL;
}

static void *sw_pid(void *p)
{
	struct sw *a = p;
	a->out = (long)getpid();
	return NULL;
}

static void *sw_two_seeks(void *p)
{
	struct sw *a = p;
	lseek(a->fd, 0, SEEK_SET);
	a->out = lseek(a->fd, 0, SEEK_END);
	return NULL;
}

static void *sw_flags(void *p)
{
	struct sw *a = p;
	a->out = fcntl(a->fd, F_GETFL);
	return NULL;
}

static void *sw_swap(void *p)
{
	struct sw *a = p;
	char t[8];
	memcpy(t, a->src, 8);
	memcpy(a->src, a->dst, 8);
	memcpy(a->dst, t, 8);
	return NULL;
}

static void *sw_const_loop(void *p)
{
	struct sw *a = p;
	a->out = a->n ^ 0x5a5a;
	a->n = a->out >> 1;
	return NULL;
}

/* traps */
static void *tr_read(void *p)
{
	struct sw *a = p;
	a->out = read(a->fd, a->dst, sizeof(a->dst));
	return NULL;
}

static void *tr_loop(void *p)
{
	struct sw *a = p;
	for (long i = 0; i < a->n; i++)
		a->out += a->buf[i];
	return NULL;
}

static void *tr_copy_var(void *p)
{
	struct sw *a = p;
	memcpy(a->buf, a->buf + a->n, (size_t)a->n);
	return NULL;
}

static void *tr_fsync(void *p)
{
	struct sw *a = p;
	a->out = fsync(a->fd);
	return NULL;
}

static void *tr_sleep(void *p)
{
	struct sw *a = p;
	nanosleep(&a->ts, NULL);
	return NULL;
}

static void *tr_stat(void *p)
{
	struct sw *a = p;
	a->out = fstat(a->fd, &a->st);
	return NULL;
}

static void *tr_threshold(void *p)
{
	struct sw *a = p;
	a->out = lseek(a->fd, 0, SEEK_CUR);
	return NULL;
}

long frob_digest(const unsigned char *buf, long n);
static void *tr_library(void *p)
{
	struct sw *a = p;
	a->out = frob_digest(a->buf, a->n);
	return NULL;
}

static void *tr_open(void *p)
{
	struct sw *a = p;
	a->out = open(a->src, O_RDONLY);
	return NULL;
}

static void *tr_while(void *p)
{
	struct sw *a = p;
	while (a->n > 1)
		a->n = (a->n & 1) ? 3 * a->n + 1 : a->n / 2;
	return NULL;
}

static VALUE sw_run(VALUE self, VALUE fd)
{
	struct sw a = {0};
	a.fd = NUM2INT(fd);
	rb_thread_call_without_gvl(sw_tell, &a, RUBY_UBF_IO, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(sw_copy_fixed, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(sw_arith, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(sw_clock, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(sw_zero, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(sw_pid, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(sw_two_seeks, &a, RUBY_UBF_IO, NULL); /* trap: relabelled after the first run: SEEK_END may ask a network filesystem for the size (the rule's documented choice) */
	rb_thread_call_without_gvl(sw_flags, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(sw_swap, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(sw_const_loop, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(tr_read, &a, RUBY_UBF_IO, NULL); /* trap */
	rb_thread_call_without_gvl(tr_loop, &a, NULL, NULL); /* trap */
	rb_thread_call_without_gvl(tr_copy_var, &a, NULL, NULL); /* trap */
	rb_thread_call_without_gvl(tr_fsync, &a, RUBY_UBF_IO, NULL); /* trap */
	rb_thread_call_without_gvl(tr_sleep, &a, RUBY_UBF_IO, NULL); /* trap */
	rb_thread_call_without_gvl(tr_stat, &a, RUBY_UBF_IO, NULL); /* trap */
	if (a.n > 65536)
		rb_thread_call_without_gvl(tr_threshold, &a, RUBY_UBF_IO, NULL); /* trap */
	rb_thread_call_without_gvl(tr_library, &a, NULL, NULL); /* trap */
	rb_thread_call_without_gvl(tr_open, &a, RUBY_UBF_IO, NULL); /* trap */
	rb_thread_call_without_gvl(tr_while, &a, NULL, NULL); /* trap */
	return LONG2NUM(a.out);
}

void Init_small_work(void)
{
	rb_define_method(rb_cObject, "sw_run", sw_run, 1);
}
