/* One macro that spells a library call in both branches of an if: the two
 * calls share the place they are written at, and --explain-callback lists
 * that evidence once (tests/cli/missing_fact.sh). */
#include <ruby.h>
#include <ruby/thread.h>

extern int frob_expand(char *buf, long n);

#define FROB_EITHER(j)                                                 \
	do {                                                           \
		if ((j)->quiet)                                        \
			(j)->rc = frob_expand((j)->buf, (j)->n);       \
		else                                                   \
			(j)->rc = frob_expand((j)->buf, (j)->n + 1);   \
	} while (0)

struct twice_job {
	char buf[64];
	long n;
	int quiet, rc;
};

static void *twice_cb(void *p)
{
	struct twice_job *j = p;
	FROB_EITHER(j);
	return NULL;
}

VALUE twice_run(VALUE self)
{
	struct twice_job j = {{0}, 8, 1, 0};
	rb_thread_call_without_gvl(twice_cb, &j, RUBY_UBF_IO, NULL);
	return INT2NUM(j.rc);
}
