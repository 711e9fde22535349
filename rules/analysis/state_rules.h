/* state_rules.h: the runner shared by the shared/thread state rules
 * (shared-mutable-state, thread-local-state, mt-unsafe-call,
 * lock-across-boundary). Each rule runs its gate checkers (gates.h) over every
 * release site and reports the FAIL evidence tagged with its slug, once per
 * place, with the call chain from that site. */
#ifndef NOGVL_STATE_RULES_H
#define NOGVL_STATE_RULES_H

#include "gates.h"
#include "rule.h"

/* offload_only: only sites whose flags are known to include
 * RB_NOGVL_OFFLOAD_SAFE (without it the callback runs on the calling thread). */
void state_rule_run(struct rule_ctx *rc, const gate_checker *checkers, unsigned nchecks, bool offload_only);

#endif
