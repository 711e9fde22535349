/* extract.h: libclang AST of one TU -> struct tu_facts. */
#ifndef NOGVL_EXTRACT_H
#define NOGVL_EXTRACT_H

#include "clang_api.h"

#include "facts.h"

struct file_classifier {
	const char *const *ruby_dirs; /* Ruby header directories (absolute) */
	size_t nruby_dirs;
	const char *const *project_roots; /* directories whose files are the project's */
	size_t nproject_roots;
	const char *stub_name; /* name of the recovery stub header, or NULL */
};

/* Classifies an absolute path. */
enum origin classify_path(const struct file_classifier *fc, const char *path);
bool is_project_path(const struct file_classifier *fc, const char *path);

/* How deep the walk goes into nested statements and expressions (a chain of
 * 20,000 `+` or `else if` is one level each). Deeper nodes are summarised
 * (their text and location) without walking inside, and their function is
 * marked FN_TRUNCATED: the walk is recursive, and a generated file must not
 * overflow the stack. Real code stays far below. The walk also stops where
 * less than EXTRACT_STACK_RESERVE of the thread's stack is left (sanitizer
 * builds have ~20 KiB frames; release builds reach EXTRACT_MAX_DEPTH first,
 * on an 8 MiB main thread and on the 16 MiB parser threads alike, so the
 * facts do not depend on --jobs). */
#define EXTRACT_MAX_DEPTH 1000
#define EXTRACT_STACK_RESERVE (1024u * 1024u)

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
