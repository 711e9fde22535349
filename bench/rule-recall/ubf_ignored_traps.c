/* measures: ubf-ignored. Held-out traps for ubf-ignored: the callback looks at the flag or pipe, or the UBF does something else that may stop it (bench/rule-recall/measure). */
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

/* shared with the positives, as a gem would have them */
static void ig_cancel(void *p)
{
	struct job *j = p;
	j->cancel = 1;
}

static void ig_pipe(void *p)
{
	struct job *j = p;
	char c = 1;
	(void)write(j->wake_wr, &c, 1);
}

static void *ig_recv(void *p)
{
	struct job *j = p;
	j->out = recv(j->sock, j->buf, (size_t)j->n, 0);
	return NULL;
}

static void ig_sigflag(void *p)
{
	struct job *j = p;
	j->stop_req = 1;
}

static void ig_global(void *p)
{
	(void)p;
	g_abort = 1;
}

static void ig_eventfd(void *p)
{
	struct job *j = p;
	eventfd_write(j->efd, 1);
}

static void *ig_read(void *p)
{
	struct job *j = p;
	j->out = read(j->sock, j->buf, (size_t)j->n);
	return NULL;
}

/* traps: the callback looks, or the UBF does something else that may work */
static void *tr_polled(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n && !j->cancel; i++)
		j->out += j->buf[i];
	return NULL;
}

static void *tr_pipe_polled(void *p)
{
	struct job *j = p;
	struct pollfd f[2] = {{j->sock, POLLIN, 0}, {j->wake_rd, POLLIN, 0}};
	if (poll(f, 2, -1) > 0 && (f[0].revents & POLLIN))
		j->out = read(j->sock, j->buf, (size_t)j->n);
	return NULL;
}

static void *tr_cond_wait(void *p)
{
	struct job *j = p;
	pthread_mutex_lock(&j->m);
	while (!j->ready && !j->cancel)
		pthread_cond_wait(&j->cv, &j->m);
	pthread_mutex_unlock(&j->m);
	return NULL;
}
static void tr_cond_cancel(void *p)
{
	struct job *j = p;
	pthread_mutex_lock(&j->m);
	j->cancel = 1;
	pthread_cond_signal(&j->cv);
	pthread_mutex_unlock(&j->m);
}

static void tr_shutdown(void *p)
{
	struct job *j = p;
	shutdown(j->sock, SHUT_RDWR);
}

static int stop_requested(const struct job *j)
{
	return j->stop_req != 0;
}
static void *tr_helper_reads(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++) {
		if (stop_requested(j))
			break;
		j->out += j->buf[i];
	}
	return NULL;
}

static void *tr_library_flag(void *p)
{
	struct job *j = p;
	j->out = crunch(j->buf, j->n, &j->cancel);
	return NULL;
}

static void *tr_global_polled(void *p)
{
	struct job *j = p;
	for (long i = 0; i < j->n; i++) {
		if (g_abort)
			break;
		j->out ^= j->buf[i];
	}
	return NULL;
}

static void *tr_eventfd_polled(void *p)
{
	struct job *j = p;
	struct pollfd f[2] = {{j->sock, POLLIN, 0}, {j->efd, POLLIN, 0}};
	j->out = poll(f, 2, -1);
	return NULL;
}

static void tr_kill(void *p)
{
	(void)p;
	pthread_kill(pthread_self(), SIGUSR1);
}

static VALUE ig_run(VALUE self)
{
	struct job j = {0};
	rb_thread_call_without_gvl(tr_polled, &j, ig_cancel, &j); /* trap */
	rb_thread_call_without_gvl(tr_pipe_polled, &j, ig_pipe, &j); /* trap */
	rb_thread_call_without_gvl(tr_cond_wait, &j, tr_cond_cancel, &j); /* trap */
	rb_thread_call_without_gvl(ig_recv, &j, tr_shutdown, &j); /* trap */
	rb_thread_call_without_gvl(tr_helper_reads, &j, ig_sigflag, &j); /* trap */
	rb_thread_call_without_gvl(tr_library_flag, &j, ig_cancel, &j); /* trap */
	rb_thread_call_without_gvl(tr_global_polled, &j, ig_global, &j); /* trap */
	rb_thread_call_without_gvl(tr_eventfd_polled, &j, ig_eventfd, &j); /* trap */
	rb_thread_call_without_gvl(ig_read, &j, tr_kill, &j); /* trap */
	return LONG2NUM(j.out);
}

void Init_ubf_ignored_traps(void)
{
	rb_define_method(rb_cObject, "ig_run", ig_run, 0);
}
