/* sysprobe.h: asking the system the way a gem's build would, without running
 * anything from the gem (issue 14).
 *
 * - a system tool (pkg-config) runs through run_process (util.h): no shell,
 *   a time limit and a bound on its output, its environment inherited as is;
 * - pkgconfig_include_dirs: `pkg-config --cflags-only-I MODULE`, of which only
 *   the -I directories are taken (the output is untrusted text);
 * - header_search: where a missing `x/y.h` could come from: a unique file
 *   whose path ends with x/y.h in the gem's tree or the system's include
 *   trees, searched within a bound of files and time.
 */
#ifndef NOGVL_SYSPROBE_H
#define NOGVL_SYSPROBE_H

#include "process.h"
#include "util.h"

/* The first executable `name` in an absolute PATH entry that is not below
 * any of the untrusted trees (the analysed gem: a gem's own bin/pkg-config
 * never runs); NULL when there is none (caller frees). */
char *find_system_program(const char *name, char *const *untrusted, size_t nuntrusted);

/* The -I directories (absolute, existing) the pkg-config program gives for
 * module; 0 when it answered (dirs may stay empty), else -1 with *why
 * (caller frees). */
int pkgconfig_include_dirs(const char *program, const char *module, unsigned timeout_ms, strlist *dirs, char **why);

/* The directories pkg-config (program) looks in for MODULE.pc:
 * $PKG_CONFIG_PATH's, then its default ones (`--variable pc_path
 * pkg-config`); 0 with *dirs, -1 when that is not known ($PKG_CONFIG_LIBDIR
 * set, or no answer). */
int pkgconfig_search_dirs(const char *program, unsigned timeout_ms, strlist *dirs);

/* Whether pkg-config surely has no module `module`: a plain name (not one
 * pkgconf knows without a file, not a path to a .pc file) with neither
 * MODULE.pc nor MODULE-uninstalled.pc in dirs (pkgconfig_search_dirs). A
 * run of pkg-config for each have_library candidate that is not installed
 * (most of them) was 5% of a warm run of Ruby's ext/. */
bool pkgconfig_surely_missing(const strlist *dirs, const char *module);

/* Bounds of one header search over a tree. */
#define HEADER_SEARCH_MAX_FILES 200000u
#define HEADER_SEARCH_MAX_SECONDS 10.0

struct header_index {
	strlist files;   /* absolute paths of the headers found under the trees */
	bool bounded;    /* the file or time bound was hit */
	strlist notes;   /* what was bounded or skipped, for -v */
	double deadline; /* now_seconds() limit while indexing */
	unsigned max_files;
};

/* Indexes the headers (any regular file) below dir: symbolic links to
 * directories are not followed, each directory is read once (by device and
 * inode), depth at most 32, tmp/ pkg/ .git/ skipped. */
void header_index_add_tree(struct header_index *hi, const char *dir);
void header_index_free(struct header_index *hi);

/* The directories D such that D/name exists: among the indexed files, and
 * in the system's include trees (/usr/include, /usr/local/include, their
 * multiarch directories and one level of subdirectories of each; not the
 * trees themselves, which the compiler already searches). Appends distinct
 * directories to out. */
void header_candidates(const struct header_index *hi, const char *name, strlist *out);

/* 'NAME' from a clang "'NAME' file not found" message, else NULL (caller frees). */
char *missing_header_name(const char *msg);

/* A GVL-release spelling found by a token scan of text (outside comments
 * and string literals). */
struct spelling {
	char *file;      /* absolute */
	const char *api; /* static string */
	unsigned line;
	uint8_t in_define; /* C: in a #define body */
};
typedef VEC(struct spelling) spelling_vec;

/* Appends the spellings in text: C (rust false): the release APIs of
 * gvlapi.h; Rust and other languages: rb_nogvl, rb_thread_call_without_gvl,
 * rb_thread_call_without_gvl2 and RB_NOGVL_OFFLOAD_SAFE. names (may be NULL)
 * adds identifiers to look for: identifier -> the string recorded as `api`
 * (it must outlive out), such as the project's release wrappers. */
struct hmap;
void scan_spellings(const char *file, const char *text, size_t len, bool rust, const struct hmap *names,
		    spelling_vec *out);
void spellings_free(spelling_vec *v);

struct tu_facts;
/* The headers a parse could not find (distinct, in diagnostic order),
 * appended to names (may be NULL); returns how many. */
size_t tu_missing_headers(const struct tu_facts *tu, strlist *names);

#endif
