/* ubf-destroys-state: an unblocking function that destroys, closes or frees
 * what the callback is still using. Ruby calls a UBF for interrupts that do
 * not end the call too (a trap handler, Thread#wakeup), and the callback may
 * still be inside the library using the object: afterwards the object is
 * gone for good. */
#include <poll.h>
#include <ruby.h>
#include <ruby/thread.h>
#include <unistd.h>

/* a library the gem wraps (declared only, as in a vendor header) */
struct lib_chan;
struct lib_queue;
struct lib_timer;
int lib_chan_watch(struct lib_chan *c, int state);
void lib_chan_destroy(struct lib_chan *c);
void lib_chan_cancel(struct lib_chan *c);
int lib_queue_next(struct lib_queue *q);
void lib_queue_shutdown(struct lib_queue *q);
void lib_timer_destroy(struct lib_timer *t);

struct watch {
	struct lib_chan *chan;
	struct lib_timer *timer;
	int state, fd, wake_r, wake_w;
	char buf[64];
	long n;
	volatile int stop;
};

static struct lib_queue *poll_queue;

static void *watch_nogvl(void *p)
{
	struct watch *w = p;
	w->state = lib_chan_watch(w->chan, w->state);
	return NULL;
}

/* bad: the interrupted call's channel is destroyed */
static void destroy_chan(void *p)
{
	struct watch *w = p;
	lib_chan_destroy(w->chan); /* expect: ubf-destroys-state */ /* expect-msg: 'lib_chan_destroy' tears down 'w->chan' */
}

/* bad: the same, one helper further down */
static void drop_chan(struct watch *w)
{
	lib_chan_destroy(w->chan); /* expect: ubf-destroys-state */
}

static void destroy_via_helper(void *p)
{
	drop_chan(p);
}

static void *read_nogvl(void *p)
{
	struct watch *w = p;
	w->n = read(w->fd, w->buf, sizeof(w->buf));
	return NULL;
}

/* bad: closes the descriptor the callback reads: the number can be reused */
static void close_fd(void *p)
{
	struct watch *w = p;
	close(w->fd); /* expect: ubf-destroys-state */
}

static void *queue_nogvl(void *p)
{
	struct watch *w = p;
	w->n = lib_queue_next(poll_queue);
	return NULL;
}

/* trap: shutting the queue down is how the callback is woken; the queue stays valid */
static void shutdown_queue(void *p)
{
	(void)p;
	lib_queue_shutdown(poll_queue);
}

static struct lib_chan *shared_chan;

static void *shared_nogvl(void *p)
{
	struct watch *w = p;
	w->state = lib_chan_watch(shared_chan, w->state);
	return NULL;
}

/* bad: destroys the process-wide channel the callback watches */
static void destroy_shared(void *p)
{
	(void)p;
	lib_chan_destroy(shared_chan); /* expect: ubf-destroys-state */
}

/* trap: a member of the same name in another struct */
struct other {
	struct lib_chan *chan;
};

static void destroy_other(void *p)
{
	struct other *o = p;
	lib_chan_destroy(o->chan);
}

/* trap: only sets a flag */
static void set_stop(void *p)
{
	struct watch *w = p;
	w->stop = 1;
}

/* trap: cancels the operation, the channel stays usable */
static void cancel_chan(void *p)
{
	struct watch *w = p;
	lib_chan_cancel(w->chan);
}

/* trap: destroys something the callback never uses */
static void destroy_timer(void *p)
{
	struct watch *w = p;
	lib_timer_destroy(w->timer);
}

static void *poll_nogvl(void *p)
{
	struct watch *w = p;
	struct pollfd f[2] = {{w->fd, POLLIN, 0}, {w->wake_r, POLLIN, 0}};
	if (poll(f, 2, -1) > 0 && (f[0].revents & POLLIN))
		w->n = read(w->fd, w->buf, sizeof(w->buf));
	return NULL;
}

/* trap: closes the pipe's write end to wake the poll on its read end */
static void close_wake(void *p)
{
	struct watch *w = p;
	close(w->wake_w);
}

/* trap: writes the pipe */
static void write_wake(void *p)
{
	struct watch *w = p;
	char c = 1;
	(void)write(w->wake_w, &c, 1);
}

struct watch *watch_of(VALUE self);

static VALUE watch_wait(VALUE self)
{
	struct watch *w = watch_of(self);
	rb_thread_call_without_gvl(watch_nogvl, w, destroy_chan, w);
	rb_thread_call_without_gvl(watch_nogvl, w, destroy_via_helper, w);
	rb_thread_call_without_gvl(read_nogvl, w, close_fd, w);
	rb_thread_call_without_gvl(queue_nogvl, w, shutdown_queue, NULL);
	rb_thread_call_without_gvl(shared_nogvl, w, destroy_shared, NULL);
	rb_thread_call_without_gvl(watch_nogvl, w, destroy_other, w);
	rb_thread_call_without_gvl(watch_nogvl, w, set_stop, w); /* expect: ubf-ignored */
	rb_thread_call_without_gvl(watch_nogvl, w, cancel_chan, w);
	rb_thread_call_without_gvl(watch_nogvl, w, destroy_timer, w);
	rb_thread_call_without_gvl(poll_nogvl, w, close_wake, w);
	rb_thread_call_without_gvl(poll_nogvl, w, write_wake, w); /* expect: offload-candidate */
	return INT2NUM(w->state);
}

void Init_teardown(void)
{
	rb_define_method(rb_cObject, "watch_wait", watch_wait, 0);
}
