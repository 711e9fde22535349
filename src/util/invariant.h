/* invariant.h: INVARIANT(cond) states what cannot be false unless nogvl-lint
 * itself has a bug (git's BUG()): when it is, the tool names the file, line
 * and condition on stderr and aborts, where a silent early return or a
 * made-up value would hide the bug in a wrong result. Never for bad input:
 * nothing in the analysed tree may make an invariant false (bad input is
 * reported and skipped). */
#ifndef NOGVL_INVARIANT_H
#define NOGVL_INVARIANT_H

#include <stdio.h>
#include <stdlib.h>

static inline _Noreturn void invariant_failed(const char *cond, const char *file, int line, const char *func)
{
	fprintf(stderr, "nogvl-lint: BUG: %s:%d: %s: '%s' does not hold\n", file, line, func, cond);
	abort();
}

#define INVARIANT(cond) ((cond) ? (void)0 : invariant_failed(#cond, __FILE__, __LINE__, __func__))

#endif
