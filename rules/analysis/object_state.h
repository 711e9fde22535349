/* object_state.h: what the files of the object-state gate share
 * (object_state.c: the checker; object_state_ctx.c: object structs, roles,
 * callers; object_state_guard.c: guards and the functions that touch the
 * state). Private to rules/analysis/. */
#ifndef NOGVL_OBJECT_STATE_H
#define NOGVL_OBJECT_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gates.h"
#include "inputs_flow.h"
#include "offload.h"

#define MAX_RECORDS 64
#define MAX_FIELDS 16
#define UP_DEPTH 8

struct caller {
	uint32_t fn, ev;
};
typedef VEC(struct caller) caller_vec;

/* A function's uses of object fields (object_field true), in event order:
 * the event, the object struct's index in ostate.records, whether it writes
 * (an assignment's left side), and the first member name. */
struct otouch {
	uint32_t ev;
	uint16_t rec;
	bool write;
	const char *field;
};
typedef VEC(struct otouch) otouch_vec;

/* touches' index, per function index, built on first use of each function. */
struct otouch_tab {
	otouch_vec *by_fn;
	uint8_t *built;
	struct strpool fields;
};

struct ostate {
	const struct model *m;
	const char *records[MAX_RECORDS]; /* object structs of the project */
	unsigned nrecords;
	/* function USR -> enum fn_role bits (rb_define_method ...), built on first use */
	struct hmap roles;
	bool roles_built;
	/* per function index: its role bits + 1 (0: not looked up yet), and
	 * whether it is exempt + 1 (exempt_fn), filled on first use */
	uint8_t *role_by_fn, *exempt_by_fn;
	/* touches' index (the pointer is the ostate's; its contents fill in as
	 * touches asks, also through a const ostate) */
	struct otouch_tab *touch;
	/* why the last guard-like shape was not a guard (for the evidence) */
	char why[320];
	struct loc why_loc;
};

enum fn_role {
	ROLE_NONE = 0,
	ROLE_METHOD = 1,
	ROLE_INIT = 2,
	ROLE_ALLOC = 4
};

enum guard_kind {
	GUARD_NONE = 0,
	GUARD_MUTEX,
	GUARD_FLAG
};

struct guard {
	int kind;
	const char *what;  /* mutex argument text, or flag field */
	const char *field; /* the mutex's (or flag's) member name, to find it in other functions */
	const char *rec;   /* the flag's object struct (NULL for a mutex) */
	const char *mrec;  /* a mutex kept in an object struct: that struct (NULL: a global or local mutex) */
	const char *bit;   /* a bit flag (flags |= BIT): the bit's spelling */
	struct loc loc;
	char buf[128];
};

/* object_state_ctx.c: object structs, roles, callers */
bool is_object_record(const struct ostate *os, const char *rec);
const char *var_record(const struct mfunc *mf, int32_t var);
void find_records(struct ostate *os);
const char *first_field(const char *path, char *buf, size_t n);
bool object_field(const struct ostate *os, const struct mfunc *mf, const struct ref *r, const char **rec, char *field,
		  size_t n);
bool is_call(const struct event *e, const char *name);
int role_of(struct ostate *os, uint32_t fi);
bool makes_object(const struct func *f);
bool exempt_fn(struct ostate *os, uint32_t fi);
void free_ostate(struct ostate *os);
bool runs_now(const struct event *e);
void callers_of(struct ostate *os, uint32_t fi, caller_vec *out);
bool private_fn(struct ostate *os, uint32_t fi, int depth);

/* object_state_guard.c: guards, and the other functions that touch the state */
const char *last_field(const struct expr *x);
bool expr_feeds(const struct ostate *os, uint32_t fi, uint32_t ev, const struct expr *x, int32_t var);
bool feeds(const struct ostate *os, uint32_t fi, uint32_t ev, int32_t var);
int32_t mutex_owner(const struct ostate *os, const struct mfunc *mf, const struct expr *x);
bool is_clear_value(const struct expr *x);
bool is_flag_clear(const struct assign *a);
bool clear_undoes(const struct assign *c, const struct assign *s);
bool flag_checked(const struct ostate *os, uint32_t fi, const char *rec, const char *fld, const char *bit,
		  uint32_t off);
int64_t flag_written_by(const struct ostate *os, const struct reach_set *rs, const char *rec, const char *fld,
			const struct assign *set, struct loc *where);
void reject(struct ostate *os, const struct loc *loc, const char *fmt, ...) PRINTF_LIKE(3, 4);
bool ensure_clears(struct ostate *os, uint32_t fi, const char *rec, const char *fld, const struct assign *set);
bool guard_in(struct ostate *os, uint32_t fi, uint32_t ev, const char *rec, const struct reach_set *rs,
	      struct guard *g);
bool path_guarded(struct ostate *os, uint32_t fi, uint32_t ev, const char *rec, const struct reach_set *rs, int depth,
		  unsigned *budget, struct guard *g, int64_t *open_fn);
bool same_mutex(const struct ostate *os, const struct mfunc *mf, const struct expr *x, const struct guard *g);
bool takes_guard(struct ostate *os, uint32_t fi, const struct guard *g, int depth);
void touch_tab_init(struct ostate *os);
void touch_tab_free(struct ostate *os);
const struct event *touches(const struct ostate *os, uint32_t fi, const char *rec, const char *fld, bool writes_only,
			    const char *skip);

#endif
