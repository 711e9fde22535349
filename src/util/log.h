/* log.h: messages to the user on stderr (never mixed with machine output). */
#ifndef NOGVL_LOG_H
#define NOGVL_LOG_H

#include <stdio.h>

#include "util.h"

extern int log_verbosity; /* 0 normal, 1 -v, 2 -vv */
extern FILE *log_stream;  /* default stderr; tests may redirect */

void log_error(const char *fmt, ...) PRINTF_LIKE(1, 2);   /* "nogvl-lint: error: ..." */
void log_warning(const char *fmt, ...) PRINTF_LIKE(1, 2); /* "nogvl-lint: warning: ..." */
void log_info(const char *fmt, ...) PRINTF_LIKE(1, 2);    /* plain line */
void log_verbose(int level, const char *fmt, ...) PRINTF_LIKE(2, 3);

#endif
