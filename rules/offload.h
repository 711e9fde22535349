/* offload.h: the offload verdict of each release site (design.md section 5).
 *
 * Every gate checker (rules/gates.h) runs on the site and the functions its
 * callback reaches; the verdict combines them. Computed once per site and
 * cached on the model, so offload-candidate, offload-unsafe,
 * small-work-nogvl, --explain-callback and the JSON site list agree.
 */
#ifndef NOGVL_OFFLOAD_H
#define NOGVL_OFFLOAD_H

#include <stdio.h>

#include "gates.h"

enum offload_verdict {
	OV_NOT_EVALUATED = 0, /* template sites inside wrappers */
	OV_CANDIDATE,         /* every gate passes, flag absent: suggest it */
	OV_NOT_SAFE,          /* flag absent, a gate fails */
	OV_CANNOT_VERIFY,     /* flag absent, no gate fails, some cannot be verified */
	OV_FLAGGED_SAFE,      /* flag present, every gate passes */
	OV_FLAGGED_UNSAFE,    /* flag present, a gate fails: offload-unsafe */
	OV_FLAGGED_CANNOT_VERIFY,
	OV_NOT_APPLICABLE,    /* the API takes no flags (IO blocking regions, removed API) */
};

struct offload_info {
	struct gate_result g;
	int verdict;          /* enum offload_verdict */
	bool flagged;         /* the call passes RB_NOGVL_OFFLOAD_SAFE */
	bool small_work;      /* GATE_WORK_SIZE failed: bounded-small work */
	bool threshold_guard; /* the release sits under a size comparison */
	/* OV_CANDIDATE held back (not offered) until another finding on the same
	 * call is fixed: that rule's slug and where (cleanup-not-ensured ...). */
	const char *withheld_by;
	struct loc withheld_loc;
};

/* The verdict for site (cached). */
const struct offload_info *offload_info(const struct model *m, uint32_t site);
const char *offload_verdict_name(int verdict);
/* Gates that decide safety (all but GATE_WORK_SIZE, which only decides
 * whether offloading pays). */
bool gate_is_safety(int gate);

/* --explain-callback: prints the checklist of each site whose callback is
 * name; returns how many were shown. */
int offload_explain(FILE *out, const struct model *m, const char *name);

/* cleanup_not_ensured.c: the first cleanup after the release that rb_ensure
 * does not protect (whatever the flags). */
bool cleanup_after_release(const struct model *m, const struct msite *s, struct loc *where, const char **what);

/* Checkers defined with the offload rules. */
void gate_check_opaque(const struct model *m, const struct msite *s, const struct reach_set *rs,
		       struct gate_result *g);
void gate_check_fd(const struct model *m, const struct msite *s, const struct reach_set *rs, struct gate_result *g);
void gate_check_unbounded_wait(const struct model *m, const struct msite *s, const struct reach_set *rs,
			       struct gate_result *g);
/* Object state (object_state.c): fields of a Ruby object's C struct used by
 * the callback fail GATE_INPUTS unless a mutex or in-progress flag guards the
 * call and every other function touching them (gvl-semantics.md 2.9). */
void gate_check_object_state(const struct model *m, const struct msite *s, const struct reach_set *rs,
			     struct gate_result *g);
void gate_check_work_size(const struct model *m, const struct msite *s, const struct reach_set *rs,
			  struct gate_result *g);

#endif
