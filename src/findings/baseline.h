/* baseline.h: --write-baseline / --baseline.
 *
 * The file is JSON, written by the tool and meant to be committed:
 *   {"nogvl_lint_baseline": 1, "tool_version": "0.1.0",
 *    "findings": [{"fingerprint": "...", "rule": "...", "file": "ext/x.c",
 *                  "function": "...", "code": "...", "message": "..."}]}
 * Entries are matched by fingerprint only (fingerprint.h: no line numbers).
 * file/function/code/message are there for a reviewer reading the diff.
 */
#ifndef NOGVL_BASELINE_H
#define NOGVL_BASELINE_H

#include "report.h"

#define BASELINE_FORMAT 1

enum baseline_state {
	BL_NOT_CHECKED = 0, /* its file was not analysed in this run */
	BL_MATCHED,         /* the finding is still there (hidden) */
	BL_FIXED,           /* its file was analysed and the finding is gone */
};

struct baseline_entry {
	char *fingerprint, *rule, *file, *function, *code, *message;
	int state; /* enum baseline_state */
};

struct baseline {
	char *path;
	char *tool_version;
	VEC(struct baseline_entry) v;
	struct hmap by_fp; /* fingerprint -> entry index + 1 */
	size_t hidden, fixed;
};

/* Returns 0, or -1 with *err ("path: what is wrong"). */
int baseline_read(const char *path, struct baseline *b, char **err);
/* Records every finding that is not suppressed (baselined ones included). */
int baseline_write(const char *path, const struct findings *fs, char **err);
/* Marks findings whose fingerprint is recorded as baselined; then entries of
 * files in analysed (relative paths as in the file -> non-NULL) that matched
 * nothing as fixed. */
void baseline_apply(struct baseline *b, struct findings *fs, const struct hmap *analysed);
void baseline_free(struct baseline *b);

#endif
