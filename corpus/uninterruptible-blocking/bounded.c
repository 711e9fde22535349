/* uninterruptible-blocking traps: NULL UBF around work or waits that end on
 * their own. All silent. */
#include <ruby.h>
#include <ruby/thread.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct job {
	const char *path;
	int fd;
	pid_t pid;
	int timeout_ms;
	long n;
	char buf[512];
	pthread_mutex_t *mu;
	pthread_cond_t *cv;
	struct timespec deadline;
	unsigned long h;
};

/* pure CPU work: NULL is the right UBF here */
static void *hash_nogvl(void *p)
{
	struct job *j = p;
	for (int i = 0; i < 1 << 20; i++)
		j->h = (j->h ^ (unsigned long)i) * 31;
	return NULL;
}

static void *lock_nogvl(void *p)
{
	struct job *j = p;
	pthread_mutex_lock(j->mu);
	j->n++;
	pthread_mutex_unlock(j->mu);
	return NULL;
}

static void *timedwait_nogvl(void *p)
{
	struct job *j = p;
	pthread_mutex_lock(j->mu);
	pthread_cond_timedwait(j->cv, j->mu, &j->deadline);
	pthread_mutex_unlock(j->mu);
	return NULL;
}

static void *poll_timeout_nogvl(void *p)
{
	struct job *j = p;
	struct pollfd pfd = {j->fd, POLLIN, 0};
	if (poll(&pfd, 1, 100) > 0) /* a finite timeout */
		j->n = read(j->fd, j->buf, sizeof(j->buf)); /* readable: the read does not wait */
	return NULL;
}

static void *poll_var_timeout_nogvl(void *p)
{
	struct job *j = p;
	struct pollfd pfd = {j->fd, POLLIN, 0};
	j->n = poll(&pfd, 1, j->timeout_ms); /* not a constant: cannot tell */
	return NULL;
}

static void *reap_nogvl(void *p)
{
	struct job *j = p;
	j->n = waitpid(j->pid, NULL, WNOHANG);
	return NULL;
}

static void *peek_nogvl(void *p)
{
	struct job *j = p;
	j->n = recv(j->fd, j->buf, sizeof(j->buf), MSG_DONTWAIT);
	return NULL;
}

static void *file_nogvl(void *p)
{
	struct job *j = p;
	int fd = open(j->path, O_RDONLY);
	if (fd < 0)
		return NULL;
	j->n = read(fd, j->buf, sizeof(j->buf)); /* a regular file */
	close(fd);
	return NULL;
}

static void *nonblock_nogvl(void *p)
{
	struct job *j = p;
	fcntl(j->fd, F_SETFL, fcntl(j->fd, F_GETFL) | O_NONBLOCK);
	j->n = read(j->fd, j->buf, sizeof(j->buf));
	return NULL;
}

static void *sleep_nogvl(void *p)
{
	struct job *j = p;
	struct timespec ts = {0, 1000000};
	nanosleep(&ts, NULL);
	j->n = write(j->fd, j->buf, 1);
	return NULL;
}

VALUE bounded_sites(VALUE self)
{
	struct job j = {0};
	rb_thread_call_without_gvl(hash_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(lock_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(timedwait_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(poll_timeout_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(poll_var_timeout_nogvl, &j, NULL, NULL);
	rb_thread_call_without_gvl(reap_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(peek_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(file_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(nonblock_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(sleep_nogvl, &j, NULL, NULL); /* expect: offload-candidate */
	return ULONG2NUM(j.h);
}
