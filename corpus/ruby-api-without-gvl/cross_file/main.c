/* A callback whose helper chain crosses files; two static functions named
 * `reset` live in different files and must stay apart. */
#include <ruby/thread.h>

#include "helpers.h"

static void reset(struct job *j)
{
	j->n = 0; /* plain C: fine without the GVL */
}

void level1(struct job *j)
{
	reset(j);
	level2(j); /* expect-note: 'level2' called here from 'level1' */
}

static void *job_nogvl(void *p)
{
	level1(p); /* expect-note: 'level1' called here from 'job_nogvl' */
	return NULL;
}

VALUE run_job(VALUE self)
{
	struct job j = {rb_str_new(NULL, 0), 0};
	rb_thread_call_without_gvl(job_nogvl, &j, NULL, NULL); /* expect-note: 'job_nogvl' passed to rb_thread_call_without_gvl here */
	return LONG2NUM(fill_with_gvl_only(&j));
}
