/* process_state.h: library calls that change state the whole process shares
 * (the standard descriptors and streams, the working directory, the umask,
 * signal dispositions), for process-wide-state.
 * The knowledge is the library models' process_change property. */
#ifndef NOGVL_PROCESS_STATE_H
#define NOGVL_PROCESS_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "facts.h"

/* What the call changes, as a short phrase ("redirects stderr (dup2 onto fd
 * 2)"), written into buf; false when the call (with these arguments) changes
 * no process-wide state. */
bool process_state_change(const struct call *c, char *buf, size_t len);

#endif
