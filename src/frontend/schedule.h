/* schedule.h: the order in which parse_all's workers take their files.
 *
 * Each parser process (--tu-timeout, the default) keeps its own set of
 * precompiled Ruby-header preambles, so two workers taking the files of one
 * directory in turn each built the preamble those files share: with --jobs 2
 * 28 preambles were built for bench/run's input instead of 16. Here the
 * files are grouped by the arguments a preamble depends on (the compiler
 * arguments without -D/-U and the file's own -I, and the language); a worker
 * keeps to its group, takes a group nobody has started when its own is done,
 * and only when none is left takes files from the end of the group with the
 * most left. What a file's facts are does not depend on which worker parses
 * it: only the order changes. */
#ifndef NOGVL_SCHEDULE_H
#define NOGVL_SCHEDULE_H

#include <stddef.h>

#include "parse.h"

struct job_sched;

/* A schedule of jobs[0..n) for nworkers workers (jobs must outlive it). */
struct job_sched *sched_new(const struct tu_job *jobs, size_t n, unsigned nworkers);
/* The next job for worker w (0 <= w < nworkers), or (size_t)-1 when none is
 * left. Thread-safe. */
size_t sched_next(struct job_sched *s, unsigned w);
void sched_free(struct job_sched *s);

#endif
