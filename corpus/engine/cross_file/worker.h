/* worker.h: what cross_file.c needs from worker.c. */
#ifndef CROSS_FILE_WORKER_H
#define CROSS_FILE_WORKER_H

#include <ruby.h>

struct work_args {
	VALUE str;
	long n;
};

void *worker_run(void *p);

/* A helper defined in the project's own header: findings in it are
 * reported in the header, relative to the current directory. */
static inline long worker_len(VALUE s)
{
	return RSTRING_LEN(s); /* expect: value-access-without-gvl */
}

#endif
