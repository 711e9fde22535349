/* process.h: running another program (git, pkg-config, ruby). */
#ifndef NOGVL_PROCESS_H
#define NOGVL_PROCESS_H

#include <stdbool.h>
#include <stddef.h>

/* The one way this tool runs another program (git, pkg-config, ruby):
 * execvp(argv) without a shell, in dir (NULL: here), stdin /dev/null, every
 * other descriptor closed, in its own process group; stdout kept up to
 * max_out bytes, the first line of stderr kept (or stderr discarded). At
 * timeout_ms (0: no limit) or past max_out bytes the group is killed. */
enum run_outcome {
	RUN_OK = 0,
	RUN_FAILED,
	RUN_NOT_FOUND,
	RUN_TIMED_OUT,
	RUN_TOO_MUCH,
	RUN_CANNOT
};
struct run_spec {
	char *const *argv;
	const char *dir;
	unsigned timeout_ms;
	size_t max_out;
	bool keep_err; /* the first line of stderr in err_line */
};
struct run_result {
	enum run_outcome outcome; /* RUN_OK: exited 0 */
	int status;               /* exit status, or -1 (killed, not started) */
	int signal;               /* the signal it died of, or 0 */
	char *out;                /* stdout (NUL-terminated), NULL unless it ran to its end */
	size_t out_len;
	char *err_line; /* raw: show it with sb_put_visible */
};
void run_process(const struct run_spec *spec, struct run_result *r);
void run_result_free(struct run_result *r);
const char *run_outcome_text(enum run_outcome r);

/* Reads the output of argv (run_process, 60 s), up to max bytes. Returns
 * NULL unless it exits 0. */
char *capture_command(char *const argv[], size_t max);

#endif
