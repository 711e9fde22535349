/* ubf-ignored stays silent when the UBF cancels by other means than a flag the
 * callback should read, or when the callback hands its state to code we
 * cannot see. */
#include <ruby.h>
#include <ruby/thread.h>
#include <pthread.h>
#include <sys/socket.h>

struct lib_handle;
int lib_run(struct lib_handle *h);            /* a library loop */
int lib_run_checked(volatile int *stop_flag); /* a library loop that checks a flag */
void lib_interrupt(struct lib_handle *h);    /* the library's own cancel call */

struct task {
	struct lib_handle *h;
	volatile int stop;
	int sock;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int rc;
};

/* cancels through the library, also sets a flag nobody reads */
static void interrupt_lib(void *p)
{
	struct task *t = p;
	t->stop = 1;
	lib_interrupt(t->h);
}

/* wakes a condition variable */
static void wake_cond(void *p)
{
	struct task *t = p;
	pthread_mutex_lock(&t->mu);
	t->stop = 1;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

/* shuts the socket down: the blocked call returns */
static void shut(void *p)
{
	struct task *t = p;
	t->stop = 1;
	shutdown(t->sock, SHUT_RDWR);
}

static void set_flag(void *p)
{
	struct task *t = p;
	t->stop = 1;
}

static void *run_nogvl(void *p)
{
	struct task *t = p;
	t->rc = lib_run(t->h);
	return NULL;
}

static void *run_checked_nogvl(void *p)
{
	struct task *t = p;
	t->rc = lib_run_checked(&t->stop); /* the library reads the flag */
	return NULL;
}

VALUE other_sites(VALUE self)
{
	struct task t = {0};
	rb_thread_call_without_gvl(run_nogvl, &t, interrupt_lib, &t);
	rb_thread_call_without_gvl(run_nogvl, &t, wake_cond, &t);
	rb_thread_call_without_gvl(run_nogvl, &t, shut, &t);
	rb_thread_call_without_gvl(run_checked_nogvl, &t, set_flag, &t);
	return INT2NUM(t.rc);
}

/* A progress handler registered with the library on the GVL side reads the
 * flag while the library runs inside the callback (ruby/openssl's key
 * generation works this way). */
struct gen;
void lib_gen_set_progress(struct gen *g, int (*cb)(struct gen *, void *), void *arg);
int lib_gen_run(struct gen *g);

struct gen_arg {
	struct gen *g;
	volatile int interrupted;
	int rc;
};

static int gen_progress(struct gen *g, void *p)
{
	struct gen_arg *a = p;
	(void)g;
	return a->interrupted ? 0 : 1; /* 0 stops the generation */
}

static void *gen_nogvl(void *p)
{
	struct gen_arg *a = p;
	a->rc = lib_gen_run(a->g);
	return NULL;
}

static void gen_stop(void *p)
{
	struct gen_arg *a = p;
	a->interrupted = 1;
}

VALUE gen_key(VALUE self)
{
	struct gen_arg a = {0};
	lib_gen_set_progress(a.g, gen_progress, &a);
	rb_thread_call_without_gvl(gen_nogvl, &a, gen_stop, &a);
	return INT2NUM(a.rc);
}
