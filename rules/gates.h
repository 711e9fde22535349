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

struct gate_evidence {
	int gate;        /* enum gate_id */
	int state;       /* GATE_FAIL or GATE_UNKNOWN */
	struct loc loc;  /* where: the call, the write, the read after the call ... */
	char *msg;       /* one line, e.g. "'ERR_get_error' reads OpenSSL's per-thread error queue after the call" */
	int32_t fn;      /* mfunc id holding the evidence, -1 when it is the site's caller side */
};

struct gate_result {
	int state[GATE_COUNT];
	VEC(struct gate_evidence) ev;
};

const char *gate_name(int gate);        /* "Ruby API", "thread state" ... */
const char *gate_state_name(int state); /* "pass", "cannot verify", "fail" */

/* Records evidence and raises the gate's state to at least `state`. */
void gate_add(struct gate_result *g, int gate, int state, const struct loc *loc, int32_t fn, const char *fmt, ...)
	PRINTF_LIKE(6, 7);
int gate_worst(const struct gate_result *g);
void gate_result_free(struct gate_result *g);

/* Checkers: each fills g for one site; rs is model_reach_from(site->cb). */
typedef void (*gate_checker)(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g);
void gate_check_ruby_api(const struct model *m, const struct msite *s, const struct reach_set *rs,
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
