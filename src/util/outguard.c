/* outguard.c: see outguard.h. */
#include "outguard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

#define MAX_RELAYED_LINES 40
#define MAX_LINE 400

static void relay_line(struct out_guard *g, const char *line, unsigned long *shown, unsigned long *dropped)
{
	if (g->verbose < 1 || *shown >= MAX_RELAYED_LINES) {
		(*dropped)++;
		return;
	}
	(*shown)++;
	log_verbose(1, "libclang printed: %s", line);
}

static void *relay_main(void *arg)
{
	struct out_guard *g = arg;
	char buf[4096];
	struct strbuf line = {0};
	unsigned long shown = 0, dropped = 0;
	for (;;) {
		ssize_t n = read(g->pipe_r, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				relay_line(g, sb_str(&line), &shown, &dropped);
				sb_free(&line);
				continue;
			}
			if (line.len < MAX_LINE)
				sb_putc(&line, buf[i] ? buf[i] : '?');
		}
	}
	if (line.len)
		relay_line(g, sb_str(&line), &shown, &dropped);
	sb_free(&line);
	if (dropped && g->verbose >= 1)
		log_verbose(1, "libclang printed %lu more line%s (not shown)", dropped, dropped == 1 ? "" : "s");
	return NULL;
}

int out_guard_start(struct out_guard *g, int verbose)
{
	memset(g, 0, sizeof(*g));
	g->verbose = verbose;
	g->saved_out = fcntl(1, F_DUPFD_CLOEXEC, 3);
	g->saved_err = fcntl(2, F_DUPFD_CLOEXEC, 3);
	int p[2];
	if (g->saved_out < 0 || g->saved_err < 0 || pipe2(p, O_CLOEXEC) != 0)
		goto fail;
	int lfd = fcntl(g->saved_err, F_DUPFD_CLOEXEC, 3);
	g->log_file = lfd >= 0 ? fdopen(lfd, "w") : NULL;
	if (!g->log_file) {
		if (lfd >= 0)
			close(lfd);
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	fflush(stdout);
	fflush(stderr);
	g->old_log = log_stream;
	log_stream = g->log_file;
	g->pipe_r = p[0];
	if (pthread_create(&g->relay, NULL, relay_main, g) != 0) {
		log_stream = g->old_log;
		fclose(g->log_file);
		close(p[0]);
		close(p[1]);
		goto fail;
	}
	dup2(p[1], 1);
	dup2(p[1], 2);
	close(p[1]);
	g->on = true;
	return 0;
fail:
	if (g->saved_out >= 0)
		close(g->saved_out);
	if (g->saved_err >= 0)
		close(g->saved_err);
	g->saved_out = g->saved_err = -1;
	return -1;
}

void out_guard_stop(struct out_guard *g)
{
	if (!g->on)
		return;
	fflush(stdout);
	fflush(stderr);
	/* the pipe's last write ends go: the relay reads to the end */
	dup2(g->saved_out, 1);
	dup2(g->saved_err, 2);
	pthread_join(g->relay, NULL);
	close(g->pipe_r);
	log_stream = g->old_log;
	fclose(g->log_file);
	close(g->saved_out);
	close(g->saved_err);
	g->on = false;
}
