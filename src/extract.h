/* extract.h: libclang AST of one TU -> struct tu_facts. */
#ifndef NOGVL_EXTRACT_H
#define NOGVL_EXTRACT_H

#include <clang-c/Index.h>

#include "facts.h"

struct file_classifier {
	const char *const *ruby_dirs;   /* Ruby header directories (absolute) */
	size_t nruby_dirs;
	const char *const *project_roots; /* directories whose files are the project's */
	size_t nproject_roots;
	const char *stub_name;          /* name of the recovery stub header, or NULL */
};

/* Classifies an absolute path. */
enum origin classify_path(const struct file_classifier *fc, const char *path);
bool is_project_path(const struct file_classifier *fc, const char *path);

/* Walks ctu and fills tu (which the caller initialised with path/arena/pool). */
void extract_tu(CXTranslationUnit ctu, struct tu_facts *tu, const struct file_classifier *fc);

/* Scans the main file's tokens for GVL-release API names (the AST-independent
 * safety net for files that do not parse), marking hits inside skipped
 * preprocessor ranges as inactive. */
void extract_token_sites(CXTranslationUnit ctu, struct tu_facts *tu);

/* Scans the main file text for #if/#ifdef/#ifndef/#elif/#else/#endif blocks
 * and #define lines. */
void scan_pp_conds(struct tu_facts *tu, const char *text, size_t len);
/* Records the #define lines of a project header. */
void scan_pp_defines(struct tu_facts *tu, const char *file, const char *text, size_t len);

#endif
