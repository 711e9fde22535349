/* measures: ubf-ignored. Second held-out batch of traps: the flag is read
 * (through a helper, an atomic load, a nested struct, a global checked by a
 * slicing loop on the caller's side), or the pipe's read end is polled. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdatomic.h>
#include <poll.h>
#include <unistd.h>

struct ctl {
	atomic_int abort_flag;
	int halt;
};

struct task {
	struct ctl ctl;
	int fd, notify_w, notify_r;
	long n, out, pos;
	unsigned char *data;
};

static volatile int g_quit;

static int halted(const struct ctl *c)
{
	return c->halt;
}

static void *t_xor(void *p)
{
	struct task *t = p;
	for (long i = 0; i < t->n && !halted(&t->ctl); i++)
		t->out ^= t->data[i];
	return NULL;
}
static void u_halt(void *p)
{
	struct task *t = p;
	t->ctl.halt = 1;
}

static void *t_atomic_loop(void *p)
{
	struct task *t = p;
	for (long i = 0; i < t->n; i++) {
		if (atomic_load(&t->ctl.abort_flag))
			break;
		t->out += t->data[i];
	}
	return NULL;
}
static void u_atomic(void *p)
{
	struct task *t = p;
	atomic_store(&t->ctl.abort_flag, 1);
}

static void *t_slice(void *p)
{
	struct task *t = p;
	long end = t->pos + 4096 < t->n ? t->pos + 4096 : t->n;
	for (; t->pos < end; t->pos++)
		t->out += t->data[t->pos];
	return NULL;
}
static void u_quit(void *p)
{
	(void)p;
	g_quit = 1;
}

static void *t_poll_both(void *p)
{
	struct task *t = p;
	struct pollfd f[2] = {{t->fd, POLLIN, 0}, {t->notify_r, POLLIN, 0}};
	t->out = poll(f, 2, -1);
	return NULL;
}
static void u_notify(void *p)
{
	struct task *t = p;
	char b = 1;
	(void)write(t->notify_w, &b, 1);
}

static VALUE t_run(VALUE self)
{
	struct task t = {0};
	rb_thread_call_without_gvl(t_xor, &t, u_halt, &t); /* trap */
	rb_thread_call_without_gvl(t_atomic_loop, &t, u_atomic, &t); /* trap */
	while (!g_quit && t.pos < t.n)
		rb_thread_call_without_gvl(t_slice, &t, u_quit, &t); /* trap */
	rb_thread_call_without_gvl(t_poll_both, &t, u_notify, &t); /* trap */
	return LONG2NUM(t.out);
}

void Init_ubf_ignored2_traps(void)
{
	rb_define_method(rb_cObject, "t_run", t_run, 0);
}
