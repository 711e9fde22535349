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
 * An include whose name comes from a macro (#include NAME) is not resolved
 * here: the parser process's memory limit and the time limits bound it. */
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
void prescan_run(struct prescan *ps, const char *file, const char *text, size_t len, char *const *args,
		 size_t nargs, const char *const *sys_dirs, size_t nsys);
void prescan_free(struct prescan *ps);

/* A copy of text with `__debug` on pragma lines renamed (same length), or
 * NULL when there is none. */
char *prescan_neutralise(const char *text, size_t len);

#endif
