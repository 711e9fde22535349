/* process_state.c: the table behind process-wide-state (process_state.h).
 *
 * Sources: POSIX.1-2017 dup2 ("the file descriptor fildes2 ... shall be
 * closed first"), close, freopen, setvbuf/setbuf ("may be used only after
 * the stream ... is associated with an open file and before any other
 * operation"), chdir/fchdir ("the current working directory" is a process
 * attribute, XBD 3.447), umask ("the process' file mode creation mask"),
 * signal/sigaction ("the action ... for the process"). The environment and
 * the locale (setenv, putenv, setlocale) are mt-unsafe-call's (state_knowledge.c).
 */
#include "process_state.h"

#include <stdio.h>
#include <string.h>

#include "util.h"

/* 0, 1, 2 for an expression naming a standard descriptor, else -1. */
static int std_fd(const struct expr *a)
{
	if (!a)
		return -1;
	if (a->has_ival)
		return a->ival >= 0 && a->ival <= 2 ? (int)a->ival : -1;
	const char *t = a->text ? a->text : "";
	static const char *const names[3][3] = {
		{"STDIN_FILENO", "fileno(stdin)", "fileno (stdin)"},
		{"STDOUT_FILENO", "fileno(stdout)", "fileno (stdout)"},
		{"STDERR_FILENO", "fileno(stderr)", "fileno (stderr)"},
	};
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++)
			if (strcmp(t, names[i][k]) == 0)
				return i;
	return -1;
}

/* 0, 1, 2 for stdin, stdout, stderr (the stream), else -1. */
static int std_stream(const struct expr *a)
{
	if (!a || !a->text)
		return -1;
	static const char *const names[3] = {"stdin", "stdout", "stderr"};
	for (int i = 0; i < 3; i++)
		if (strcmp(a->text, names[i]) == 0)
			return i;
	return -1;
}

static const char *const std_names[3] = {"stdin", "stdout", "stderr"};

static const struct expr *arg(const struct call *c, uint32_t i)
{
	return i < c->nargs ? &c->args[i] : NULL;
}

static bool null_expr(const struct expr *a)
{
	return a && (a->kind == EX_NULL || (a->has_ival && a->ival == 0));
}

bool process_state_change(const struct call *c, char *buf, size_t len)
{
	const char *n = c->name;
	if (!n || c->indirect)
		return false;
	int k;
	if (strcmp(n, "dup2") == 0 || strcmp(n, "dup3") == 0) {
		if ((k = std_fd(arg(c, 1))) < 0)
			return false;
		snprintf(buf, len, "redirects %s (%s onto fd %d)", std_names[k], n, k);
		return true;
	}
	if (strcmp(n, "close") == 0) {
		if ((k = std_fd(arg(c, 0))) < 0)
			return false;
		snprintf(buf, len, "closes %s (fd %d)", std_names[k], k);
		return true;
	}
	if (strcmp(n, "freopen") == 0) {
		if ((k = std_stream(arg(c, 2))) < 0)
			return false;
		snprintf(buf, len, "reopens %s (freopen)", std_names[k]);
		return true;
	}
	if (strcmp(n, "setvbuf") == 0 || strcmp(n, "setbuf") == 0 || strcmp(n, "setbuffer") == 0 ||
	    strcmp(n, "setlinebuf") == 0) {
		if ((k = std_stream(arg(c, 0))) < 0)
			return false;
		snprintf(buf, len, "changes the buffering of %s (%s)", std_names[k], n);
		return true;
	}
	if (strcmp(n, "chdir") == 0 || strcmp(n, "fchdir") == 0) {
		snprintf(buf, len, "changes the process's working directory (%s)", n);
		return true;
	}
	if (strcmp(n, "umask") == 0) {
		snprintf(buf, len, "changes the process's file mode creation mask (umask)");
		return true;
	}
	if (strcmp(n, "signal") == 0 || strcmp(n, "sigset") == 0) {
		snprintf(buf, len, "changes a signal's disposition for the whole process (%s)", n);
		return true;
	}
	if (strcmp(n, "sigaction") == 0) {
		if (null_expr(arg(c, 1)))
			return false; /* only reads the current action */
		snprintf(buf, len, "changes a signal's disposition for the whole process (sigaction)");
		return true;
	}
	return false;
}
