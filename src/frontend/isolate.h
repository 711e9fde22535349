/* isolate.h: parsing in separate worker processes (--tu-timeout).
 *
 * libclang recovers from most crashes itself (CXError_Crashed), but it cannot
 * be interrupted: a file that makes it loop forever would hang the run. With
 * a time limit, each parsing thread drives a worker process (this program
 * re-executed with --internal-parse-worker) that parses one file at a time
 * and sends the facts back through a pipe (facts_io). A worker that exceeds
 * the limit is killed, one that dies is replaced; the file is reported as not
 * analysed, with the reason, and the run goes on.
 *
 * Test hooks, read only by the worker: NOGVL_LINT_TEST_HANG=S makes it hang on
 * a file whose path contains S, NOGVL_LINT_TEST_CRASH=S makes it abort there.
 */
#ifndef NOGVL_ISOLATE_H
#define NOGVL_ISOLATE_H

#include <stdbool.h>
#include <sys/types.h>

#include "parse.h"

struct worker_proc {
	pid_t pid;
	int to_child, from_child;
};

/* Parses job in the thread's worker process (started or restarted as
 * needed). Always returns facts: a failed TU when the worker timed out or
 * died. */
struct tu_facts *isolate_parse(struct worker_proc *w, const struct tu_job *job, const struct parse_opts *o);
void isolate_stop(struct worker_proc *w);

/* The worker's main loop (--internal-parse-worker): jobs on stdin, facts on
 * stdout. Returns the process exit status. */
int isolate_worker_main(void);

/* A program whose main() runs isolate_worker_main() for
 * --internal-parse-worker says so with isolate_enable() (nogvl-lint, the
 * corpus runner); elsewhere (unit tests) files are parsed in the process
 * whatever the time limit. */
void isolate_enable(void);
bool isolate_available(void);

#endif
