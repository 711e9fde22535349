/* Process-wide state changed without the GVL: the standard descriptors and
 * streams, the working directory, the umask, signal dispositions. */
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

static void *quiet_nogvl(void *p)
{
	struct job *j = p;
	int saved = dup(STDERR_FILENO);
	dup2(j->devnull, STDERR_FILENO); /* expect: process-wide-state */ /* expect-msg: redirects stderr (dup2 onto fd 2) */
	j->rc = noisy(j->dir);
	dup2(saved, 2); /* expect: process-wide-state */
	close(saved);
	return NULL;
}

static void *reopen_nogvl(void *p)
{
	struct job *j = p;
	if (!freopen("/dev/null", "w", stdout)) /* expect: process-wide-state */ /* expect-msg: reopens stdout */
		j->rc = -1;
	setvbuf(stderr, NULL, _IONBF, 0); /* expect: process-wide-state */
	close(0); /* expect: process-wide-state */ /* expect-msg: closes stdin (fd 0) */
	dup2(j->devnull, fileno(stdout)); /* expect: process-wide-state */
	return NULL;
}

static void on_sig(int s)
{
	(void)s;
}

static void *dir_nogvl(void *p)
{
	struct job *j = p;
	if (chdir(j->dir) != 0) /* expect: process-wide-state */ /* expect-msg: working directory */
		return NULL;
	mode_t old = umask(077); /* expect: process-wide-state */
	j->rc = open("out", O_CREAT | O_WRONLY, 0666);
	umask(old); /* expect: process-wide-state */
	signal(SIGPIPE, SIG_IGN); /* expect: process-wide-state */
	struct sigaction sa = {0};
	sa.sa_handler = on_sig;
	sigaction(SIGUSR1, &sa, NULL); /* expect: process-wide-state */
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
