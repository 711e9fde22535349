/* explain_callback.h: --explain-callback NAME, the offload gate checklist of
 * every release site whose callback is NAME, read from the verdicts on the
 * model (verdict.h). */
#ifndef NOGVL_EXPLAIN_CALLBACK_H
#define NOGVL_EXPLAIN_CALLBACK_H

#include <stdio.h>

#include "model.h"

/* Prints the checklist of each site whose callback is name; returns how many
 * were shown. */
int offload_explain(FILE *out, const struct model *m, const char *name);

#endif
