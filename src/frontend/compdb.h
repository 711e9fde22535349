/* compdb.h: compile_commands.json (read with jansson) and compiler-flag filtering. */
#ifndef NOGVL_COMPDB_H
#define NOGVL_COMPDB_H

#include "util.h"

struct compdb_entry {
	char *file;      /* absolute, normalised */
	char *directory; /* absolute */
	strlist argv;    /* the compiler command split into words, argv[0] = compiler */
};

struct compdb {
	VEC(struct compdb_entry) entries;
	VEC(char *) warnings; /* entries skipped, with the reason */
};

/* Loads path. Returns 0, or -1 with *err set (caller frees) when the file
 * cannot be read or is not a JSON array. Bad entries are skipped with a
 * warning in db->warnings. */
int compdb_load(const char *path, struct compdb *db, char **err);
/* Parses JSON text (for tests). base_dir resolves a relative "directory". */
int compdb_parse(const char *text, size_t len, const char *base_dir, struct compdb *db, char **err);
void compdb_free(struct compdb *db);

/* Splits a shell command line the way a POSIX shell would for words
 * (quotes and backslashes; no expansion). Returns 0, or -1 on an unterminated
 * quote. */
int shell_split(const char *cmd, strlist *out);

/* Compiler arguments for analysing `file` (absolute, normalised): expands
 * @response files, drops the compiler (argv[0]), the input file, output,
 * dependency-file and link options, and flags only GCC knows; refuses
 * plugin-loading flags (returns -1 with *err naming the flag; also for an
 * unreadable response file). Relative paths of -I, -isystem, -include, ...
 * are made absolute against directory.
 *
 * Each entry of `dropped` is "FLAG (reason)"; routine drops (outputs,
 * dependency files, linking, code generation) end with DROP_ROUTINE. Flags
 * that clang itself rejects are found later, by parse.c. */
#define DROP_ROUTINE " (not used for analysis)"
/* Why the argument a (followed by next, or NULL) is not among those analysis
 * uses (-D -U -I -isystem -iquote -idirafter -include -imacros -std= the
 * language's -f options -W -m<target> --target -isysroot --sysroot, -x c/c++
 * and their headers, -O, -g, -pthread, ...), or NULL when it is. *take: how
 * many arguments the verdict covers (2: the option and its value). */
const char *flag_not_allowed(const char *a, const char *next, size_t *take);
int filter_flags(char *const *argv, size_t argc, const char *file, const char *directory, strlist *keep,
		 strlist *dropped, char **err);

/* Why an argument (followed by next, or NULL) must never reach libclang, or
 * NULL when it may: it loads code into the compiler (-fplugin=, -fpass-plugin=,
 * -Xclang -load, -Wp,-load,..., -Xarch_* -fplugin=...), or it reads more flags
 * from a file (--config). Response files are expanded before this check. */
#define FLAG_WHY_PLUGIN "it loads code into the analyser"
#define FLAG_WHY_CONFIG "it reads more compiler flags from a file the analyser does not check"
const char *flag_refusal(const char *arg, const char *next);
/* flag_refusal() != NULL */
bool flag_loads_plugin(const char *arg, const char *next);

#endif
