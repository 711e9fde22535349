/* report.h: findings and their output. */
#ifndef NOGVL_REPORT_H
#define NOGVL_REPORT_H

#include <stdio.h>

#include "facts.h"
#include "model.h"

enum severity {
	SEV_NOTE = 0,
	SEV_WARNING = 1,
	SEV_ERROR = 2,
	SEV_NONE = 3, /* --fail-level none */
};

const char *severity_name(int sev);
int severity_parse(const char *s); /* -1 when unknown */

struct rule_desc;
struct suppression;

struct note {
	struct loc loc;
	char *msg;
};

/* A text replacement: [off, off+len) in file becomes text. */
struct fix {
	const char *file;
	uint32_t off, len;
	uint32_t line, col; /* of off, for output */
	char *text;
};

struct finding {
	const struct rule_desc *rule;
	int severity;
	struct loc loc;
	char *msg;
	const char *function; /* enclosing function name, for fingerprints */
	const char *macro;    /* the finding comes from this macro's expansion */
	VEC(struct note) notes;
	VEC(struct fix) fixes;
	char *fix_desc; /* what the fixes do */
	uint8_t suppressed;
	uint8_t baselined;   /* recorded in the --baseline file: not reported */
	uint8_t unreachable; /* in a function nothing in the gem calls (findings_unreachable_evidence) */
	const struct suppression *suppressed_by; /* the inline suppression (suppress.h) */
	char fingerprint[33];                    /* stable id without line numbers (fingerprint.h); "" until computed */
};

struct findings {
	VEC(struct finding *) v;
};

struct finding *finding_add(struct findings *fs, const struct rule_desc *r, int severity, const struct loc *loc,
			    const char *function, const char *msg);
void finding_note(struct finding *f, const struct loc *loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
void finding_fix(struct finding *f, const char *file, uint32_t off, uint32_t len, uint32_t line, uint32_t col,
		 const char *text);
/* "expanded from macro" note when ev came from a macro body. */
void finding_macro_note(struct finding *f, const struct event *ev);
/* Notes for the chain from function fn back to its release site (context ctx). */
void finding_chain(struct finding *f, const struct model *m, enum ctx_kind ctx, uint32_t fn);
/* Same, from a reach set computed for one site. */
void finding_chain_set(struct finding *f, const struct model *m, const struct reach *by_fn, uint32_t fn,
		       enum ctx_kind ctx);
/* The note at a release site ("'cb' passed to rb_nogvl here"). */
void finding_site_note(struct finding *f, const struct model *m, const struct msite *s, enum ctx_kind ctx,
		       const char *fname);

/* Every finding at a release site or an event a macro body made gets the
 * macro (JSON "macro") and, unless it already names it, an "expanded from
 * macro" note: whichever rule reported it. */
void findings_macro_evidence(struct findings *fs, const struct model *m);
/* A finding inside a function nothing in the gem calls (model_mark_unreachable:
 * static, never referred to) is still reported, as its release sites are, but
 * marked: a note (text), JSON "unreachable", summary findings_unreachable. */
void findings_unreachable_evidence(struct findings *fs, const struct model *m);

/* Advice that judges function fn's body (small work, CPU work, an offload
 * verdict) names the #if branch it was judged on: the branch of a group with
 * alternatives that holds the definition, and the compiled branch of a group
 * inside the body. */
void finding_branch_note(struct finding *f, const struct model *m, uint32_t fn);

/* Sorts (file, line, col, slug, message) and drops exact duplicates. */
void findings_sort(struct findings *fs);
/* Keeps the findings for which keep() is true, in order; frees the others. */
void findings_filter(struct findings *fs, bool (*keep)(const struct finding *f, void *ctx), void *ctx);
void findings_free(struct findings *fs);

/* Display path: relative to the current directory when below it. */
char *display_path(const char *abs);

/* Source line `line` of file (cached), without the newline; NULL if unavailable. */
const char *source_line(const char *file, uint32_t line);
void source_cache_clear(void);

struct summary {
	/* files: every source file given or found; files_failed: could not be
	 * analysed at all; files_with_errors: analysed, with clang errors;
	 * files_degraded: analysed with recovery stubs */
	size_t files, files_failed, files_with_errors, files_degraded;
	size_t errors, warnings, notes;
	size_t sites, callbacks, unresolved;
	size_t sites_unreachable;     /* of sites: in functions nothing in the gem calls (not work to do) */
	size_t findings_unreachable;  /* of the reported findings: in such functions */
	size_t suppressed, baselined; /* findings hidden by comments / by --baseline */
	/* issue 14: what could not be read. files_missing_headers: analysed with
	 * #includes that stayed unresolved (missing_headers names them, most-missed first);
	 * files_incomplete: of those, files that spell a release API (or include
	 * a project header that does) and got no analysed release site;
	 * foreign_files: sources in languages libclang does not read, with
	 * foreign_spellings GVL-release spellings; incomplete: the run is not
	 * clean (exit 3 unless allowed, incomplete_allowed) */
	size_t files_missing_headers, files_incomplete, foreign_files, foreign_spellings;
	strlist missing_headers;
	/* files the gem's build makes from a template, so not read: missing
	 * headers with a template next to a file that includes them ("apiwrap.h"
	 * from apiwrap.h.tmpl) and sources of $objs (apiwrap.c from
	 * apiwrap.c.tmpl); generated_from[i] is the template of generated_files[i]
	 * (as displayed) */
	strlist generated_files, generated_from;
	bool incomplete, incomplete_allowed;
};

void report_text(FILE *out, const struct findings *fs, bool color);
/* "2 files analysed (1 with parse errors), 1 could not be analysed,
 *  3 findings (1 error, 2 warnings, 0 notes)" on one line. */
void summary_line(FILE *out, const struct summary *s);

#endif
