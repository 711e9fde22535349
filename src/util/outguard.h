/* outguard.h: what libclang prints is not our output.
 *
 * libclang writes to the process's stdout and stderr on its own (driver
 * messages for -v or -###, `#pragma clang __debug dump`, record layouts),
 * with text from the analysed tree in it: raw on our stderr it could start a
 * GitHub workflow command or drive a terminal; on stdout it would corrupt a
 * JSON report or a parser process's frames. While a guard is on, fds 1 and 2
 * are a pipe; a thread relays what arrives there as our own escaped lines
 * ("nogvl-lint: libclang printed: ...") with -v, at most a few dozen, and
 * drops it otherwise. Our log (log.h) goes to the real stderr meanwhile. */
#ifndef NOGVL_OUTGUARD_H
#define NOGVL_OUTGUARD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

struct out_guard {
	bool on;
	int saved_out, saved_err; /* the real fds 1 and 2 */
	int pipe_r;
	pthread_t relay;
	FILE *log_file; /* log_stream while on */
	FILE *old_log;
	int verbose;
};

/* Returns 0 when the guard is on (then saved_out is where our stdout goes). */
int out_guard_start(struct out_guard *g, int verbose);
void out_guard_stop(struct out_guard *g);

#endif
