/* changed.h: --changed-lines REF / -: the lines a change touches, from
 * `git diff -U0 REF` or a unified diff on stdin, to report only the findings
 * a change is responsible for. The diff is outside data: parsed, never run. */
#ifndef NOGVL_CHANGED_H
#define NOGVL_CHANGED_H

#include <stdbool.h>
#include <stddef.h>

#include "report.h"
#include "util.h"

struct line_range {
	unsigned lo, hi; /* inclusive, lines of the new side */
};

struct changed_file {
	char *path; /* absolute */
	VEC(struct line_range) ranges;
};

struct changed_lines {
	VEC(struct changed_file *) files;
	struct hmap by_path; /* path -> struct changed_file */
	size_t nlines;       /* lines marked, for -v */
};

/* The largest diff read (git's output or stdin). */
#define CHANGED_MAX_DIFF (256u * 1024 * 1024)
/* git (rev-parse, diff) gets this long before it is stopped */
#define CHANGED_GIT_TIMEOUT_MS (300u * 1000)

/* Parses a unified diff (git's, or diff -u's; context lines allowed). File
 * names are taken from the "+++" lines (b/ stripped when the "---" line has
 * a/, git's C quoting undone) and made absolute against base. A line counts
 * as changed when it was added or modified, and the lines either side of a
 * deletion count too. Returns 0, or -1 with *err when text is not a unified
 * diff (an empty text is a diff with no changes). */
int changed_parse(const char *text, size_t len, const char *base, struct changed_lines *cl, char **err);

/* spec "-": reads stdin; otherwise runs `git diff -U0 spec` (no shell, with
 * the repository's diff drivers, external diffs, textconv filters and
 * fsmonitor off) in dir, names relative to the work tree's top. Returns 0, or
 * -1 with *err (one line: why). */
int changed_load(const char *spec, const char *dir, struct changed_lines *cl, char **err);

/* Whether line of file (any path spelling) is changed. */
bool changed_touches(const struct changed_lines *cl, const char *file, unsigned line);
/* The finding's line or a line of its chain (notes) is changed. */
bool changed_finding(const struct changed_lines *cl, const struct finding *f);

void changed_free(struct changed_lines *cl);

#endif
