/* gates.h: the offload gate (design.md section 5).
 *
 * A release site's callback may take RB_NOGVL_OFFLOAD_SAFE only when every
 * gate (src/verdict.h: GATE_LIST, one row per gate) passes. Each rule area
 * exports a checker that looks at one site and the functions its callback reaches (a reach set, model.h) and records
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
#include "verdict.h" /* the gates (GATE_LIST), their states and evidence */

/* Records that lm decided gate for a call at loc (once per gate and entry). */
void gate_basis_add(struct gate_result *g, int gate, const struct lib_model *lm, const struct loc *loc, int32_t fn);

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
void gate_check_ubf(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);

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
void gate_check_locks(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);
/* GATE_SHARED_STATE: unlocked writes of globals and statics (directly, through
 * a library call such as snprintf, or through a pointer that only ever points
 * at statics) (rule shared-mutable-state), and non-reentrant library calls
 * such as strtok or localtime (rule mt-unsafe-call). Writes through a static
 * pointer whose target is unknown are "cannot verify". */
void gate_check_shared_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g);
/* What of the site gate_check_shared_state reads beyond its callback's
 * targets: whether a lock is held at the release call (or at a wrapper's).
 * Sites with the same targets and the same answer get the same evidence
 * (offload.c shares it). */
bool shared_state_site_locked(const struct model *m, const struct msite *s);
/* gate_check_shared_state's model-wide table (the lifecycle callbacks), built
 * once between begin and end for every site of m (offload_compute,
 * state_rule_run); without begin, per site. */
void shared_state_begin(const struct model *m);
void shared_state_end(void);
/* GATE_INPUTS (inputs_gates.c): pointers into Ruby objects in the callback's data are
 * frozen, fresh, copied or locked, and their owners kept alive. Receiver memory
 * and data filled by the caller make it "cannot verify". */
void gate_check_inputs(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);
/* GATE_OUTPUTS (inputs_gates.c): no static or global buffer is handed to the callback. */
void gate_check_outputs(const struct model *m, const struct msite *s, const struct reach_set *rs,
			struct gate_result *g);

#endif
