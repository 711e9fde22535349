/* files.h: paths, reading whole files, replacing a file the user named.
 * util.h includes it. */
#ifndef NOGVL_FILES_H
#define NOGVL_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Paths. */
char *path_join(const char *a, const char *b);
char *path_dirname(const char *p);
const char *path_basename(const char *p);
char *path_absolute(const char *p);  /* realpath, or cwd-joined normalised text */
char *path_normalize(const char *p); /* collapse //, /./ and /../ lexically */
/* p relative to base when p is below base, else a copy of p. */
char *path_relative(const char *p, const char *base);
bool path_is_below(const char *p, const char *dir);
bool path_is_dir(const char *p);
bool path_is_file(const char *p);
const char *path_ext(const char *p); /* ".c", or "" */

/* Reads a whole file (NUL-terminated). Returns NULL and sets errno on failure.
 * Files larger than max_bytes fail with EFBIG. */
char *read_file(const char *path, size_t *len, size_t max_bytes);
/* Reads a small text file the user names (a configuration or model file) of
 * at most max_bytes. Returns NULL with *err = "path:1:1: larger than N KiB:
 * not a <what>" or "path: cannot read: why". */
char *read_bounded_text(const char *path, size_t max_bytes, const char *what, size_t *len, char **err);
/* Writing a file the user named without following a symlink at its name or
 * leaving a half-written file: a temporary file in the same directory
 * (mode 0666 & ~umask), renamed over the name by file_replace_commit (which
 * closes f; on failure removes the temporary and returns -1 with errno).
 * A device, FIFO or socket named directly (`-o /dev/null`), or a name in
 * /dev or /proc that leads to one (`/dev/stdout`), is written in place
 * (*tmp is NULL): renaming over it would replace the device itself. */
FILE *file_replace_open(const char *path, char **tmp);
int file_replace_commit(FILE *f, char *tmp, const char *path, bool ok);

#endif
