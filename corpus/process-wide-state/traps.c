/* Not process-wide: descriptors other than 0-2, private streams, a query-only
 * sigaction, calls made with the GVL held, and a gem's own function that
 * happens to be named like a libc one. */
#include <ruby.h>
#include <ruby/thread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

struct job {
	int in, out;
	FILE *log;
	int rc;
};

/* the gem's own umask: a field of its own config, not the process's */
struct cfg {
	int mask;
};
static int umask_of(struct cfg *c, int m)
{
	int old = c->mask;
	c->mask = m;
	return old;
}

static void *copy_nogvl(void *p)
{
	struct job *j = p;
	dup2(j->in, j->out);              /* not a standard descriptor */
	close(j->in);                     /* a variable: not followed */
	setvbuf(j->log, NULL, _IOFBF, 0); /* a private stream */
	fflush(stdout);                   /* flushing locks the stream: fine */
	struct sigaction old;
	sigaction(SIGPIPE, NULL, &old);   /* only reads */
	struct cfg c = {0};
	j->rc = umask_of(&c, 022);
	return NULL;
}

static void *with_gvl(void *p)
{
	(void)p;
	signal(SIGPIPE, SIG_IGN); /* runs with the GVL */
	return NULL;
}

static void *reenter_nogvl(void *p)
{
	rb_thread_call_with_gvl(with_gvl, p);
	return NULL;
}

VALUE run_traps(VALUE self)
{
	struct job j = {3, 4, NULL, 0};
	chdir("/");  /* the caller holds the GVL */
	rb_thread_call_without_gvl(copy_nogvl, &j, NULL, NULL);
	rb_thread_call_without_gvl(reenter_nogvl, &j, NULL, NULL); /* expect: small-work-nogvl */
	return INT2NUM(j.rc);
}
