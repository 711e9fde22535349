/* Helpers in another file: level3 is three calls below the callback. */
#include "helpers.h"

void level2(struct job *j)
{
	level3(j); /* expect-note: 'level3' called here from 'level2' */
}

void level3(struct job *j)
{
	rb_str_cat(j->out, "x", 1); /* expect: ruby-api-without-gvl */ /* expect-msg: 'rb_str_cat' */
}

/* Same name as a static in main.c; this one is never called without the GVL. */
static void reset(struct job *j)
{
	j->out = rb_str_new(NULL, 0);
}

long fill_with_gvl_only(struct job *j)
{
	reset(j);
	return j->n;
}
