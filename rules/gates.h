/* gates.h: the offload gate (design.md section 5).
 *
 * A release site's callback may take RB_NOGVL_OFFLOAD_SAFE only when every
 * gate passes. Each rule area exports a checker that looks at one site and
 * the functions its callback reaches (a reach set, model.h) and records
 * evidence: a proven failure, or "cannot verify" with the reason. The rules of
 * that area report from the same evidence, and the offload rules
 * (offload-candidate, offload-unsafe, --explain-callback) combine all gates.
 *
 * States: PASS (nothing found), FAIL (proven: a Ruby API call, a static
 * write ...), UNKNOWN ("cannot verify": an opaque callee, state reachable from
 * the receiver, an fd from a Ruby IO ...). Only an all-PASS site is an offload
 * candidate; only a FAIL on a flagged site is offload-unsafe.
 */
#ifndef NOGVL_GATES_H
#define NOGVL_GATES_H

#include "model.h"

enum gate_id {
	GATE_RUBY_API = 0,    /* no Ruby API or object access without the GVL */
	GATE_WITH_GVL,        /* no rb_thread_call_with_gvl in the callback */
	GATE_THREAD_STATE,    /* no TLS, thread identity, locale, signal masks in the callback */
	GATE_ERROR_CHANNEL,   /* no per-thread error channel read after the call (ERR_get_error ...) */
	GATE_LOCK,            /* no lock taken on one side of the release and released on the other */
	GATE_INPUTS,          /* inputs frozen, copied or locked, and kept alive */
	GATE_OUTPUTS,         /* outputs are per-call buffers */
	GATE_SHARED_STATE,    /* no writes to globals/statics without a lock */
	GATE_FD,              /* no FILE * / fd another fiber could close mid-call */
	GATE_UBF,             /* UBF is NULL, RUBY_UBF_IO/PROCESS, or a thread-independent flag/pipe UBF */
	GATE_OPAQUE,          /* every reached function has a body or is a known-safe library call */
	GATE_WORK_SIZE,       /* the work is not bounded-small */
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
	int gate;        /* enum gate_id */
	int state;       /* GATE_FAIL or GATE_UNKNOWN */
	struct loc loc;  /* where: the call, the write, the read after the call ... */
	char *msg;       /* one line, e.g. "'ERR_get_error' reads OpenSSL's per-thread error queue after the call" */
	int32_t fn;      /* mfunc id holding the evidence, -1 when it is the site's caller side */
	/* Optional (zero when unused): */
	const char *rule;  /* slug of the rule that reports this evidence at loc, NULL: none */
	int32_t ev;        /* event index in fn (or in the site's caller when fn is -1); -1 unknown */
	/* For GATE_UNKNOWN: the one missing fact that would decide it, e.g. the
	 * name of a library function with no model (NULL: not named). */
	const char *missing_fact;
	VEC(struct gate_note) notes;
};

/* A library model entry that decided a gate for a call the callback makes
 * (--explain-callback shows them; a user model is flagged in -v and JSON). */
struct lib_model;
struct gate_basis {
	int gate;
	const struct lib_model *lm;
	struct loc loc;  /* the first call decided by it */
	int32_t fn;
};

struct gate_result {
	int state[GATE_COUNT];
	VEC(struct gate_evidence) ev;
	VEC(struct gate_basis) basis; /* one per (gate, model entry) */
};

/* Records that lm decided gate for a call at loc (once per gate and entry). */
void gate_basis_add(struct gate_result *g, int gate, const struct lib_model *lm, const struct loc *loc, int32_t fn);
/* Whether a verdict rests on a user's model (an entry from --models or a
 * configuration's models:). Returns the first such entry, or NULL. */
const struct lib_model *gate_user_basis(const struct gate_result *g);

const char *gate_name(int gate);        /* "Ruby API", "thread state" ... */
const char *gate_state_name(int state); /* "pass", "cannot verify", "fail" */

/* Records evidence and raises the gate's state to at least `state`. Returns
 * the new evidence (valid until the next gate_add on g) so that a checker can
 * fill in the optional fields. */
struct gate_evidence *gate_add(struct gate_result *g, int gate, int state, const struct loc *loc, int32_t fn,
			       const char *fmt, ...) PRINTF_LIKE(6, 7);
void gate_note_add(struct gate_evidence *e, const struct loc *loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
int gate_worst(const struct gate_result *g);
void gate_result_free(struct gate_result *g);

/* Checkers: each fills g for one site; rs is model_reach_from(site->cb). */
typedef void (*gate_checker)(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g);
void gate_check_ruby_api(const struct model *m, const struct msite *s, const struct reach_set *rs,
			 struct gate_result *g);
/* GATE_UBF (ubf_scan.c): pass for NULL, RUBY_UBF_IO/RUBY_UBF_PROCESS and a custom
 * UBF that only sets flags or writes a pipe/eventfd; fail for a UBF that calls
 * Ruby or uses thread identity (pthread_self, TLS, pthread_kill of a thread
 * saved on the caller's side); cannot verify otherwise (locks, condition
 * variables, library calls, an unresolved UBF). */
void gate_check_ubf(const struct model *m, const struct msite *s, const struct reach_set *rs,
		    struct gate_result *g);

/* Shared and thread state (rules/state_gates.c). Each records evidence
 * whatever the site's flags; the offload-only rules (thread-local-state,
 * lock-across-boundary) report it only for calls that pass
 * RB_NOGVL_OFFLOAD_SAFE. */
/* GATE_THREAD_STATE: TLS variables, pthread_getspecific/setspecific, thread
 * identity, locale and signal masks in the callback (rule thread-local-state);
 * a TLS seed set first and cleared last inside the callback is not evidence. */
void gate_check_thread_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g);
/* GATE_ERROR_CHANNEL: the caller reads a per-thread error channel (OpenSSL's
 * error queue, git_error_last, dlerror, h_errno, GetLastError) after the call,
 * for a library the callback calls (rule thread-local-state). errno never
 * counts: Ruby carries it back. */
void gate_check_error_channel(const struct model *m, const struct msite *s, const struct reach_set *rs,
			      struct gate_result *g);
/* GATE_LOCK: the callback unlocks a mutex the caller locked before the call
 * (or one it never locks), or locks one the caller or another callback
 * unlocks (rule lock-across-boundary). */
void gate_check_locks(const struct model *m, const struct msite *s, const struct reach_set *rs,
		      struct gate_result *g);
/* GATE_SHARED_STATE: unlocked writes of globals and statics (directly, through
 * a library call such as snprintf, or through a pointer that only ever points
 * at statics) (rule shared-mutable-state), and non-reentrant library calls
 * such as strtok or localtime (rule mt-unsafe-call). Writes through a static
 * pointer whose target is unknown are "cannot verify". */
void gate_check_shared_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g);
/* GATE_INPUTS (inputs_flow.c): pointers into Ruby objects in the callback's data are
 * frozen, fresh, copied or locked, and their owners kept alive. Receiver memory
 * and data filled by the caller make it "cannot verify". */
void gate_check_inputs(const struct model *m, const struct msite *s, const struct reach_set *rs,
		       struct gate_result *g);
/* GATE_OUTPUTS (inputs_flow.c): no static or global buffer is handed to the callback. */
void gate_check_outputs(const struct model *m, const struct msite *s, const struct reach_set *rs,
			struct gate_result *g);

#endif
