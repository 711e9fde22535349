/* process.c: running another program (see process.h). */
#include "process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

const char *run_outcome_text(enum run_outcome r)
{
	switch (r) {
	case RUN_OK:
		return "ok";
	case RUN_FAILED:
		return "failed";
	case RUN_NOT_FOUND:
		return "not found";
	case RUN_TIMED_OUT:
		return "timed out";
	case RUN_TOO_MUCH:
		return "printed too much";
	case RUN_CANNOT:
		return "could not be started";
	}
	return "?";
}

/* In the child: every descriptor above 2 closed (those of other threads'
 * pipes and files included, CLOEXEC or not). */
static void close_from_3(void)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = 3; fd < max; fd++)
		close(fd);
}

/* In the child, after fork: stdin /dev/null, stdout the pipe out, stderr the
 * pipe err (or /dev/null), then argv. */
_Noreturn static void run_child(const struct run_spec *spec, const int out[2], const int err[2])
{
	/* only async-signal-safe calls: its own process group, so a
	 * timeout kills what it started too */
	setpgid(0, 0);
	int devnull = open("/dev/null", O_RDWR);
	if (devnull < 0)
		_exit(126);
	dup2(devnull, 0);
	dup2(out[1], 1);
	dup2(err[1] >= 0 ? err[1] : devnull, 2);
	close_from_3();
	if (spec->dir && chdir(spec->dir) != 0) {
		static const char msg[] = "cannot enter the directory\n";
		ssize_t w = write(2, msg, sizeof(msg) - 1);
		(void)w;
		_exit(126);
	}
	execvp(spec->argv[0], spec->argv);
	_exit(127);
}

/* Reads the child's stdout (up to spec->max_out) into sb and the start of
 * its stderr into eb until both end, the deadline passes or the output is
 * too long; closes both. */
static enum run_outcome run_collect(const struct run_spec *spec, int ofd, int efd, struct strbuf *sb, struct strbuf *eb)
{
	double deadline = spec->timeout_ms ? now_seconds() + spec->timeout_ms / 1000.0 : 0;
	enum run_outcome res = RUN_OK;
	while (ofd >= 0 || efd >= 0) {
		int wait_ms = -1;
		if (deadline > 0) {
			double left = deadline - now_seconds();
			if (left <= 0) {
				res = RUN_TIMED_OUT;
				break;
			}
			wait_ms = (int)(left * 1000) + 1;
		}
		struct pollfd pfd[2] = {{ofd, POLLIN, 0}, {efd, POLLIN, 0}};
		int pr = poll(pfd, 2, wait_ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			break;
		if (pr == 0)
			continue; /* the deadline check above ends it */
		char buf[65536];
		if (ofd >= 0 && pfd[0].revents) {
			ssize_t n = read(ofd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(ofd);
				ofd = -1;
			} else if (sb->len + (size_t)n > spec->max_out) {
				res = RUN_TOO_MUCH;
				break;
			} else {
				sb_add(sb, buf, (size_t)n);
			}
		}
		if (efd >= 0 && pfd[1].revents) {
			ssize_t n = read(efd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(efd);
				efd = -1;
			} else if (eb->len < 512) { /* the first line is all that is kept */
				sb_add(eb, buf, (size_t)n < 512 - eb->len ? (size_t)n : 512 - eb->len);
			}
		}
	}
	if (ofd >= 0)
		close(ofd);
	if (efd >= 0)
		close(efd);
	return res;
}

void run_process(const struct run_spec *spec, struct run_result *r)
{
	memset(r, 0, sizeof(*r));
	r->status = -1;
	r->outcome = RUN_CANNOT;
	int out[2], err[2] = {-1, -1};
	if (pipe2(out, O_CLOEXEC) != 0)
		return;
	if (spec->keep_err && pipe2(err, O_CLOEXEC) != 0) {
		close(out[0]);
		close(out[1]);
		return;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		if (err[0] >= 0) {
			close(err[0]);
			close(err[1]);
		}
		return;
	}
	if (pid == 0)
		run_child(spec, out, err);
	setpgid(pid, pid); /* (racing the child's own call: either wins) */
	close(out[1]);
	if (err[1] >= 0)
		close(err[1]);
	struct strbuf sb = {0}, eb = {0};
	enum run_outcome res = run_collect(spec, out[0], err[0], &sb, &eb);
	if (res != RUN_OK) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status))
		r->status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		r->signal = WTERMSIG(status);
	if (res == RUN_OK) {
		if (r->status == 127)
			res = RUN_NOT_FOUND;
		else if (r->status != 0)
			res = RUN_FAILED;
	}
	r->outcome = res;
	if (eb.len) {
		char *e = sb_detach(&eb);
		e[strcspn(e, "\r\n")] = '\0';
		r->err_line = e;
	}
	sb_free(&eb);
	if (res == RUN_OK || res == RUN_FAILED) {
		r->out_len = sb.len;
		r->out = sb.buf ? sb_detach(&sb) : xstrdup("");
	}
	sb_free(&sb);
}

void run_result_free(struct run_result *r)
{
	free(r->out);
	free(r->err_line);
	memset(r, 0, sizeof(*r));
}

char *capture_command(char *const argv[], size_t max)
{
	struct run_spec spec = {.argv = argv, .timeout_ms = 60000, .max_out = max};
	struct run_result r;
	run_process(&spec, &r);
	char *out = NULL;
	if (r.outcome == RUN_OK) {
		out = r.out;
		r.out = NULL;
	}
	run_result_free(&r);
	return out;
}
