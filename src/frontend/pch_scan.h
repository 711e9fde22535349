/* pch_scan.h: which files may take the shared preamble (pch.h): the text
 * before ruby.h, read without the preprocessor. Internal to pch.c. */
#ifndef NOGVL_PCH_SCAN_H
#define NOGVL_PCH_SCAN_H

#include "util.h"

#include <stdbool.h>

/* The identifier characters of the scans of pch_scan.c and pch.c. */
static inline bool id_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static inline bool id_char(char c)
{
	return id_start(c) || (c >= '0' && c <= '9');
}

/* An #include before ruby.h inside a conditional, in file (NULL: the file
 * itself, else a project header's path) at line. */
struct cond_include {
	char *file;
	unsigned line;
};

struct prefix {
	strlist conds; /* identifiers tested by #if lines before ruby.h */
	strlist defs;  /* names #defined or #undefined before ruby.h */
	/* the project header that includes ruby.h: its system includes right
	 * after ruby.h (with the conditionals around them), as lines for a
	 * second preamble (pch.h); NULL when none or ruby.h is the file's own */
	char *block;
	unsigned ruby_depth; /* depth + 1 of the file that includes ruby.h */
	/* the includes in conditionals before ruby.h: the parse with the
	 * preamble must have skipped them (pch_prefix_skipped) */
	VEC(struct cond_include) cond_incs;
	/* the include lines before ruby.h outside conditionals, in order, when
	 * one of them is a system header (else NULL): ahead of ruby.h in the
	 * preamble, so that they are read before it as without one */
	char *head;
	struct strbuf head_lines; /* while scanning */
	bool head_system;         /* a system header among them */
	bool cond_first;          /* Ruby's or extconf.h included in a conditional before */
};

#endif
