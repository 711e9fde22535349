/* facts.h: what the per-translation-unit phase extracts from the AST.
 *
 * Phase 1 (parse.c, extract.c) turns each TU into plain structs: functions,
 * their bodies as an ordered list of events (calls, assignments, variable
 * accesses, returns), the control regions the events sit in, variables, the
 * function pointers stored in struct fields, macro facts and parse
 * diagnostics. All memory of one TU lives in its arena. After extraction
 * the libclang TU is disposed; nothing here points into libclang.
 *
 * Phase 2 (link.c, context.c) reads these facts and builds the whole-program
 * model (model.h). Rules read only the model and these facts.
 *
 * Offsets are byte offsets in the file named by loc.file; events of a
 * function are in source order (by expansion offset, then discovery order).
 */
#ifndef NOGVL_FACTS_H
#define NOGVL_FACTS_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

struct loc {
	const char *file; /* absolute path, interned per TU; NULL when unknown */
	uint32_t line, col;
	uint32_t off;
};

/* Where a called function is declared. */
enum origin {
	ORIGIN_UNKNOWN = 0, /* no declaration visible (implicit or stubbed) */
	ORIGIN_PROJECT,     /* declared in one of the project's own files */
	ORIGIN_RUBY,        /* declared in a Ruby header */
	ORIGIN_SYSTEM,      /* declared in a system header (libc, POSIX, libraries) */
	ORIGIN_STUB,        /* declared by our recovery stubs (missing library header) */
};

enum var_kind {
	VK_LOCAL = 1,
	VK_PARAM,
	VK_GLOBAL,       /* file scope, external linkage (or extern declaration) */
	VK_FILE_STATIC,  /* file scope, internal linkage */
	VK_LOCAL_STATIC, /* static inside a function */
};

enum var_flags {
	VF_CONST = 1u << 0,  /* the object itself is const (not just a pointer to const) */
	VF_ATOMIC = 1u << 1, /* _Atomic */
	VF_VOLATILE = 1u << 2,
	VF_TLS = 1u << 3, /* __thread / _Thread_local / thread_local */
	VF_POINTER = 1u << 4,
	VF_VALUE = 1u << 5, /* Ruby VALUE (or ID/VALUE-sized typedef used as one) */
	VF_ARRAY = 1u << 6,
	VF_FNPTR = 1u << 7,        /* pointer to function */
	VF_RECORD = 1u << 8,       /* struct/union by value */
	VF_SIG_ATOMIC = 1u << 9,   /* sig_atomic_t */
	VF_MUTEX = 1u << 10,       /* pthread_mutex_t / rb_nativethread_lock_t by value */
	VF_EXTERN_DECL = 1u << 11, /* only an extern declaration seen in this TU */
	VF_RUBY_HEADER = 1u << 12, /* declared in a Ruby header (rb_cObject ...) */
	VF_SYSTEM_HEADER = 1u << 13,
	VF_CONST_POINTEE = 1u << 14, /* pointer to const */
};

struct var {
	const char *name;
	const char *usr;     /* linkage key for globals and statics; NULL for locals */
	const char *type;    /* type spelling */
	const char *record;  /* "struct foo" when VF_RECORD or pointer to record */
	uint32_t flags;      /* enum var_flags */
	uint8_t kind;        /* enum var_kind */
	int32_t fn;          /* owning function index for locals/params/local statics, -1 */
	int32_t param_index; /* VK_PARAM: position */
	struct loc loc;
	/* Function named by the initializer of a function-pointer variable. */
	const char *init_fn_usr;
};

/* A reference to a variable or a member path below it: a, a.f, p->f.g, *p. */
/* (Members ordered for size: facts of a whole gem stay in memory.) */
struct ref {
	int32_t var;        /* index into tu->vars; -1 when the base is not a variable */
	uint8_t addr;       /* &ref taken */
	uint8_t deref;      /* accessed through a pointer (p->f, *p, p[i]) */
	uint8_t ptr_deref;  /* the path follows a pointer value (p->f, *p, p[i] with p a
			       pointer), not only array subscripts of an array object
			       (buf[i], s.arr[i] keep ptr_deref 0) */
	const char *path;   /* member path below var: "" or "f" or "f.g" */
	const char *record; /* record type holding the last member ("struct args") */
	const char *field;  /* the last member name, or NULL */
};

enum expr_kind {
	EX_OTHER = 0,
	EX_REF,    /* a variable or member path (after stripping casts/parens) */
	EX_CALL,   /* a call; see call index */
	EX_INT,    /* an integer constant expression; see ival */
	EX_NULL,   /* a null pointer constant */
	EX_FUNC,   /* names a function (possibly cast, parenthesised or &fn) */
	EX_STRING, /* a string literal */
};

/* A compact summary of one expression. */
struct expr {
	uint8_t kind;        /* enum expr_kind */
	uint8_t has_ival;    /* ival valid (constant-evaluated) */
	uint8_t cast;        /* a cast was stripped to get kind */
	uint8_t is_value;    /* the expression's type is VALUE */
	uint8_t exact;       /* [begin, end) is this expression as spelled in loc.file
				(not produced by a macro body): fixes may rewrite it */
	int32_t call;        /* EX_CALL: event index of the call in the same function */
	uint32_t begin, end; /* byte offsets of the spelled expression when exact */
	/* Everything the expression reads and calls, nested included. */
	uint32_t nreads;
	uint32_t ncalls;
	int64_t ival;
	const char *text;  /* normalised source spelling, at most 160 chars */
	const char *macro; /* when the whole expression is one macro expansion: its name */
	struct loc loc;
	struct ref ref;        /* EX_REF */
	const char *func_usr;  /* EX_FUNC */
	const char *func_name; /* EX_FUNC */
	struct ref *reads;
	int32_t *calls;
};

enum event_kind {
	EV_CALL = 1,
	EV_ASSIGN, /* lhs = rhs, compound assignment, or an initialised declaration */
	EV_ACCESS, /* read or write of a variable (global/static/local) or member */
	EV_RETURN,
};

enum access_mode {
	ACC_READ = 1,
	ACC_WRITE = 2,
	ACC_ADDR = 4, /* address taken (&x): may be written through later */
};

struct call {
	uint8_t origin;   /* enum origin */
	uint8_t indirect; /* call through a function pointer */
	uint8_t variadic;
	uint8_t returns_value; /* callee returns VALUE */
	uint8_t result_used;   /* the value is used at all (not a discarded statement) */
	uint32_t nargs;
	int32_t parent;        /* event index of the call whose arguments contain this call, -1 */
	int32_t parent_arg;    /* which argument of the parent */
	uint32_t rparen;       /* offset of the closing parenthesis when callee.exact, else 0 */
	const char *name;      /* callee name; for indirect calls the spelling of the callee */
	const char *usr;       /* direct callee USR, NULL if indirect */
	const char *decl_file; /* file of the callee declaration */
	struct expr callee;    /* the callee expression (indirect calls: the pointer) */
	struct expr *args;
	struct ref result; /* where the result is stored (x = f(), T x = f()); var -1 if not */
};

struct assign {
	uint8_t compound;   /* +=, |= ... */
	uint8_t is_init;    /* declaration initialiser */
	uint8_t whole_init; /* `= {0}`, `= {}` or memset-like whole-object initialisation */
	struct ref lhs;
	struct expr rhs;
};

struct access {
	uint8_t mode;      /* enum access_mode */
	uint8_t atomic_op; /* inside the arguments of an __atomic_* / __sync_* / __c11_atomic_*
				builtin or a C11 atomic_* generic function (stdatomic.h) */
	struct ref ref;
};

struct event {
	uint8_t kind;         /* enum event_kind */
	uint8_t in_macro_arg; /* written in the argument of a macro (see macro) */
	uint8_t gvl_guard;    /* under `if (ruby_thread_has_gvl_p())` (or after an early return) */
	int32_t region;       /* innermost control region, index into func->regions */
	const char *macro;    /* outermost main-file macro this came from, NULL if spelled here */
	struct loc loc;       /* expansion location (where a macro was used) */
	/* The payload of the kind, out of line (in the TU's arena), so the
	 * event array of a whole gem stays small (48 bytes an event; an access
	 * in place made it 104, a spelling location nothing read 72). Never
	 * NULL for the event's own kind. */
	union {
		struct call *call;
		struct assign *assign;
		struct access *access;
		struct expr *ret; /* EV_RETURN (kind EX_OTHER with text "" when bare return) */
	} u;
};

enum region_kind {
	RG_BODY = 0,
	RG_THEN,
	RG_ELSE,
	RG_LOOP,
	RG_SWITCH,
	RG_BLOCK,
	/* `label: ... goto label;` jumping back: [begin, end) runs from the label
	 * to the end of the goto. Not part of the region tree (no event is in
	 * it, parent -1): a retry path that code asks about by offset. */
	RG_RETRY,
	/* `goto label;` jumping forward: [begin, end) runs from the goto to the
	 * label. Not part of the region tree either (parent -1): a path that
	 * resumes at the label, which code asks about by offset. */
	RG_GOTO,
};

struct region {
	uint8_t kind;             /* enum region_kind */
	uint8_t negated;          /* condition is `!expr` (the then-branch runs when expr is false) */
	int32_t parent;           /* enclosing region, -1 for the body */
	struct expr cond;         /* RG_THEN/RG_ELSE/RG_LOOP/RG_SWITCH condition */
	uint32_t begin, end;      /* offsets */
	uint8_t ends_with_return; /* the region's last statement returns/jumps out */
	uint32_t cond_end;        /* RG_LOOP: offset just past the condition; events of the
				condition (written inside the loop region) end before it */
};

enum func_flags {
	FN_STATIC = 1u << 0,
	FN_INLINE = 1u << 1,
	FN_RETURNS_VALUE = 1u << 2, /* returns VALUE */
	FN_RETURNS_PTR = 1u << 3,
	FN_IN_HEADER = 1u << 4, /* defined in a project header, not the main file */
	FN_CXX = 1u << 5,
	FN_VARIADIC = 1u << 6,
	/* statements or expressions nested deeper than EXTRACT_MAX_DEPTH levels
	 * (extract.h) were summarised without walking inside them: events may be
	 * missing, so no claim of absence holds for this function */
	FN_TRUNCATED = 1u << 7,
};

struct func {
	const char *name;
	const char *usr;
	uint32_t flags; /* enum func_flags */
	struct loc loc; /* the name in the definition */
	struct loc end; /* closing brace */
	const char *ret_type;
	uint32_t nparams;
	int32_t *params; /* var indices */
	uint32_t nevents;
	struct event *events;
	uint32_t nregions;
	struct region *regions;
};

/* A function stored into a struct field or a function-pointer variable. */
struct binding {
	const char *record; /* "struct ops"; NULL for a plain variable */
	const char *field;  /* field name; for variables the variable USR */
	const char *fn_usr; /* the function stored; NULL for a parameter binding */
	const char *fn_name;
	struct loc loc;
	/* a parameter stored in the field (args.fn = fn inside function
	 * param_of_usr): the functions its callers pass at param_index */
	const char *param_of_usr;
	int32_t param_index;
};

struct macro_exp {
	const char *name;
	struct loc loc;
	uint32_t begin, end; /* offsets of the expansion in the main file */
};

/* A macro defined in the main file or in one of the project's headers. */
struct macro_def {
	const char *name;
	struct loc loc;
	uint8_t function_like;
	const char *body; /* replacement text (tokens joined), capped */
};

struct include_dir {
	const char *spelled; /* as written: "ruby.h" or <ruby/thread.h> */
	struct loc loc;
	uint32_t end_off; /* offset just past the directive's line */
};

/* A preprocessor conditional block in the main file (#if...#endif), by text scan. */
struct pp_cond {
	const char *directive;         /* "ifdef", "ifndef", "if", "elif", "else" */
	const char *cond;              /* condition text */
	uint32_t line_begin, line_end; /* lines of this branch's body */
	int32_t parent;
	uint32_t close_off;      /* offset of the end of the directive line closing this branch */
	uint8_t closed_by_endif; /* that directive is the group's #endif */
};

/* A #define found by scanning the text of a project file (active or not). */
struct pp_define {
	const char *name;
	const char *file;
	uint32_t line;
	int32_t cond; /* innermost pp_cond of the main file holding it, -1 (main file only) */
};

/* A GVL-release API mention found by scanning tokens, not the AST. */
struct token_site {
	const char *api;
	const char *callback; /* first argument if it is a plain identifier */
	const char *function; /* enclosing function if known */
	struct loc loc;
	uint8_t inactive;  /* inside a preprocessor branch not taken */
	const char *guard; /* that branch's condition */
	uint8_t in_ast;    /* matched by an AST call site */
};

struct diag {
	uint8_t severity; /* CXDiagnosticSeverity */
	struct loc loc;
	const char *msg;
};

/* A file that contributed to the TU and belongs to the project. */
struct tu_file {
	const char *path;
	uint64_t hash; /* XXH3 of the content */
	uint8_t is_main;
};

enum tu_status {
	TU_OK = 0, /* parsed without errors */
	TU_ERRORS, /* parsed with errors; facts extracted (possibly degraded) */
	TU_FAILED, /* nothing usable: unreadable, not C, libclang failure */
};

enum pch_use {
	PCH_USE_NONE = 0, /* no preamble in this run (--no-pch, one file) or facts from the cache */
	PCH_USE_USED,
	PCH_USE_FELL_BACK, /* the parse with it reported a problem with it */
	PCH_USE_INELIGIBLE,
};

struct tu_facts {
	const char *path;    /* absolute main file path */
	const char *display; /* path as shown to the user */
	struct arena arena;
	struct strpool pool;
	uint8_t status;   /* enum tu_status */
	uint8_t degraded; /* recovered with stubs or token scan */
	uint8_t buildless;
	uint8_t cxx;
	const char *fail_reason;
	uint32_t nerrors, nwarnings; /* clang diagnostics in the final parse */
	uint32_t stub_rounds;
	uint32_t nstubs;
	double parse_seconds;
	uint8_t pch_use;   /* enum pch_use: how the shared Ruby-header preamble served this parse */
	uint8_t pch_built; /* preambles this parse had to build */
	/* extconf.rb builds this file only where this function exists (from the
	 * job, not the parse: not stored in the facts) */
	const char *build_probe;

	VEC(struct func) funcs;
	VEC(struct var) vars;
	VEC(struct binding) bindings;
	VEC(struct macro_exp) macro_exps;
	VEC(struct macro_def) macro_defs;
	VEC(struct include_dir) includes;
	VEC(struct pp_cond) pp_conds;
	VEC(struct pp_define) pp_defines; /* main file and project headers */
	VEC(struct token_site) token_sites;
	VEC(struct diag) diags; /* first errors, for the user */
	VEC(struct tu_file) files;
	VEC(const char *) dropped_flags;
};

void tu_facts_free(struct tu_facts *tu);
const struct var *tu_var(const struct tu_facts *tu, int32_t idx);
/* The variable a ref is rooted at, or NULL. */
const struct var *ref_var(const struct tu_facts *tu, const struct ref *r);
bool ref_same(const struct ref *a, const struct ref *b);
/* a is b or a member path below b (a.f below a). */
bool ref_within(const struct ref *a, const struct ref *b);
/* One is within the other (same variable, one path a prefix of the other). */
bool ref_related(const struct ref *a, const struct ref *b);
/* Member path p is q or above it ("f" above "f.g" and "f[i]"; "" above all;
 * NULL is ""). */
bool ref_path_prefix(const char *p, const char *q);
/* The expression is variable var (any member path) or reads it. */
bool expr_reads_var(const struct expr *x, int32_t var);
/* Renders "a.f" / "p->f" for messages (into an arena of the TU). */
const char *ref_text(struct tu_facts *tu, const struct ref *r);

#endif
