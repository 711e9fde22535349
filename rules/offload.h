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

/* Checkers defined with the offload rules. */
void gate_check_none(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);
void gate_check_opaque(const struct model *m, const struct msite *s, const struct reach_set *rs,
		       struct gate_result *g);
void gate_check_fd(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);
/* GATE_UBF: gate_check_ubf, then gate_check_unbounded_wait. */
void gate_check_ubf_all(const struct model *m, const struct msite *s, const struct reach_set *rs,
			struct gate_result *g);
void gate_check_unbounded_wait(const struct model *m, const struct msite *s, const struct reach_set *rs,
			       struct gate_result *g);
void gate_check_work_size(const struct model *m, const struct msite *s, const struct reach_set *rs,
			  struct gate_result *g);

#endif
