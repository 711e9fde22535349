/* ubf-ignored traps: UBFs whose flag or pipe the callback does look at. */
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

/* polls the volatile flag between iterations */
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

/* waits on the data fd and the self-pipe */
static void *read_or_wake_nogvl(void *p)
{
	struct work *w = p;
	struct pollfd fds[2] = {{w->fd, POLLIN, 0}, {w->wake_r, POLLIN, 0}};
	if (poll(fds, 2, -1) > 0 && (fds[0].revents & POLLIN))
		w->got = read(w->fd, w->buf, sizeof(w->buf));
	return NULL;
}

static void *count_nogvl(void *p)
{
	struct work *w = p;
	while (!global_stop && w->h < 1000000)
		w->h++;
	return NULL;
}

static void *plain_nogvl(void *p)
{
	struct work *w = p;
	for (size_t i = 0; i < w->n; i++)
		w->h += w->p[i];
	return NULL;
}

VALUE polled_sites(VALUE self)
{
	struct work w = {0};
	rb_thread_call_without_gvl(hash_polling_nogvl, &w, set_stop, &w); /* expect: offload-candidate */
	rb_thread_call_without_gvl(hash_atomic_nogvl, &w, set_cancel_atomic, &w); /* expect: offload-candidate */
	rb_thread_call_without_gvl(read_or_wake_nogvl, &w, wake_pipe, &w); /* expect: offload-candidate */
	rb_thread_call_without_gvl(count_nogvl, &w, set_global, &w); /* expect: offload-candidate */
	rb_thread_call_without_gvl(plain_nogvl, &w, nothing, &w); /* expect: offload-candidate */
	return ULONG2NUM(w.h);
}
