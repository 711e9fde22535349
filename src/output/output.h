/* output.h: writing a finished run in the requested formats (--format, -o).
 *
 * Text goes where it always went. Machine formats (json, sarif, github, html) go to
 * stdout or their -o file; while one of them is on stdout, logs and the
 * summary line go to stderr, so the stream stays parseable.
 */
#ifndef NOGVL_OUTPUT_H
#define NOGVL_OUTPUT_H

#include <jansson.h>
#include <stdio.h>

#include "cli.h"
#include "json_text.h"
#include "run.h"

/* Writes every requested output. Returns 0, or -1 when one cannot be written
 * (logged; the others are still written). */
int output_write_all(const struct options *o, struct run *r);

/* The writers. Each returns 0, or -1 on a write error. */
int report_json(FILE *out, const struct options *o, const struct run *r);
int report_sarif(FILE *out, const struct options *o, const struct run *r);
int report_github(FILE *out, const struct options *o, const struct run *r);
int report_html(FILE *out, const struct options *o, const struct run *r);

/* A JSON string from bytes that may not be valid UTF-8 (file names, source
 * lines): invalid bytes become U+FFFD. NULL gives JSON null. */
/* {"file": ..., "line": ..., "column": ...} with the display path. */
json_t *json_loc(const struct loc *l);
/* Percent-encodes a relative path or an absolute file: URI for SARIF. */
char *uri_encode_path(const char *path);

/* Whether a finding is reported (not suppressed, not in the baseline). */
static inline bool finding_reported(const struct finding *f)
{
	return !f->suppressed && !f->baselined;
}

#endif
