/* state_ctx.h: what the files of the state gates share (state_gates.c,
 * state_gates_locks.c, state_gates_static.c, state_gates_shared.c,
 * state_gates_errchan.c): the context of one run, lock operations and the
 * helpers called across files. Private to rules/analysis/. */
#ifndef NOGVL_STATE_CTX_H
#define NOGVL_STATE_CTX_H

#include "gates.h"

#include <stdbool.h>
#include <stdint.h>

struct lockop {
	uint32_t ev;
	int op;           /* enum lock_op */
	const char *key;  /* interned identity, NULL when unknown */
	const char *text; /* as written, without a leading '&' */
	int32_t scope;    /* returning region the op is confined to, -1 */
	uint8_t own;      /* a call of the project's own lock function (its body's
			      operations are seen where it is reached) */
};
typedef VEC(struct lockop) lockop_vec;

struct state_ctx {
	const struct model *m;
	struct strpool pool;
	lockop_vec *locks; /* by mfunc id, filled on demand */
	uint8_t *locks_done;
	/* static-only pointer analysis: per TU, per var: 0 unknown, 1 busy, 2 yes, 3 no */
	uint8_t **so_memo;
	const struct var ***so_witness;
	struct hmap defs; /* global USR -> its definition (not an extern declaration) */
	bool defs_done;
	struct hmap first_write; /* "fn:var" -> index + 1 of the reported write in the gate result */
	/* a project's own lock functions (own_lock_op): per mfunc id, 0 not yet
	 * known, 1 being computed, 2 known; the op (0 none) and its parameter */
	uint8_t *own_state;
	int8_t *own_op;
	int8_t *own_param;
	struct hmap life; /* lifecycle_fn's answers (state_gates_shared.c) */
};

/* state_gates.c */
bool static_storage(const struct var *v);
uint32_t var_flags(const struct model *m, const struct var *v);
const char *storage_text(const struct var *v);
bool plain_path(const struct ref *r);
const struct mfunc *project_callee(const struct model *m, const struct call *c);
bool library_call(const struct model *m, const struct event *e);
const char *call_display(const struct event *e);
bool in_reach(const struct reach_set *rs, uint32_t fn);
bool region_within(const struct func *f, int32_t r, int32_t anc);
int32_t returning_region(const struct func *f, int32_t r);
const char *cb_name(const struct model *m, const struct msite *s);
void ctx_init(struct state_ctx *c, const struct model *m);
void ctx_free(struct state_ctx *c);
const struct var *def_var(struct state_ctx *c, const struct var *v);
const char *mutex_key(struct state_ctx *c, const struct mfunc *mf, const struct expr *a);
const char *strip_amp(struct state_ctx *c, const char *t);

/* state_gates_locks.c */
int held_before(struct state_ctx *c, uint32_t fn, uint32_t at, const char *key);
uint32_t site_callers(const struct model *m, const struct msite *s, const struct msite **out, uint32_t max);
uint32_t next_site_event(const struct model *m, const struct msite *s);

/* state_gates_static.c */
bool so_expr(struct state_ctx *c, const struct mfunc *mf, const struct expr *e, const struct var **witness);
bool so_var(struct state_ctx *c, const struct mfunc *mf, int32_t var, const struct var **witness);
bool in_fork_child(const struct model *m, const struct mfunc *mf, uint32_t ei);
/* Event ei of mf is in a branch that runs at most once in the process (the
 * first caller's branch of an atomic test-and-set or fetch-add of a flag
 * nothing else writes): state_gates_once.c. */
bool in_once_branch(const struct model *m, const struct mfunc *mf, uint32_t ei);
/* The region is the branch taken when its condition's one zero test (`X`,
 * `!X`, `X == 0`, `0 != X` ...) finds X == 0; X is the variable called name,
 * or with no name anything that compares nothing (a once-test's call). */
bool zero_branch(const struct region *rg, const char *name);

/* state_gates_shared.c */
void process_state(struct state_ctx *c, struct gate_result *g, uint32_t fi, uint32_t ei);

/* state_gates.c */
bool null_arg(const struct expr *a);

#endif
