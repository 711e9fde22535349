/* fingerprint.h: stable identities for findings (baselines, SARIF partialFingerprints).
 *
 * A fingerprint is XXH3-128 (hex) over: the rule slug, the file's path relative
 * to the project root, the enclosing function, the finding's source line with
 * comments removed and whitespace collapsed, and the occurrence number among
 * findings that share all of these (in line order). No line or column numbers:
 * edits elsewhere in the file, reindenting, or a comment added on the line do
 * not change it. The project root is the nearest directory above the file
 * that holds .git (a git work tree), else the current directory.
 */
#ifndef NOGVL_FINGERPRINT_H
#define NOGVL_FINGERPRINT_H

#include "report.h"

#define FINGERPRINT_VERSION 1

/* The line with comments removed and whitespace runs collapsed to one space. */
char *fingerprint_normalise_code(const char *line);

/* Path of abs_file relative to its project root. cache (may be NULL) maps
 * directories to roots; free it with fingerprint_cache_free. */
char *fingerprint_relpath(struct hmap *cache, const char *abs_file);
void fingerprint_cache_free(struct hmap *cache);

/* Hex XXH3-128 of the parts. */
void fingerprint_of(const char *slug, const char *relpath, const char *function, const char *code, unsigned occurrence,
		    char out[33]);

/* Sets f->fingerprint of every finding (sorted by findings_sort). */
void fingerprints_compute(struct findings *fs);

#endif
