/* fix.h: applying the fixes findings carry (--fix), or showing them as a
 * unified diff (--fix-dry-run / --diff). */
#ifndef NOGVL_FIX_H
#define NOGVL_FIX_H

#include <stdio.h>

#include "run.h"

struct edit {
	uint32_t off, len;
	const char *text;
};

/* Applies edits (sorted by offset, not overlapping) to text. */
char *apply_edits(const char *text, size_t len, const struct edit *edits, size_t n, size_t *out_len);

/* Writes a unified diff of old -> new for `path` (labels a/<label>, b/<label>). */
void write_unified_diff(FILE *out, const char *label, const char *old_text, size_t old_len, const char *new_text,
			size_t new_len);

/* Replaces path's content atomically (temp file in the same directory, same
 * permissions, fsync, rename). Returns 0, or -1 with *err set. */
int atomic_write(const char *path, const char *data, size_t len, char **err);

/* Applies (or, with dry_run, prints as a diff to out) the fixes of every
 * finding not suppressed. Each rewritten file is re-parsed and restored if it
 * got new parse errors. Returns the number of files changed (or that would
 * change), or -1 when something could not be done (logged). */
int fix_run(struct run *r, bool dry_run, FILE *out);

#endif
