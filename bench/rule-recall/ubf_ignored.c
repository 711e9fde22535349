/* measures: ubf-ignored. Held-out shapes whose UBF changes nothing the callback looks at; their traps, which share flags, are in ubf_ignored_traps.c (the rule counts a read of the flag anywhere in the gem) (bench/rule-recall/measure). */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

struct job {
	volatile int cancel;
	volatile sig_atomic_t stop_req;
	int sock, wake_rd, wake_wr, efd;
	long n, out;
	unsigned char *buf;
	pthread_mutex_t m;
	pthread_cond_t cv;
	int ready;
};

static volatile int g_abort;
static int g_wake[2];

long crunch(const unsigned char *buf, long n, volatile int *cancel);

/* positives: the UBF sets or writes something nothing looks at */
static void *ig_sum(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++)
		j->out += j->buf[i];
	return NULL;
}
static void ig_cancel(void *p)
{
	struct job *j = p;
	j->cancel = 1;
}

static void *ig_hash(void *p)
{
	struct job *j = p;
	unsigned long h = 5381;
	for (long i = 0; i < j->n; i++)
		h = h * 33 + j->buf[i];
	j->out = (long)h;
	return NULL;
}
static void ig_global(void *p)
{
	(void)p;
	g_abort = 1;
}

static void *ig_recv(void *p)
{
	struct job *j = p;
	j->out = recv(j->sock, j->buf, (size_t)j->n, 0);
	return NULL;
}
static void ig_pipe(void *p)
{
	struct job *j = p;
	char c = 1;
	(void)write(j->wake_wr, &c, 1);
}

static void *ig_read(void *p)
{
	struct job *j = p;
	j->out = read(j->sock, j->buf, (size_t)j->n);
	return NULL;
}
static void ig_eventfd(void *p)
{
	struct job *j = p;
	eventfd_write(j->efd, 1);
}

static void *ig_sigflag_work(void *p)
{
	struct job *j = p;
	for (long i = 1; i < j->n; i++)
		j->out = j->out * 31 + i;
	return NULL;
}
static void ig_sigflag(void *p)
{
	struct job *j = p;
	j->stop_req = 1;
}

static void *ig_poll_sock(void *p)
{
	struct job *j = p;
	struct pollfd f = {j->sock, POLLIN, 0};
	j->out = poll(&f, 1, -1);
	return NULL;
}
static void ig_pipe_global(void *p)
{
	(void)p;
	char c = 0;
	(void)write(g_wake[1], &c, 1);
}

static void *ig_copy(void *p)
{
	struct job *j = p;
	for (long i = 0; i + 1 < j->n; i++)
		j->buf[i] = j->buf[i + 1];
	return NULL;
}
static void ig_two_flags(void *p)
{
	struct job *j = p;
	j->cancel = 1;
	j->stop_req = 1;
}

static void *ig_accept(void *p)
{
	struct job *j = p;
	j->out = accept(j->sock, NULL, NULL);
	return NULL;
}
static void ig_flag_and_pipe(void *p)
{
	struct job *j = p;
	char c = 1;
	j->cancel = 1;
	(void)write(j->wake_wr, &c, 1);
}

static VALUE ig_run(VALUE self)
{
	struct job j = {0};
	rb_thread_call_without_gvl(ig_sum, &j, ig_cancel, &j); /* want: ubf-ignored */
	rb_thread_call_without_gvl(ig_hash, &j, ig_global, &j); /* want: ubf-ignored */
	rb_thread_call_without_gvl(ig_recv, &j, ig_pipe, &j); /* want: ubf-ignored */
	rb_thread_call_without_gvl(ig_read, &j, ig_eventfd, &j); /* want: ubf-ignored */
	rb_thread_call_without_gvl(ig_sigflag_work, &j, ig_sigflag, &j); /* want: ubf-ignored */
	rb_thread_call_without_gvl(ig_poll_sock, &j, ig_pipe_global, &j); /* want: ubf-ignored */
	rb_thread_call_without_gvl(ig_copy, &j, ig_two_flags, &j); /* want: ubf-ignored */
	rb_thread_call_without_gvl(ig_accept, &j, ig_flag_and_pipe, &j); /* want: ubf-ignored */
	return LONG2NUM(j.out);
}

void Init_ubf_ignored(void)
{
	rb_define_method(rb_cObject, "ig_run", ig_run, 0);
}
