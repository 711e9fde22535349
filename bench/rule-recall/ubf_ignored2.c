/* measures: ubf-ignored. Second held-out batch: UBFs through helpers, nested
 * structs, C11 atomics and globals of other shapes, each flag or pipe looked
 * at by nothing in this gem. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdatomic.h>
#include <poll.h>
#include <unistd.h>
#include <sys/socket.h>

struct ctl {
	atomic_int abort_flag;
	int halt;
};

struct task {
	struct ctl ctl;
	int fd, notify_w, notify_r;
	long n, out;
	unsigned char *data;
	int done;
};

static int g_quit;
static int g_pipe_w;
static struct ctl g_ctl;

static void *t_xor(void *p)
{
	struct task *t = p;
	for (long i = 0; i < t->n; i++)
		t->out ^= t->data[i];
	return NULL;
}

static void set_halt(struct task *t)
{
	t->ctl.halt = 1;
}
static void u_via_helper(void *p)
{
	set_halt(p);
}

static void u_atomic(void *p)
{
	struct task *t = p;
	atomic_store(&t->ctl.abort_flag, 1);
}

static void *t_sum2(void *p)
{
	struct task *t = p;
	long s = 0;
	for (long i = 0; i < t->n; i++)
		s += t->data[i] * i;
	t->out = s;
	return NULL;
}
static void u_global_quit(void *p)
{
	(void)p;
	g_quit = 1;
}

static void *t_recvfrom(void *p)
{
	struct task *t = p;
	t->out = recvfrom(t->fd, t->data, (size_t)t->n, 0, NULL, NULL);
	return NULL;
}
static void u_notify(void *p)
{
	struct task *t = p;
	static const char b = 'x';
	(void)write(t->notify_w, &b, 1);
}

static void *t_poll_one(void *p)
{
	struct task *t = p;
	struct pollfd f = {t->fd, POLLOUT, 0};
	t->out = poll(&f, 1, 5000);
	return NULL;
}
static void u_global_pipe(void *p)
{
	(void)p;
	char b = 0;
	(void)write(g_pipe_w, &b, 1);
}

static void *t_mix(void *p)
{
	struct task *t = p;
	for (long i = 0; i < t->n; i++)
		t->data[i] = (unsigned char)(t->data[i] * 7 + 3);
	return NULL;
}
static void u_global_struct(void *p)
{
	(void)p;
	g_ctl.halt = 1;
}

static void u_done(void *p)
{
	struct task *t = p;
	t->done = 1;
}

static VALUE t_run(VALUE self)
{
	struct task t = {0};
	rb_thread_call_without_gvl(t_xor, &t, u_via_helper, &t); /* want: ubf-ignored */
	rb_thread_call_without_gvl(t_xor, &t, u_atomic, &t); /* want: ubf-ignored */
	rb_thread_call_without_gvl(t_sum2, &t, u_global_quit, &t); /* want: ubf-ignored */
	rb_thread_call_without_gvl(t_recvfrom, &t, u_notify, &t); /* want: ubf-ignored */
	rb_thread_call_without_gvl(t_poll_one, &t, u_global_pipe, &t); /* want: ubf-ignored */
	rb_thread_call_without_gvl(t_mix, &t, u_global_struct, &t); /* want: ubf-ignored */
	rb_nogvl(t_sum2, &t, u_done, &t, RB_NOGVL_UBF_ASYNC_SAFE); /* want: ubf-ignored */
	return LONG2NUM(t.out);
}

void Init_ubf_ignored2(void)
{
	rb_define_method(rb_cObject, "t_run", t_run, 0);
}
