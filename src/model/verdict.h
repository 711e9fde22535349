/* verdict.h: the offload verdict of each release site, as data on the model
 * (design.md section 5).
 *
 * The offload phase (rules/offload.h: offload_compute) runs once after
 * linking: every gate checker looks at the site and the functions its
 * callback reaches and records evidence, and the phase combines them into one
 * struct site_verdict per site, stored in model.verdicts. Everything after it
 * (offload-candidate, offload-unsafe, small-work-nogvl, the JSON, SARIF and
 * HTML reports, --explain-callback, --fix, the -v log) reads these fields and
 * never calls back into the rules.
 *
 * Gate states: PASS (nothing found), FAIL (proven: a Ruby API call, a static
 * write ...), UNKNOWN ("cannot verify": an opaque callee, state reachable from
 * the receiver, an fd from a Ruby IO ...). Only an all-PASS site is an offload
 * candidate; only a FAIL on a flagged site is offload-unsafe.
 *
 * Every release site ends in one of three states (issue 15): safe (a
 * candidate, or already flagged and every gate verified), unsafe (a gate
 * failed: the evidence says which), or cannot verify, and then with one named
 * missing fact (struct missing_fact): the library model to add, the header to
 * install, the function pointer to resolve ... the next step for an auditor.
 */
#ifndef NOGVL_VERDICT_H
#define NOGVL_VERDICT_H

#include "facts.h"

struct model;

/* The gates, one row each: X(ID, "name", safety, checker). safety: 1 when the
 * gate decides safety, 0 when it only decides whether offloading pays (work
 * size). checker: the function of rules/ that records the gate's evidence
 * (the engine ignores that column; rules/offload.c runs them in this order). */
#define GATE_LIST(X)                                                                                                   \
	X(RUBY_API, "Ruby API", 1, gate_check_ruby_api)             /* no Ruby API or object access */                 \
	X(WITH_GVL, "rb_thread_call_with_gvl", 1, gate_check_none)  /* recorded by gate_check_ruby_api */              \
	X(THREAD_STATE, "thread state", 1, gate_check_thread_state) /* no TLS, thread identity, locale, sigmask */     \
	X(ERROR_CHANNEL, "per-thread error channel", 1, gate_check_error_channel) /* read after the call */            \
	X(LOCK, "lock across the release", 1, gate_check_locks) /* locked on one side, unlocked on the other */        \
	X(INPUTS, "inputs", 1, gate_check_inputs_all)           /* frozen/copied/locked, kept alive; object state */   \
	X(OUTPUTS, "outputs", 1, gate_check_outputs)            /* per-call buffers */                                 \
	X(SHARED_STATE, "shared state", 1, gate_check_shared_state) /* no unlocked writes to globals/statics */        \
	X(FD, "file descriptors", 1, gate_check_fd)                 /* no fd/FILE * another fiber could close */       \
	X(UBF, "unblocking function", 1, gate_check_ubf_all)        /* thread-independent UBF, cancellable wait */     \
	X(OPAQUE, "opaque callees", 1, gate_check_opaque)           /* every callee visible or known safe */           \
	X(WORK_SIZE, "work size", 0, gate_check_work_size)          /* the work is not bounded-small */

enum gate_id {
#define GATE_ENUM(id, name, safety, check) GATE_##id,
	GATE_LIST(GATE_ENUM)
#undef GATE_ENUM
	GATE_COUNT,
};

enum gate_state {
	GATE_PASS = 0,
	GATE_UNKNOWN = 1, /* cannot verify */
	GATE_FAIL = 2,
};

/* A second place that explains a piece of evidence (the caller's lock, the
 * library call that fills an error queue ...). */
struct gate_note {
	struct loc loc;
	char *msg;
};

struct gate_evidence {
	int gate;       /* enum gate_id */
	int state;      /* GATE_FAIL or GATE_UNKNOWN */
	struct loc loc; /* where: the call, the write, the read after the call ... */
	char *msg;      /* one line, e.g. "'ERR_get_error' reads OpenSSL's per-thread error queue after the call" */
	int32_t fn;     /* mfunc id holding the evidence, -1 when it is the site's caller side */
	/* Optional (zero when unused): */
	const char *rule; /* slug of the rule that reports this evidence at loc, NULL: none */
	int32_t ev;       /* event index in fn (or in the site's caller when fn is -1); -1 unknown */
	VEC(struct gate_note) notes;
	/* For "cannot verify" evidence: the fact that would decide it (enum
	 * fact_kind, FACT_NONE: the message is all there is) and its subject (a
	 * function or header name, an expression). */
	int fact;
	char *fact_name; /* owned; set with gate_fact */
	/* "cannot verify" because the memory belongs to a Ruby object (its typed
	 * data) that other fibers may use: the object-state part of the inputs
	 * gate (rules/object_state.c) drops it when every use of that object is
	 * serialised, or the object is still private to its creator */
	bool object_owned;
	/* ... and, when known, which object struct and field it is (a handle
	 * followed to `this->pgconn`): the object-state part then judges that
	 * field's guard as if the callback used it (not owned: the model's
	 * strings) */
	const char *obj_rec;
	const char *obj_field;
	/* ... or the handle is the object's whole typed data (an Image wrapped
	 * as the object): obj_rec names the data type ("image_type",
	 * "DATA_PTR"), obj_field the object it was taken from ("self"); the
	 * object-state part fails it when unguarded and never settles it */
	bool obj_whole;
};

/* A library model entry that decided a gate for a call the callback makes
 * (--explain-callback shows them; a user model is flagged in -v and JSON).
 * rules/libmodel.h defines the entry; rules/gates.h the helpers. */
struct lib_model;
struct gate_basis {
	int gate;
	const struct lib_model *lm;
	struct loc loc; /* the first call decided by it */
	int32_t fn;
};

struct gate_result {
	int state[GATE_COUNT];
	VEC(struct gate_evidence) ev;
	VEC(struct gate_basis) basis; /* one per (gate, model entry) */
};

enum offload_verdict {
	OV_NOT_EVALUATED = 0, /* template sites inside wrappers */
	OV_CANDIDATE,         /* every gate passes, flag absent: suggest it */
	OV_NOT_SAFE,          /* flag absent, a gate fails */
	OV_CANNOT_VERIFY,     /* flag absent, no gate fails, some cannot be verified */
	OV_FLAGGED_SAFE,      /* flag present, every gate passes */
	OV_FLAGGED_UNSAFE,    /* flag present, a gate fails: offload-unsafe */
	OV_FLAGGED_CANNOT_VERIFY,
	OV_NOT_APPLICABLE, /* the API takes no flags (IO blocking regions, removed API) */
};

/* What would turn "cannot verify" into a decision, most decisive first: a
 * file that did not parse hides calls, an unresolved pointer hides callees,
 * an opaque library call hides what it does. */
enum fact_kind {
	FACT_NONE = 0,
	FACT_HEADER, /* install this header (the parse failed on it) */
	FACT_PARSE,  /* make this file parse (errors other than a missing header) */
	FACT_FNPTR,  /* resolve this function pointer (or callback) */
	FACT_MODEL,  /* add a library model for this function */
	FACT_FLAGS,  /* the flags argument is not a constant */
	FACT_DATA,   /* where this data comes from / who else uses it */
	FACT_OTHER,  /* the evidence's message says what is missing */
};

/* The one fact the verdict is missing: the first "cannot verify" evidence of
 * the most decisive kind. */
struct missing_fact {
	int kind;                       /* enum fact_kind; FACT_NONE when the site is decided */
	const char *name;               /* the header, pointer, function ...; FACT_OTHER: the function
					   the evidence names, else the gate's name */
	int gate;                       /* the gate it is missing for */
	const struct gate_evidence *ev; /* the evidence it comes from (in g.ev) */
	unsigned others;                /* further "cannot verify" evidence behind it */
};

struct site_verdict {
	struct gate_result g;
	int verdict;                 /* enum offload_verdict */
	bool flagged;                /* the call passes RB_NOGVL_OFFLOAD_SAFE */
	bool small_work;             /* GATE_WORK_SIZE failed: bounded-small work */
	bool threshold_guard;        /* the release sits under a size comparison */
	struct missing_fact missing; /* for the cannot-verify verdicts */
	/* OV_CANDIDATE held back (not offered) until another finding on the same
	 * call is fixed: that rule's slug and where (cleanup-not-ensured ...). */
	const char *withheld_by;
	struct loc withheld_loc;
};

/* What to fix before a withheld candidate is offered, around withheld_loc:
 * "<*pre> FILE:LINE <*post>" (e.g. "move the cleanup at", "into an rb_ensure
 * handler first ..."). */
void offload_withheld_advice(const struct site_verdict *oi, const char **pre, const char **post);

/* The verdict of site (the offload phase has run: an invariant). */
const struct site_verdict *site_verdict_of(const struct model *m, uint32_t site);

const char *offload_verdict_name(int verdict);
/* The three end states: "safe", "unsafe", "cannot verify"; NULL for sites
 * that take no verdict (template sites, APIs without flags). */
const char *verdict_state_name(int verdict);
const char *gate_name(int gate);        /* "Ruby API", "thread state" ... */
const char *gate_state_name(int state); /* "pass", "cannot verify", "fail" */
/* Gates that decide safety (all but GATE_WORK_SIZE, which only decides
 * whether offloading pays). */
bool gate_is_safety(int gate);
const char *fact_kind_name(int kind); /* "header", "library model" ... */
/* The next step for the missing fact, one line ("install the header
 * 'zlib.h' ..."); malloc'ed. */
char *missing_fact_text(const struct missing_fact *mf);
/* Whether a verdict rests on a user's model (an entry from --models or a
 * configuration's models:). Returns the first such entry, or NULL. */
const struct lib_model *gate_user_basis(const struct gate_result *g);

/* Records evidence and raises the gate's state to at least `state`. Returns
 * the new evidence (valid until the next gate_add on g) so that a checker can
 * fill in the optional fields. */
struct gate_evidence *gate_add(struct gate_result *g, int gate, int state, const struct loc *loc, int32_t fn,
			       const char *fmt, ...) PRINTF_LIKE(6, 7);
void gate_note_add(struct gate_evidence *e, const struct loc *loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
/* Says which fact would decide a "cannot verify" evidence (name may be NULL). */
void gate_fact(struct gate_evidence *e, int kind, const char *name);
int gate_worst(const struct gate_result *g);
/* Frees what one piece of evidence owns (its message, fact name and notes). */
void gate_evidence_free(struct gate_evidence *e);
void gate_result_free(struct gate_result *g);

/* Chooses the missing fact of a combined result (after every checker ran). */
void missing_fact_choose(const struct gate_result *g, struct missing_fact *out);
/* Frees model.verdicts (model_free calls it). */
void site_verdicts_free(struct site_verdict *v, size_t n);

#endif
