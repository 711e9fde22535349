/* fuzz.h: shared by the fuzz harnesses (tests/fuzz/fuzz_*.c). Each harness
 * defines LLVMFuzzerTestOneInput; built with libFuzzer (-DNOGVL_FUZZ=ON,
 * clang) it fuzzes, linked with replay_main.c it replays files (ctest). */
#ifndef NOGVL_FUZZ_H
#define NOGVL_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The input as a NUL-terminated string (embedded NULs kept in the length). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The tool's log lines go nowhere (libFuzzer's own output stays on stderr). */
static inline void fuzz_quiet(void)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	log_stream = null;
}

/* A private temporary directory, removed at exit. */
char *fuzz_tmpdir(void);

#endif
