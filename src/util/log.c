/* log.c: see log.h. Serialised so worker threads never interleave lines. */
#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>

int log_verbosity;
FILE *log_stream;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* One line each: file names and texts from the analysed tree in a message
 * cannot end it early, start a workflow command (::error ...) on a line of
 * their own, or drive the terminal (see fput_visible). */
static void emit(const char *prefix, const char *fmt, va_list ap)
{
	FILE *f = log_stream ? log_stream : stderr;
	char *msg = xvasprintf(fmt, ap);
	pthread_mutex_lock(&log_lock);
	if (prefix)
		fputs(prefix, f);
	fput_visible(msg, f);
	free(msg);
	fputc('\n', f);
	fflush(f);
	pthread_mutex_unlock(&log_lock);
}

void log_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("nogvl-lint: error: ", fmt, ap);
	va_end(ap);
}

void log_warning(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit("nogvl-lint: warning: ", fmt, ap);
	va_end(ap);
}

void log_info(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	emit(NULL, fmt, ap);
	va_end(ap);
}

void log_verbose(int level, const char *fmt, ...)
{
	if (log_verbosity < level)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit("nogvl-lint: ", fmt, ap);
	va_end(ap);
}
