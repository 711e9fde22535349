/* uninterruptible-blocking: NULL unblocking function around waits that have
 * no bound. Reported at the wait. */
#include <ruby.h>
#include <ruby/thread.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

struct io {
	int fd;
	int epfd;
	pid_t pid;
	int status;
	long n;
	char buf[512];
	pthread_mutex_t *mu;
	pthread_cond_t *cv;
	int ready;
	sem_t *sem;
};

static void *read_nogvl(void *p)
{
	struct io *a = p;
	a->n = read(a->fd, a->buf, sizeof(a->buf)); /* expect: uninterruptible-blocking */ /* expect-msg: 'read' on a descriptor that may be a pipe, socket or terminal can block without bound */
	return NULL;
}

static void *recv_nogvl(void *p)
{
	struct io *a = p;
	a->n = recv(a->fd, a->buf, sizeof(a->buf), 0); /* expect: uninterruptible-blocking */
	return NULL;
}

static void *accept_nogvl(void *p)
{
	struct io *a = p;
	a->n = accept(a->fd, NULL, NULL); /* expect: uninterruptible-blocking */
	return NULL;
}

static void *poll_nogvl(void *p)
{
	struct io *a = p;
	struct pollfd pfd = {a->fd, POLLIN, 0};
	a->n = poll(&pfd, 1, -1); /* expect: uninterruptible-blocking */ /* expect-msg: 'poll' with an infinite timeout (-1) */
	return NULL;
}

static void *select_nogvl(void *p)
{
	struct io *a = p;
	fd_set r;
	FD_ZERO(&r);
	FD_SET(a->fd, &r);
	a->n = select(a->fd + 1, &r, NULL, NULL, NULL); /* expect: uninterruptible-blocking */ /* expect-msg: with a NULL timeout */
	return NULL;
}

static void *epoll_nogvl(void *p)
{
	struct io *a = p;
	struct epoll_event ev[8];
	a->n = epoll_wait(a->epfd, ev, 8, -1); /* expect: uninterruptible-blocking */
	return NULL;
}

static void *waitpid_nogvl(void *p)
{
	struct io *a = p;
	a->n = waitpid(a->pid, &a->status, 0); /* expect: uninterruptible-blocking */ /* expect-msg: pass RUBY_UBF_PROCESS */
	return NULL;
}

static void *cond_nogvl(void *p)
{
	struct io *a = p;
	pthread_mutex_lock(a->mu);
	while (!a->ready)
		pthread_cond_wait(a->cv, a->mu); /* expect: uninterruptible-blocking */ /* expect-msg: signals the condition variable */
	pthread_mutex_unlock(a->mu);
	return NULL;
}

static void *sem_nogvl(void *p)
{
	struct io *a = p;
	sem_wait(a->sem); /* expect: uninterruptible-blocking */ /* expect-msg: sem_post */
	return NULL;
}

/* reached through a helper: the chain goes back to the release call */
static long next_message(struct io *a)
{
	return recv(a->fd, a->buf, sizeof(a->buf), MSG_WAITALL); /* expect: uninterruptible-blocking */
}

static void *loop_nogvl(void *p)
{
	struct io *a = p;
	while ((a->n = next_message(a)) > 0)
		;
	return NULL;
}

VALUE wait_sites(VALUE self)
{
	struct io a = {0};
	rb_thread_call_without_gvl(read_nogvl, &a, NULL, NULL);
	rb_thread_call_without_gvl(recv_nogvl, &a, NULL, NULL);
	rb_thread_call_without_gvl(accept_nogvl, &a, NULL, NULL);
	rb_thread_call_without_gvl(poll_nogvl, &a, NULL, NULL);
	rb_thread_call_without_gvl(select_nogvl, &a, NULL, NULL);
	rb_thread_call_without_gvl(epoll_nogvl, &a, NULL, NULL);
	rb_nogvl(waitpid_nogvl, &a, NULL, NULL, 0);
	rb_thread_call_without_gvl(cond_nogvl, &a, NULL, NULL);
	rb_thread_call_without_gvl2(sem_nogvl, &a, NULL, NULL);
	rb_thread_call_without_gvl(loop_nogvl, &a, NULL, NULL);
	/* the same callbacks with a working UBF: not this rule's business */
	rb_thread_call_without_gvl(read_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(waitpid_nogvl, &a, RUBY_UBF_PROCESS, NULL); /* expect: offload-candidate */
	return LONG2NUM(a.n);
}
