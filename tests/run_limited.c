/* run_limited: runs a command under a wall-clock limit and reports what it
 * used, for the hostile-input CLI tests (tests/cli/hostile.sh).
 *
 *   run_limited SECONDS REPORT -- COMMAND [ARG...]
 *
 * Runs COMMAND in its own process group; if it has not finished after
 * SECONDS, the whole group gets SIGKILL and the exit status is 124 (as with
 * timeout(1)). Otherwise the exit status is COMMAND's (128+N for a signal).
 * REPORT gets one line: "<status> <peak RSS of COMMAND in KiB> <seconds>".
 * (The peak RSS is the largest of COMMAND's process tree, from getrusage.)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr, "usage: run_limited SECONDS REPORT -- COMMAND [ARG...]\n");
		return 2;
	}
	double limit = atof(argv[1]);
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 2;
	}
	if (pid == 0) {
		setpgid(0, 0);
		execvp(argv[4], argv + 4);
		perror(argv[4]);
		_exit(127);
	}
	setpgid(pid, pid);
	int st = 0, status = -1;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			perror("waitpid");
			return 2;
		}
		if (now() - t0 > limit) {
			kill(-pid, SIGKILL);
			waitpid(pid, &st, 0);
			status = 124;
			break;
		}
		usleep(20000);
	}
	if (status < 0)
		status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	FILE *f = fopen(argv[2], "w");
	if (!f) {
		perror(argv[2]);
		return 2;
	}
	fprintf(f, "%d %ld %.2f\n", status, ru.ru_maxrss, now() - t0);
	fclose(f);
	return status;
}
