/* suppress.h: inline suppressions, read from the comments of the source.
 *
 *   rb_raise(...);  // nogvl-lint: ignore[ruby-api-without-gvl] raised after re-taking the GVL
 *
 *   // nogvl-lint: ignore[ruby-api-without-gvl,value-access-without-gvl] reason
 *   rb_raise(...);
 *
 *   // nogvl-lint: ignore-begin[value-access-without-gvl] reason
 *   ...
 *   // nogvl-lint: ignore-end[value-access-without-gvl]
 *
 * Both comment styles work (use / * * / inside a multi-line #define). A
 * comment that shares its line with code covers that line; a comment alone on
 * its line covers the next line that has code (blank and comment-only lines
 * in between are skipped, so a suppression survives reformatting and a
 * longer explanation below it). A block covers the lines from ignore-begin to
 * ignore-end; ignore-end without a list closes the innermost open block. A
 * finding that comes from the expansion of a macro defined in the analysed
 * file is also suppressed by a comment that covers the macro's #define.
 * The text after the closing bracket is the reason, kept in the machine
 * output.
 */
#ifndef NOGVL_SUPPRESS_H
#define NOGVL_SUPPRESS_H

#include "model.h"
#include "report.h"

#define SUPPRESS_MAX_SLUGS 16

struct suppression {
	const char *file;     /* absolute (owned by the suppress_file) */
	uint32_t line, col;   /* where the comment starts */
	uint32_t first, last; /* lines covered */
	uint8_t block;        /* from ignore-begin ... ignore-end */
	uint8_t nslugs;
	const char *slugs[SUPPRESS_MAX_SLUGS]; /* rule slugs (static strings of the descriptors) */
	uint32_t used[SUPPRESS_MAX_SLUGS];     /* findings suppressed, per slug */
	char *reason;                          /* "" when none */
};

struct suppress_file {
	char *path;
	bool readable;
	/* the file's text is not kept (every project file is read): of its
	 * lines only which end with a backslash (a #define continues), bit L
	 * for line L (1-based, below nlines) */
	uint32_t nlines;
	uint8_t *continued;
	VEC(struct suppression) v;
	strlist warnings; /* "line:col: what is wrong" */
};

/* Scans text (a C/C++ source) for nogvl-lint: comments. path is kept. */
void suppress_scan(const char *path, const char *text, size_t len, struct suppress_file *out);
void suppress_file_free(struct suppress_file *sf);
/* What a run keeps of a readable file's text (sf->path set): its
 * suppressions and which lines continue; text is not kept. */
void suppress_file_load(struct suppress_file *sf, const char *text, size_t len);

struct suppress_set {
	struct hmap files; /* absolute path -> struct suppress_file */
};

/* Reads (once) and returns the file's suppressions; warnings are logged once. */
struct suppress_file *suppress_get(struct suppress_set *ss, const char *abs_path);
void suppress_set_free(struct suppress_set *ss);

/* Marks findings covered by a suppression (f->suppressed, f->suppressed_by).
 * m (optional) resolves macro definitions for findings in expansions. */
void suppress_apply(struct suppress_set *ss, struct findings *fs, const struct model *m);

/* Adds an unused-suppression finding for every slug of every scanned
 * suppression that suppressed nothing, when evaluated(slug, file) says that
 * rule ran on that file. */
void suppress_report_unused(struct suppress_set *ss, struct findings *fs, const struct rule_desc *unused_rule,
			    int severity, bool (*evaluated)(const char *slug, const char *file, void *ctx), void *ctx);

#endif
