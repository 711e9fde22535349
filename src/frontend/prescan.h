/* prescan.h: what a file includes, looked at before libclang opens it.
 *
 * libclang opens whatever an #include names: `#include "/dev/zero"` made one
 * parser grow to 16 GB, a header that is a FIFO blocks until the time limit.
 * Before a file is parsed, its #include lines (and those of the project
 * headers they reach, and -include/-imacros files) are resolved against the
 * file's directory and the -I/-iquote/-isystem/-idirafter directories as
 * the preprocessor would; a name that resolves to something that is not a
 * regular file, or to a file under /dev, /proc or /sys, fails the file
 * ("not analysed") before libclang sees it.
 *
 * The same pass neutralises `#pragma clang __debug ...` (and _Pragma) in the
 * files it reads: those pragmas dump ASTs to stdout or crash the compiler on
 * purpose. The neutralised texts are handed to libclang as unsaved files
 * (same length, so every offset stays).
 *
 * An include whose name comes from a simple object-like macro
 * (`#define F "x.h"` or -DF=..., then `#include F`) is resolved here too
 * (a macro defined in a header scanned after the include: with every macro
 * seen, at the end). Project headers are read once per process (a parser
 * process, or this one with --tu-timeout 0), checked by size and time.
 * Any other spelling (`#include MACRO(x)`, token pasting, a symlink made
 * to point elsewhere) is caught by the open guard below, which looks at
 * what libclang actually opens.
 *
 * The open guard: this file defines open() and open64(), exported from the
 * executable, so libclang's reads (libLLVM calls open()) come here. While a
 * parse is armed (prescan_guard_arm), a read-only open of anything that is
 * not a regular file or directory (a device, FIFO, socket; /dev/null aside),
 * or of a file under /dev, /proc or /sys however it is named, fails with
 * EACCES and is recorded; every other open goes to the kernel unchanged.
 * The parse that was armed then fails the file with the recorded reason.
 * Should a libclang reach the kernel some other way, the guard sees nothing
 * (prescan_guard_effective) and the pre-scan above, the parser process's
 * memory limit and the time limits remain. */
#ifndef NOGVL_PRESCAN_H
#define NOGVL_PRESCAN_H

#include <clang-c/Index.h>

#include "util.h"

struct prescan {
	VEC(struct CXUnsavedFile) overrides; /* neutralised texts */
	strlist store;                       /* their names and texts */
	char *refused;                       /* why the file must not be parsed, or NULL */
};

/* file: the main file (absolute) with its text; args: its compiler
 * arguments; sys_dirs: directories not descended into (Ruby's headers; the
 * system's are under /usr). */
void prescan_run(struct prescan *ps, const char *file, const char *text, size_t len, char *const *args, size_t nargs,
		 const char *const *sys_dirs, size_t nsys);
void prescan_free(struct prescan *ps);

/* A copy of text with `__debug` on pragma lines renamed (same length), or
 * NULL when there is none. */
char *prescan_neutralise(const char *text, size_t len);

/* Arms the open guard for one parse; returns a token for disarm. Arms
 * nest (parses on several threads): a refusal is then seen by every parse
 * armed at the time, and claimed by those whose errors name the file. */
unsigned long prescan_guard_arm(void);
/* Disarms; returns (malloc'd) the first refusal since arm (for which
 * mine(path, ctx) holds, when mine is given: with parses on several threads,
 * the parse whose include was refused; an open libclang makes for itself
 * is not an include), or NULL. */
char *prescan_guard_disarm(unsigned long token, bool (*mine)(const char *path, void *ctx), void *ctx);
/* Whether the guard has seen an open from libclang in this process. */
bool prescan_guard_effective(void);

#endif
