/* inputs.h: turning the command line into translation units to parse.
 *
 * Buildless mode (paths): finds the C/C++ sources, and gives each the Ruby
 * header directories, its own directory, the HAVE_* defines mkmf would set on a
 * modern Ruby for the GVL APIs, the defines read statically from the nearest
 * extconf.rb, and the Ruby 3.4 view (RB_NOGVL_OFFLOAD_SAFE = 0x4) when the
 * installed headers are older.
 *
 * Compile-database mode: each entry's own flags (filtered) and directory.
 */
#ifndef NOGVL_INPUTS_H
#define NOGVL_INPUTS_H

#include "cli.h"
#include "compdb.h"
#include "parse.h"

struct ruby_headers {
	strlist dirs;          /* absolute; arch dir first */
	bool has_offload_flag; /* ruby/thread.h defines RB_NOGVL_OFFLOAD_SAFE */
	char *source;          /* how they were found, for -v */
};

/* Finds Ruby's headers: the explicit dirs (--ruby-include; each must exist and
 * one must hold ruby.h or ruby/config.h), else rubyarchhdrdir and rubyhdrdir
 * from RbConfig of the `ruby` on PATH, else /usr/include/ruby-* and friends.
 * Returns 0, or -1 with *err (caller frees). */
int ruby_headers_find(const strlist *explicit_dirs, struct ruby_headers *rh, char **err);
void ruby_headers_free(struct ruby_headers *rh);
/* Reads dir/ruby/thread.h (in any of dirs) for RB_NOGVL_OFFLOAD_SAFE. */
bool ruby_headers_have_offload(const strlist *dirs);

/* The mkmf-style defines of a modern Ruby build for the GVL APIs. */
extern const char *const buildless_defines[];
extern const unsigned buildless_ndefines;

/* Appends the source files (.c .cc .cpp .cxx) under path to out, sorted by
 * path (a file path is appended as given), skipping tmp/, vendor/, pkg/ (unless
 * include_vendor) and .git/, .svn/, .hg/. Symbolic links to files are
 * followed, links to directories are not. Problems (unreadable directories)
 * are appended to warnings, and the rest is still scanned. */
void discover_sources(const char *path, bool include_vendor, strlist *out, strlist *warnings);
bool is_source_file(const char *path);

struct inputs {
	VEC(struct tu_job) jobs;
	strlist roots;       /* project roots (absolute) */
	strlist write_roots; /* --fix writes only below these: the directories
				 * named (a named file: the directory it is named
				 * in, not a symlink's target's); compile database:
				 * the project roots */
	struct ruby_headers rh;
	strlist warnings;        /* one line each, printed by the driver */
	strlist notes;           /* one line each, printed with -v */
	char *virtual_dir;       /* directory of the virtual extconf header */
	strlist extconf_headers; /* buildless: create_header("NAME") names, stand-ins in virtual_dir */
	strlist gem_roots;       /* buildless: the gem of each extconf.rb (may repeat) */
	strlist search_roots;    /* buildless: trees searched for missing headers */
	strlist report_only;     /* files (or directories) named with -p or named files of an
				 * extension: only findings there are reported; empty: all */
	strlist foreign;         /* buildless: sources of extensions in a language libclang
				 * does not read (Rust ...), absolute; not analysed */
	strlist generated;       /* buildless: "NAME\tTEMPLATE" for an object of $objs whose
				 * source the build makes from a template (apiwrap.c from
				 * apiwrap.c.tmpl); not analysed */
	bool buildless;
};

/* Builds the jobs. Returns 0, or 2 (usage/config error) with *err set. */
int inputs_build(const struct options *o, struct inputs *in, char **err);
void inputs_free(struct inputs *in);
/* "Rust", "Go", "Zig" for a source libclang does not read, else NULL. */
const char *inputs_foreign_language(const char *path);

#endif
