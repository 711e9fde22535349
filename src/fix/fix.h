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

/* Replaces path's content atomically: the new content goes to a temporary
 * file in the same directory (anonymous until complete where O_TMPFILE works,
 * else ".<name>.nogvl-lint.XXXXXX"), with the file's permissions (and owner,
 * where allowed), fsynced, then renamed over path; the directory is fsynced.
 * A process killed at any moment leaves path either old or new. With
 * expect_hash, path must still hash (XXH3-64) to it just before the rename.
 * Returns 0, or -1 with *err set. */
int atomic_replace(const char *path, const char *data, size_t len, const uint64_t *expect_hash, char **err);
int atomic_write(const char *path, const char *data, size_t len, char **err); /* no hash check */

/* Applies (or, with dry_run, prints as a diff to out) the fixes of every
 * finding not suppressed. A file whose content differs from what was parsed
 * is not touched. Temporary files an interrupted earlier --fix left next to
 * a file are removed. Each rewritten file is re-parsed and restored if it got
 * new parse errors. Returns the number of files changed (or that would
 * change), or -1 when something could not be done (logged).
 *
 * Test hook: NOGVL_LINT_FIX_DELAY_MS=N makes --fix wait N ms (at most 60 s)
 * before each file, after a line on stderr naming it; it changes nothing
 * else (tests/cli/fix_safety.sh changes a file or kills the process there). */
int fix_run(struct run *r, bool dry_run, FILE *out);

#endif
