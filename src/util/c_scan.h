/* c_scan.h: a lexical walk over C source text (or Rust, for spellings),
 * handing over each identifier with where it stands: comments, string and
 * character literals and numbers are skipped. What the two text scans share:
 * the GVL-release spellings of a file (sysprobe.c: scan_spellings) and the
 * spellings of a function's name (reachable.c). Not a preprocessor: no
 * macro is expanded, no #if followed. */
#ifndef NOGVL_C_SCAN_H
#define NOGVL_C_SCAN_H

#include <stdbool.h>
#include <stddef.h>

struct c_ident {
	const char *s; /* the identifier (not NUL-terminated), n bytes */
	size_t n;
	size_t end;        /* the offset in text just past it */
	unsigned line;     /* 1-based */
	int depth;         /* braces open around it (those outside directives) */
	bool in_directive; /* on a preprocessor line (continued over backslash-newlines) */
	bool in_define;    /* on a #define line */
};

enum c_scan_flags {
	C_SCAN_C = 0,
	/* Rust and other languages: a string may span lines; no character
	 * literals (a quote starts a lifetime) or directives */
	C_SCAN_RUST = 1u << 0,
};

/* Calls fn for every identifier of text, in order. Lines are counted across
 * comments and literals too (a backslash-newline included); a C literal ends
 * at the end of its line at the latest. */
void c_scan_idents(const char *text, size_t len, unsigned flags, void (*fn)(const struct c_ident *id, void *arg),
		   void *arg);

#endif
