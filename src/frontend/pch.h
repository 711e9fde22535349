/* pch.h: a precompiled Ruby-header preamble shared by the files of a run.
 *
 * Most of a small extension file's parse is Ruby's headers (ruby.h and what
 * it includes, ~15k lines). For every set of compiler arguments (a gem's
 * defines and include paths), ruby.h is parsed once into a precompiled
 * header, and every file that would include ruby.h before anything that
 * could change it gets it with -include-pch. Only ruby.h: a file that does not
 * include ruby/thread.h must not see its declarations or RB_NOGVL_* macros.
 *
 * A file is eligible only when it includes ruby.h unconditionally (directly,
 * or through the project headers it includes first) and the text before is
 * nothing but comments, includes of Ruby's own headers (ruby/...), the
 * project header that reaches ruby.h, conditionals that test no macro of the
 * preamble, and #define/#undef of names the preamble never mentions: nothing
 * that could change what ruby.h means, no code. A system header before
 * ruby.h is read, without the preamble, before ruby/config.h's feature
 * macros (_GNU_SOURCE): such a file gets a preamble that includes the same
 * lines (with Ruby's pieces and extconf.h before them) ahead of ruby.h, keyed
 * by them, built when a second file asks for it (ext/openssl's ossl.h:
 * <assert.h>), none for the first; the checks below apply to their macros
 * too. One in a conditional is fine when the parse with the preamble skipped
 * it (pch_prefix_skipped); a conditional include of Ruby's headers or
 * extconf.h before a system header is not.
 * A -D or -U of a name the preamble never mentions does not split preambles
 * either.
 * A file whose directory holds a header the preamble includes (a local
 * time.h, found through -I<dir> instead of the system's) does not use it.
 * Anything else is parsed the ordinary way, as are files whose parse reports
 * a problem with the precompiled header. The tests check that facts are the
 * same with and without it.
 *
 * A second preamble: when the file reaches ruby.h through a project header
 * (ext/openssl's ossl.h), the lines of that header right after ruby.h that
 * only include system headers (not found on the arguments' -I directories)
 * and Ruby's, with balanced conditionals, up to its first other line, are
 * added to the preamble, keyed by those lines and the arguments. It is built
 * when a second file asks for the same lines with the same arguments, and the
 * checks above apply to it with its added headers (a define or test before
 * ruby.h of a name they mention, a directory shadowing one of them); when it
 * does not fit or cannot be built, Ruby's headers alone. Only system headers
 * are added: the project's own declarations and macros are still parsed in
 * each file (a preamble's declarations are not walked), so the facts are the
 * same (tests/cli/pch_blocks.sh).
 */
#ifndef NOGVL_PCH_H
#define NOGVL_PCH_H

#include "clang_api.h"
#include <stdbool.h>
#include <stddef.h>

struct tu_job;
struct pch_set;

/* A set for one run, in a new directory below `under` (NULL: $TMPDIR or
 * /tmp); NULL when no directory could be made. */
struct pch_set *pch_set_new(const char *under);
/* Removes its files, and what worker processes' sets left below it. */
void pch_set_free(struct pch_set *ps);
const char *pch_set_dir(const struct pch_set *ps);

/* Does the file text reach ruby.h (unconditionally, with nothing but Ruby's
 * headers, system headers, the project header that includes it,
 * conditionals, #define and #undef before it)? NULL if not; else
 * what those lines name, for pch_for to check against the preamble. */
struct pch_prefix;
struct pch_prefix *pch_eligible(const char *text, size_t len, const char *dir, const char *const *args, size_t nargs);
void pch_prefix_free(struct pch_prefix *p);
/* Whether the parse with the preamble skipped every #include that the lines
 * before ruby.h hold in a conditional (#ifdef _WIN32 / #include <windows.h>):
 * one it read makes the parse differ from one without the preamble. */
bool pch_prefix_skipped(const struct pch_prefix *p, CXTranslationUnit tu, const char *main_file);

struct parse_opts;

/* The PCH for these arguments (built on first use: *built), or NULL. extra are the
 * arguments every parse adds (diagnostic options). */
const char *pch_for(struct pch_set *ps, CXIndex idx, const struct tu_job *job, const char *const *args, size_t nargs,
		    const char *const *extra, size_t nextra, const struct parse_opts *o,
		    const struct pch_prefix *prefix, bool *built);

/* A directory that holds its own ruby.h, ruby/ or extconf.h would change what
 * the shared preamble means for files there. */
bool pch_dir_shadows(const char *dir);

#endif
