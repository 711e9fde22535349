/* process_state.c: what process-wide-state reports (process_state.h), from
 * the library models' process_change property (rules/models/: dup2, close,
 * freopen, setvbuf, chdir, umask, signal, sigaction ..., each with its
 * POSIX.1-2017 source). The environment and the locale (setenv, putenv,
 * setlocale) are mt-unsafe-call's (thread_safe: never).
 */
#include "process_state.h"

#include <stdio.h>
#include <string.h>

#include "libmodel.h"
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

/* Fills pc->what into buf: {std} the standard stream's name, {fd} its number,
 * {fn} the function. */
static void fill(const char *what, const char *fn, int k, char *buf, size_t len)
{
	struct strbuf sb = {0};
	for (const char *p = what; *p;) {
		if (str_starts(p, "{std}") && k >= 0) {
			sb_puts(&sb, std_names[k]);
			p += 5;
		} else if (str_starts(p, "{fd}") && k >= 0) {
			sb_printf(&sb, "%d", k);
			p += 4;
		} else if (str_starts(p, "{fn}")) {
			sb_puts(&sb, fn);
			p += 4;
		} else {
			sb_printf(&sb, "%c", *p++);
		}
	}
	snprintf(buf, len, "%s", sb_str(&sb));
	sb_free(&sb);
}

bool process_state_change(const struct call *c, char *buf, size_t len)
{
	const char *n = c->name;
	if (!n || c->indirect)
		return false;
	const struct lib_model *lm = model_find(n);
	if (!lm || !str_eq(lm->name, n) || !lm->process_change)
		return false;
	const struct process_change *pc = lm->process_change;
	int k = -1;
	switch (pc->when) {
	case LM_CHANGE_STD_FD:
		if ((k = std_fd(arg(c, (uint32_t)pc->arg))) < 0)
			return false;
		break;
	case LM_CHANGE_STD_STREAM:
		if ((k = std_stream(arg(c, (uint32_t)pc->arg))) < 0)
			return false;
		break;
	case LM_CHANGE_ARG_NOT_NULL:
		if (null_expr(arg(c, (uint32_t)pc->arg)))
			return false; /* sigaction(sig, NULL, &old) only reads */
		break;
	default:
		break;
	}
	fill(pc->what, n, k, buf, len);
	return true;
}
