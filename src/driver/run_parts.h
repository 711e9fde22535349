/* run_parts.h: the driver's files (run.c, incomplete.c, dump.c) to each other. */
#ifndef NOGVL_RUN_PARTS_H
#define NOGVL_RUN_PARTS_H

#include "run.h"

/* Buildless: headers the parse could not find, looked up in the tree and the
 * system's include trees; the files that missed them parsed again. */
void resolve_missing_headers(struct run *r, struct parse_opts *po);
/* The summary's account of what could not be read (missing headers, sources
 * libclang cannot read, releases without an analysed site). */
void assess_incomplete(const struct options *o, struct run *r);
/* Each finding's .nogvl-lint.yml: excluded files, rules switched off there,
 * severities; the command line wins. */
void apply_configs(const struct options *o, struct run *r);
/* Inline suppressions, and unused-suppression where asked. */
void apply_suppressions(const struct options *o, struct run *r);
/* --baseline: read before the analysis (0, or -1 logged), applied after. */
int read_baseline(const struct options *o, struct run *r);
int apply_baseline(const struct options *o, struct run *r);

#endif
