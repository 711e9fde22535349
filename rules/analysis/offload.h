/* offload.h: the offload phase (design.md section 5).
 *
 * offload_compute runs once after linking, before the rules: every gate
 * checker (rules/gates.h, one row per gate in src/verdict.h's GATE_LIST) runs
 * on each release site and the functions its callback reaches, and the
 * verdicts are stored on the model (model.verdicts, struct site_verdict), so
 * offload-candidate, offload-unsafe, small-work-nogvl, --explain-callback and
 * the reports read the same data.
 */
#ifndef NOGVL_OFFLOAD_H
#define NOGVL_OFFLOAD_H

#include "gates.h"

/* Fills m->verdicts, one per site (the offload phase). */
void offload_compute(struct model *m);

/* cleanup_not_ensured.c: the first cleanup after the release that rb_ensure
 * does not protect (whatever the flags). */
bool cleanup_after_release(const struct model *m, const struct msite *s, struct loc *where, const char **what);

/* Checkers defined with the offload rules. */
void gate_check_none(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);
void gate_check_opaque(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);
void gate_check_fd(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);
/* GATE_UBF: gate_check_ubf, then gate_check_unbounded_wait. */
void gate_check_ubf_all(const struct model *m, const struct msite *s, const struct reach_set *rs,
			struct gate_result *g);
void gate_check_unbounded_wait(const struct model *m, const struct msite *s, const struct reach_set *rs,
			       struct gate_result *g);
/* GATE_INPUTS: gate_check_inputs, then gate_check_object_state. */
void gate_check_inputs_all(const struct model *m, const struct msite *s, const struct reach_set *rs,
			   struct gate_result *g);
/* Object state (object_state.c): fields of a Ruby object's C struct used by
 * the callback fail GATE_INPUTS unless a mutex or in-progress flag guards the
 * call and every other function touching them (gvl-semantics.md 2.9). */
void gate_check_object_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g);
/* The same for the object fields the other gates found from evidence index
 * `from` on (a per-handle library call whose handle lives in the object:
 * `this->pgconn`); run after every gate. */
void gate_check_object_handles(const struct model *m, const struct msite *s, const struct reach_set *rs,
			       struct gate_result *g, size_t from);
/* The object-state tables that depend on the model alone (object structs,
 * roles, functions passed as arguments), built once between begin and end
 * for every site of m (offload_compute); without begin, per site. */
void object_state_begin(const struct model *m);
void object_state_end(void);
void gate_check_work_size(const struct model *m, const struct msite *s, const struct reach_set *rs,
			  struct gate_result *g);

#endif
