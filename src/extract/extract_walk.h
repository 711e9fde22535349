/* extract_walk.h: what the files of the AST walk share (extract.c, extract_types.c,
 * extract_ref.c, extract_expr.c, extract_stmt.c): the walk's context, a file's
 * tokens, source ranges, children lists and expression summaries. Private to
 * src/extract/. */
#ifndef NOGVL_EXTRACT_WALK_H
#define NOGVL_EXTRACT_WALK_H

#include "extract.h"

#include <stdbool.h>
#include <stdint.h>

struct tok {
	uint32_t off, end;
	uint8_t kind; /* CXTokenKind */
	const char *sp;
};

struct fileinfo {
	const char *path; /* absolute, interned in tu->pool */
	uint8_t origin;
	bool toks_done;
	struct tok *toks;
	uint32_t ntoks;
};

struct scope_guard {
	int depth;
};

struct xctx {
	CXTranslationUnit ctu;
	struct tu_facts *tu;
	const struct file_classifier *fc;
	struct hmap files; /* clang file name -> struct fileinfo* */
	struct hmap vars;  /* USR -> var index + 1 */
	CXFile main_file;
	const char *main_path;
	CXFile last_file; /* file_info's last answer (most lookups repeat it) */
	struct fileinfo *last_fi;

	/* current function */
	int32_t fn_index;
	VEC(struct event) ev;
	VEC(struct region) rg;
	int32_t region;
	int guard;               /* > 0: the GVL is known held here */
	bool has_withgvl;        /* the function calls rb_thread_call_with_gvl somewhere */
	const CXCursor *if_rest; /* walk_compound -> IfStmt: the statements after the if */
	unsigned if_nrest;
	bool rest_holds_gvl; /* IfStmt -> walk_compound: they hold the GVL (own flag) */
	const char *fn_usr;  /* USR of the function being walked */
	int atomic;          /* > 0: inside an atomic builtin's arguments */
	bool pp_pass;        /* first pass: preprocessing record only */
	struct strbuf tmp;
	unsigned depth;        /* nesting of walk_stmt/walk_expr (EXTRACT_MAX_DEPTH) */
	bool truncated;        /* the current function hit EXTRACT_MAX_DEPTH */
	uintptr_t stack_floor; /* the walk stops descending below this address (0: unknown) */
};

struct range {
	uint32_t begin, end;
	struct fileinfo *fi;
	bool macro; /* the range is (part of) a macro expansion: tokens do not show the code */
};

struct kids {
	CXCursor v[8];
	CXCursor *p;
	unsigned n, cap;
};

struct esum {
	struct expr e;
	VEC(struct ref) reads;
	VEC(int32_t) calls;
	bool negated; /* outermost operator was `!` */
};

/* ---- a gem's own "do I hold the GVL" flag ----
 *
 * `if (flag) return f(arg); ... rb_thread_call_with_gvl(f, arg);` (or the two
 * calls in the two branches of one if/else): whatever the condition tests (a
 * TLS flag, a field, ruby_thread_has_gvl_p()), the branch that calls f
 * directly is the one that already holds the GVL, or the gem would not call
 * f there without it. That branch counts as guarded. */

#define OWNFLAG_MAX_TARGETS 8

struct withgvl_targets {
	CXCursor decl[OWNFLAG_MAX_TARGETS];
	unsigned n;
	bool direct;    /* second pass: a direct call of one of them was seen */
	unsigned nodes; /* visit budget */
};

/* What the first argument of a call names: a function, a parameter or a
 * variable (null when it is anything else). */

/* extract.c */
bool may_descend(struct xctx *x);
const char *intern_cx(struct xctx *x, CXString s);
struct loc make_loc(struct xctx *x, CXSourceLocation sl, struct fileinfo **fio);
uint32_t expansion_off(CXSourceLocation sl);
const struct tok *tok_at(const struct fileinfo *fi, uint32_t off);
const struct tok *tok_before(const struct fileinfo *fi, uint32_t off);
const struct macro_exp *macro_at(struct xctx *x, const char *file, uint32_t off);
struct range cursor_range(struct xctx *x, CXCursor c);
const char *range_text(struct xctx *x, const struct range *r);
void kids_get(CXCursor c, struct kids *k);
void kids_free(struct kids *k);
bool is_expr_kind(enum CXCursorKind k);

/* extract_types.c */
bool type_is_value(CXType t);
const char *type_name_of(struct xctx *x, CXType t);
const char *record_of(struct xctx *x, CXType t);
bool type_is_pointerish(CXType t);
bool type_is_array(CXType t);
bool type_is_integral(CXType t);
int32_t var_index(struct xctx *x, CXCursor d);
int32_t this_var(struct xctx *x, CXCursor at, CXType rec);

/* extract_ref.c */
void esum_free(struct esum *s);
void esum_merge(struct esum *into, struct esum *from);
void esum_finish(struct xctx *x, struct esum *s, struct expr *out);
struct event *new_event(struct xctx *x, int kind, CXCursor c);
void set_expr_common(struct xctx *x, CXCursor c, struct esum *s);
void try_evaluate(struct xctx *x, CXCursor c, struct esum *s);
void emit_access(struct xctx *x, CXCursor c, const struct ref *r, int mode);
bool first_tok_is(struct xctx *x, CXCursor c, const char *sp, struct range *rout);
const char *binop_spelling(struct xctx *x, CXCursor lhs, CXCursor whole);
bool is_assign_op(const char *op);
CXCursor strip_wrappers(CXCursor c, bool *cast);
void walk_ref(struct xctx *x, CXCursor c, struct esum *out, int mode);
void emit_assign(struct xctx *x, CXCursor at, const struct ref *lhs, struct esum *rhs, bool init, bool compound);
void walk_init_list(struct xctx *x, CXCursor list, const struct ref *lhs, CXType type);

/* extract_expr.c */
void walk_expr(struct xctx *x, CXCursor c, int mode, struct esum *out);
int32_t walk_call(struct xctx *x, CXCursor c, struct esum *out);

/* extract_stmt.c */
int32_t push_region(struct xctx *x, int kind, CXCursor c, struct esum *cond, bool negated);
void withgvl_collect(CXCursor s, struct withgvl_targets *t);
void walk_stmt(struct xctx *x, CXCursor c);

/* extract.c: the range of file f's size bytes to tokenize (the translation
 * unit's own extent when f is the main file) */
CXSourceRange whole_file(CXTranslationUnit ctu, CXFile f, size_t size);

#endif
