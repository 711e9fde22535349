/* ubf-ignored: a custom UBF whose signal the callback never looks at, and the
 * UBFs that work. */
#include <ruby.h>
#include <ruby/thread.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

struct work {
	const unsigned char *p;
	size_t n;
	unsigned long h;
	volatile int stop;
	_Atomic int cancel;
	int wake_r, wake_w;
	int fd;
	char buf[256];
	long got;
};

static volatile sig_atomic_t global_stop;

/* ---- the UBFs ---- */

static void set_stop(void *p)
{
	struct work *w = p;
	w->stop = 1;
}

static void set_cancel_atomic(void *p)
{
	struct work *w = p;
	atomic_store(&w->cancel, 1);
}

static void wake_pipe(void *p)
{
	struct work *w = p;
	char c = 1;
	w->stop = 1;
	(void)write(w->wake_w, &c, 1);
}

static void wake_only(void *p)
{
	struct work *w = p;
	char c = 1;
	(void)write(w->wake_w, &c, 1);
}

static void set_global(void *p)
{
	(void)p;
	global_stop = 1;
}

static void nothing(void *p)
{
	(void)p; /* "no safe way to interrupt": deliberately empty */
}

/* ---- callbacks ---- */

/* never looks at any flag */
static void *hash_nogvl(void *p)
{
	struct work *w = p;
	for (size_t i = 0; i < w->n; i++)
		w->h = (w->h ^ w->p[i]) * 1099511628211UL;
	return NULL;
}

/* polls the volatile flag between slices */
static void *hash_polling_nogvl(void *p)
{
	struct work *w = p;
	for (size_t i = 0; i < w->n && !w->stop; i++)
		w->h = (w->h ^ w->p[i]) * 1099511628211UL;
	return NULL;
}

/* polls the atomic flag */
static void *hash_atomic_nogvl(void *p)
{
	struct work *w = p;
	for (size_t i = 0; i < w->n; i++) {
		if (atomic_load(&w->cancel))
			break;
		w->h = (w->h ^ w->p[i]) * 1099511628211UL;
	}
	return NULL;
}

/* the flag is read in a helper */
static int cancelled(const struct work *w)
{
	return w->stop;
}

static void *hash_helper_nogvl(void *p)
{
	struct work *w = p;
	for (size_t i = 0; i < w->n; i++) {
		if (cancelled(w))
			break;
		w->h = (w->h ^ w->p[i]) * 1099511628211UL;
	}
	return NULL;
}

/* waits on the data fd and the self-pipe */
static void *read_or_wake_nogvl(void *p)
{
	struct work *w = p;
	struct pollfd fds[2] = {{w->fd, POLLIN, 0}, {w->wake_r, POLLIN, 0}};
	if (poll(fds, 2, -1) > 0 && (fds[0].revents & POLLIN))
		w->got = read(w->fd, w->buf, sizeof(w->buf));
	return NULL;
}

static void *global_polling_nogvl(void *p)
{
	struct work *w = p;
	while (!global_stop && w->h < 1000000)
		w->h++;
	return NULL;
}

VALUE ubf_sites(VALUE self)
{
	struct work w = {0};
	rb_thread_call_without_gvl(hash_nogvl, &w, set_stop, &w); /* expect: ubf-ignored */ /* expect-msg: the unblocking function 'set_stop' sets 'stop', but the callback 'hash_nogvl' never reads it */
	rb_thread_call_without_gvl(hash_nogvl, &w, set_cancel_atomic, &w); /* expect: ubf-ignored */
	rb_thread_call_without_gvl(hash_nogvl, &w, wake_only, &w); /* expect: ubf-ignored */ /* expect-msg: writes to a pipe or eventfd, but the callback 'hash_nogvl' never waits on one */
	rb_thread_call_without_gvl(hash_nogvl, &w, wake_pipe, &w); /* expect: ubf-ignored */ /* expect-msg: sets 'stop' and writes to a pipe */
	rb_thread_call_without_gvl(hash_nogvl, &w, set_global, &w); /* expect: ubf-ignored */ /* expect-msg: sets 'global_stop' */
	/* traps */
	rb_thread_call_without_gvl(hash_polling_nogvl, &w, set_stop, &w);
	rb_thread_call_without_gvl(hash_atomic_nogvl, &w, set_cancel_atomic, &w);
	rb_thread_call_without_gvl(hash_helper_nogvl, &w, set_stop, &w);
	rb_thread_call_without_gvl(read_or_wake_nogvl, &w, wake_only, &w);
	rb_thread_call_without_gvl(read_or_wake_nogvl, &w, wake_pipe, &w);
	rb_thread_call_without_gvl(global_polling_nogvl, &w, set_global, &w);
	rb_thread_call_without_gvl(hash_nogvl, &w, nothing, &w);
	return ULONG2NUM(w.h);
}
