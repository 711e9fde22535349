/* clang_api.h: libclang, loaded when first used.
 *
 * nogvl-lint does not link libclang: merely loading it costs a process about
 * 57 MB of memory (LLVM's relocations and static initialisers), and the main
 * process, which by default only collects the facts its parser processes send
 * (isolate.h), never calls it. Every clang_* function the sources use is a
 * macro here that loads the library on first use and calls through a table.
 * Which library: --libclang PATH (clang_api_set_path), else the environment's
 * NOGVL_LINT_LIBCLANG, else the one the build found (NOGVL_LIBCLANG_PATH)
 * when it is still there, else the newest libclang-N.so* with N from 14 to 19
 * in the standard library directories (clang_api_path). Include this instead of
 * <clang-c/Index.h>; a new libclang function goes in NOGVL_CLANG_FUNCS and
 * gets its #define below (a call that bypasses them fails to link).
 */
#ifndef NOGVL_CLANG_API_H
#define NOGVL_CLANG_API_H

#include <stdatomic.h>
#include <stdbool.h>

#include <clang-c/Index.h>

#define NOGVL_CLANG_FUNCS(X)                                                                                           \
	X(clang_Cursor_Evaluate)                                                                                       \
	X(clang_Cursor_getArgument)                                                                                    \
	X(clang_Cursor_getNumArguments)                                                                                \
	X(clang_Cursor_getStorageClass)                                                                                \
	X(clang_Cursor_getVarDeclInitializer)                                                                          \
	X(clang_Cursor_isFunctionInlined)                                                                              \
	X(clang_Cursor_isMacroFunctionLike)                                                                            \
	X(clang_Cursor_isNull)                                                                                         \
	X(clang_Cursor_isVariadic)                                                                                     \
	X(clang_EvalResult_dispose)                                                                                    \
	X(clang_EvalResult_getAsLongLong)                                                                              \
	X(clang_EvalResult_getKind)                                                                                    \
	X(clang_Type_getNamedType)                                                                                     \
	X(clang_createIndex)                                                                                           \
	X(clang_defaultSaveOptions)                                                                                    \
	X(clang_disposeDiagnostic)                                                                                     \
	X(clang_disposeIndex)                                                                                          \
	X(clang_disposeSourceRangeList)                                                                                \
	X(clang_disposeString)                                                                                         \
	X(clang_disposeTokens)                                                                                         \
	X(clang_disposeTranslationUnit)                                                                                \
	X(clang_equalCursors)                                                                                          \
	X(clang_equalTypes)                                                                                            \
	X(clang_getAllSkippedRanges)                                                                                   \
	X(clang_getArrayElementType)                                                                                   \
	X(clang_getCString)                                                                                            \
	X(clang_getCanonicalType)                                                                                      \
	X(clang_getClangVersion)                                                                                       \
	X(clang_getCursorDefinition)                                                                                   \
	X(clang_getCursorExtent)                                                                                       \
	X(clang_getCursorKind)                                                                                         \
	X(clang_getCursorLinkage)                                                                                      \
	X(clang_getCursorLocation)                                                                                     \
	X(clang_getCursorReferenced)                                                                                   \
	X(clang_getCursorSemanticParent)                                                                               \
	X(clang_getCursorSpelling)                                                                                     \
	X(clang_getCursorTLSKind)                                                                                      \
	X(clang_getCursorType)                                                                                         \
	X(clang_getCursorUSR)                                                                                          \
	X(clang_getDiagnostic)                                                                                         \
	X(clang_getDiagnosticLocation)                                                                                 \
	X(clang_getDiagnosticSeverity)                                                                                 \
	X(clang_getDiagnosticSpelling)                                                                                 \
	X(clang_getEnumConstantDeclValue)                                                                              \
	X(clang_getExpansionLocation)                                                                                  \
	X(clang_File_isEqual)                                                                                          \
	X(clang_getFile)                                                                                               \
	X(clang_getFileContents)                                                                                       \
	X(clang_getFileLocation)                                                                                       \
	X(clang_getFileName)                                                                                           \
	X(clang_getInclusions)                                                                                         \
	X(clang_getLocationForOffset)                                                                                  \
	X(clang_getNullCursor)                                                                                         \
	X(clang_getNumDiagnostics)                                                                                     \
	X(clang_getPointeeType)                                                                                        \
	X(clang_getRange)                                                                                              \
	X(clang_getRangeEnd)                                                                                           \
	X(clang_getRangeStart)                                                                                         \
	X(clang_getResultType)                                                                                         \
	X(clang_getSkippedRanges)                                                                                      \
	X(clang_getSpellingLocation)                                                                                   \
	X(clang_getTokenExtent)                                                                                        \
	X(clang_getTokenKind)                                                                                          \
	X(clang_getTokenLocation)                                                                                      \
	X(clang_getTokenSpelling)                                                                                      \
	X(clang_getTranslationUnitCursor)                                                                              \
	X(clang_getTypeDeclaration)                                                                                    \
	X(clang_getTypeSpelling)                                                                                       \
	X(clang_getTypedefDeclUnderlyingType)                                                                          \
	X(clang_getTypedefName)                                                                                        \
	X(clang_isConstQualifiedType)                                                                                  \
	X(clang_isCursorDefinition)                                                                                    \
	X(clang_isDeclaration)                                                                                         \
	X(clang_isExpression)                                                                                          \
	X(clang_isStatement)                                                                                           \
	X(clang_isVolatileQualifiedType)                                                                               \
	X(clang_parseTranslationUnit2)                                                                                 \
	X(clang_saveTranslationUnit)                                                                                   \
	X(clang_tokenize)                                                                                              \
	X(clang_visitChildren)

struct nogvl_clang_api {
#define NOGVL_CLANG_MEMBER(f) __typeof__(f) *f;
	NOGVL_CLANG_FUNCS(NOGVL_CLANG_MEMBER)
#undef NOGVL_CLANG_MEMBER
};

extern struct nogvl_clang_api nogvl_clang;
extern atomic_bool nogvl_clang_loaded;

/* Loads libclang (once, thread-safe). Returns false with *err (static text)
 * when it cannot; callers that can report it check this first. */
bool clang_api_load(const char **err);

/* The path of the library that is (or would be) loaded, for messages and the
 * cache key; NULL when none was found (clang_api_load then says so). Resolved
 * once, without loading it. */
const char *clang_api_path(void);
/* How it was chosen: "--libclang", "NOGVL_LINT_LIBCLANG", "the build's", "found
 * by search", or NULL. */
const char *clang_api_origin(void);
/* --libclang PATH: before the first clang_api_path/clang_api_load. */
void clang_api_set_path(const char *path);
/* Loads the library in a child process and reports whether that worked (the
 * calling process stays free of LLVM's memory): a library named by the user
 * or found by search; the build's own (found readable) is taken as it is.
 * Returns false with a one-line reason in buf. */
bool clang_api_check(char *buf, size_t size);

/* The newest libclang-N.so* (14 <= N <= 19) in the directories of the
 * NULL-terminated list dirs, or NULL (malloc'd). Exposed for the tests. */
char *clang_api_search(const char *const *dirs);

/* Loads on first use; a library that cannot be loaded there ends the
 * process with a message (main checks clang_api_load before any parse). */
void nogvl_clang_need(void);

#ifndef NOGVL_CLANG_API_IMPL
static inline const struct nogvl_clang_api *nogvl_clang_fns(void)
{
	if (__builtin_expect(!atomic_load_explicit(&nogvl_clang_loaded, memory_order_acquire), 0))
		nogvl_clang_need();
	return &nogvl_clang;
}

#define clang_Cursor_Evaluate (nogvl_clang_fns()->clang_Cursor_Evaluate)
#define clang_Cursor_getArgument (nogvl_clang_fns()->clang_Cursor_getArgument)
#define clang_Cursor_getNumArguments (nogvl_clang_fns()->clang_Cursor_getNumArguments)
#define clang_Cursor_getStorageClass (nogvl_clang_fns()->clang_Cursor_getStorageClass)
#define clang_Cursor_getVarDeclInitializer (nogvl_clang_fns()->clang_Cursor_getVarDeclInitializer)
#define clang_Cursor_isFunctionInlined (nogvl_clang_fns()->clang_Cursor_isFunctionInlined)
#define clang_Cursor_isMacroFunctionLike (nogvl_clang_fns()->clang_Cursor_isMacroFunctionLike)
#define clang_Cursor_isNull (nogvl_clang_fns()->clang_Cursor_isNull)
#define clang_Cursor_isVariadic (nogvl_clang_fns()->clang_Cursor_isVariadic)
#define clang_EvalResult_dispose (nogvl_clang_fns()->clang_EvalResult_dispose)
#define clang_EvalResult_getAsLongLong (nogvl_clang_fns()->clang_EvalResult_getAsLongLong)
#define clang_EvalResult_getKind (nogvl_clang_fns()->clang_EvalResult_getKind)
#define clang_Type_getNamedType (nogvl_clang_fns()->clang_Type_getNamedType)
#define clang_createIndex (nogvl_clang_fns()->clang_createIndex)
#define clang_defaultSaveOptions (nogvl_clang_fns()->clang_defaultSaveOptions)
#define clang_disposeDiagnostic (nogvl_clang_fns()->clang_disposeDiagnostic)
#define clang_disposeIndex (nogvl_clang_fns()->clang_disposeIndex)
#define clang_disposeSourceRangeList (nogvl_clang_fns()->clang_disposeSourceRangeList)
#define clang_disposeString (nogvl_clang_fns()->clang_disposeString)
#define clang_disposeTokens (nogvl_clang_fns()->clang_disposeTokens)
#define clang_disposeTranslationUnit (nogvl_clang_fns()->clang_disposeTranslationUnit)
#define clang_equalCursors (nogvl_clang_fns()->clang_equalCursors)
#define clang_equalTypes (nogvl_clang_fns()->clang_equalTypes)
#define clang_getAllSkippedRanges (nogvl_clang_fns()->clang_getAllSkippedRanges)
#define clang_getArrayElementType (nogvl_clang_fns()->clang_getArrayElementType)
#define clang_getCString (nogvl_clang_fns()->clang_getCString)
#define clang_getCanonicalType (nogvl_clang_fns()->clang_getCanonicalType)
#define clang_getClangVersion (nogvl_clang_fns()->clang_getClangVersion)
#define clang_getCursorDefinition (nogvl_clang_fns()->clang_getCursorDefinition)
#define clang_getCursorExtent (nogvl_clang_fns()->clang_getCursorExtent)
#define clang_getCursorKind (nogvl_clang_fns()->clang_getCursorKind)
#define clang_getCursorLinkage (nogvl_clang_fns()->clang_getCursorLinkage)
#define clang_getCursorLocation (nogvl_clang_fns()->clang_getCursorLocation)
#define clang_getCursorReferenced (nogvl_clang_fns()->clang_getCursorReferenced)
#define clang_getCursorSemanticParent (nogvl_clang_fns()->clang_getCursorSemanticParent)
#define clang_getCursorSpelling (nogvl_clang_fns()->clang_getCursorSpelling)
#define clang_getCursorTLSKind (nogvl_clang_fns()->clang_getCursorTLSKind)
#define clang_getCursorType (nogvl_clang_fns()->clang_getCursorType)
#define clang_getCursorUSR (nogvl_clang_fns()->clang_getCursorUSR)
#define clang_getDiagnostic (nogvl_clang_fns()->clang_getDiagnostic)
#define clang_getDiagnosticLocation (nogvl_clang_fns()->clang_getDiagnosticLocation)
#define clang_getDiagnosticSeverity (nogvl_clang_fns()->clang_getDiagnosticSeverity)
#define clang_getDiagnosticSpelling (nogvl_clang_fns()->clang_getDiagnosticSpelling)
#define clang_getEnumConstantDeclValue (nogvl_clang_fns()->clang_getEnumConstantDeclValue)
#define clang_getExpansionLocation (nogvl_clang_fns()->clang_getExpansionLocation)
#define clang_File_isEqual (nogvl_clang_fns()->clang_File_isEqual)
#define clang_getFile (nogvl_clang_fns()->clang_getFile)
#define clang_getFileContents (nogvl_clang_fns()->clang_getFileContents)
#define clang_getFileLocation (nogvl_clang_fns()->clang_getFileLocation)
#define clang_getFileName (nogvl_clang_fns()->clang_getFileName)
#define clang_getInclusions (nogvl_clang_fns()->clang_getInclusions)
#define clang_getLocationForOffset (nogvl_clang_fns()->clang_getLocationForOffset)
#define clang_getNullCursor (nogvl_clang_fns()->clang_getNullCursor)
#define clang_getNumDiagnostics (nogvl_clang_fns()->clang_getNumDiagnostics)
#define clang_getPointeeType (nogvl_clang_fns()->clang_getPointeeType)
#define clang_getRange (nogvl_clang_fns()->clang_getRange)
#define clang_getRangeEnd (nogvl_clang_fns()->clang_getRangeEnd)
#define clang_getRangeStart (nogvl_clang_fns()->clang_getRangeStart)
#define clang_getResultType (nogvl_clang_fns()->clang_getResultType)
#define clang_getSkippedRanges (nogvl_clang_fns()->clang_getSkippedRanges)
#define clang_getSpellingLocation (nogvl_clang_fns()->clang_getSpellingLocation)
#define clang_getTokenExtent (nogvl_clang_fns()->clang_getTokenExtent)
#define clang_getTokenKind (nogvl_clang_fns()->clang_getTokenKind)
#define clang_getTokenLocation (nogvl_clang_fns()->clang_getTokenLocation)
#define clang_getTokenSpelling (nogvl_clang_fns()->clang_getTokenSpelling)
#define clang_getTranslationUnitCursor (nogvl_clang_fns()->clang_getTranslationUnitCursor)
#define clang_getTypeDeclaration (nogvl_clang_fns()->clang_getTypeDeclaration)
#define clang_getTypeSpelling (nogvl_clang_fns()->clang_getTypeSpelling)
#define clang_getTypedefDeclUnderlyingType (nogvl_clang_fns()->clang_getTypedefDeclUnderlyingType)
#define clang_getTypedefName (nogvl_clang_fns()->clang_getTypedefName)
#define clang_isConstQualifiedType (nogvl_clang_fns()->clang_isConstQualifiedType)
#define clang_isCursorDefinition (nogvl_clang_fns()->clang_isCursorDefinition)
#define clang_isDeclaration (nogvl_clang_fns()->clang_isDeclaration)
#define clang_isExpression (nogvl_clang_fns()->clang_isExpression)
#define clang_isStatement (nogvl_clang_fns()->clang_isStatement)
#define clang_isVolatileQualifiedType (nogvl_clang_fns()->clang_isVolatileQualifiedType)
#define clang_parseTranslationUnit2 (nogvl_clang_fns()->clang_parseTranslationUnit2)
#define clang_saveTranslationUnit (nogvl_clang_fns()->clang_saveTranslationUnit)
#define clang_tokenize (nogvl_clang_fns()->clang_tokenize)
#define clang_visitChildren (nogvl_clang_fns()->clang_visitChildren)

#endif /* NOGVL_CLANG_API_IMPL */

#endif
