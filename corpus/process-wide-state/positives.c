/* Process-wide state changed without the GVL: the standard descriptors and
 * streams, the working directory, the umask, signal dispositions. One finding
 * per function: its other changes are notes (each shape in its own helper). */
#include <ruby.h>
#include <ruby/thread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct job {
	const char *dir;
	int devnull;
	int rc;
};

static int noisy(const char *dir)
{
	return (int)dir[0];
}

/* save, redirect, restore: two threads interleave */
static void *quiet_nogvl(void *p)
{
	struct job *j = p;
	int saved = dup(STDERR_FILENO);
	dup2(j->devnull, STDERR_FILENO); /* expect: process-wide-state */ /* expect-msg: redirects stderr (dup2 onto fd 2) */
	j->rc = noisy(j->dir);
	dup2(saved, 2); /* a note on the first change */
	close(saved);
	return NULL;
}

static void reopen_out(struct job *j)
{
	if (!freopen("/dev/null", "w", stdout)) /* expect: process-wide-state */ /* expect-msg: reopens stdout */
		j->rc = -1;
}

static void unbuffer(void)
{
	setvbuf(stderr, NULL, _IONBF, 0); /* expect: process-wide-state */ /* expect-msg: changes the buffering of stderr */
}

static void close_in(void)
{
	close(0); /* expect: process-wide-state */ /* expect-msg: closes stdin (fd 0) */
}

static void to_devnull(struct job *j)
{
	dup2(j->devnull, fileno(stdout)); /* expect: process-wide-state */ /* expect-msg: redirects stdout */
}

static void *reopen_nogvl(void *p)
{
	struct job *j = p;
	reopen_out(j);
	unbuffer();
	close_in();
	to_devnull(j);
	return NULL;
}

static void on_sig(int s)
{
	(void)s;
}

static int enter(const char *dir)
{
	return chdir(dir); /* expect: process-wide-state */ /* expect-msg: working directory */
}

static int create_private(void)
{
	mode_t old = umask(077); /* expect: process-wide-state */ /* expect-msg: file mode creation mask */
	int fd = open("out", O_CREAT | O_WRONLY, 0666);
	umask(old); /* a note */
	return fd;
}

static void ignore_pipe(void)
{
	signal(SIGPIPE, SIG_IGN); /* expect: process-wide-state */ /* expect-msg: (signal) */
}

static void catch_usr1(void)
{
	struct sigaction sa = {0};
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL); /* expect: process-wide-state */ /* expect-msg: (sigaction) */
}

static void *dir_nogvl(void *p)
{
	struct job *j = p;
	if (enter(j->dir) != 0)
		return NULL;
	j->rc = create_private();
	ignore_pipe();
	catch_usr1();
	return NULL;
}

VALUE run_jobs(VALUE self)
{
	struct job j = {"/tmp", -1, 0};
	rb_thread_call_without_gvl(quiet_nogvl, &j, NULL, NULL);
	rb_thread_call_without_gvl(reopen_nogvl, &j, NULL, NULL);
	rb_nogvl(dir_nogvl, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe */
	return INT2NUM(j.rc);
}
