/* inputs_flow_int.h: what the files of the inputs analysis share
 * (inputs_flow.c, inputs_classify.c, inputs_callers.c, inputs_analyse.c,
 * inputs_gates.c, inputs_handle.c): the flow, the classification and the
 * helpers called across files. Private to rules/analysis/. */
#ifndef NOGVL_INPUTS_FLOW_INT_H
#define NOGVL_INPUTS_FLOW_INT_H

#include "inputs_flow.h"

#include <stdbool.h>
#include <stdint.h>

struct src_entry {
	const char *name;
	int kind;
};

typedef VEC(struct ref) refvec;

#define IN(name, t) in_table((name), (t), ARRAY_SIZE(t))

struct flow {
	const struct model *m;
	const struct mfunc *mf;
	uint32_t fn;
	uint32_t limit;     /* events [0, limit) */
	int32_t rel_region; /* region of the release call (kills) */
	refvec carriers;
	refvec values; /* VALUEs stored in the data */
	uint8_t *done;
	uint8_t *hopped;
	uint32_t cur; /* the assignment being followed */
	struct io_analysis *out;
	int depth;                 /* 0: the data function; 1: a helper */
	uint32_t hop_ev;           /* depth 1: the call into the helper, in the data function */
	int hop_param;             /* depth 1: the helper parameter that receives the struct */
	bool stack_root;           /* the data is (in) a local record on the stack */
	int hops;                  /* helper levels entered (a helper of a helper ...) */
	const struct flow *parent; /* depth 1: the flow that called into this helper */
};

/* Helpers followed below the data function: fill(&a, s) calling set_in(a, s)
 * is two. A carried pointer handed to a helper below the last level is not
 * followed: the data then counts as not followed (never as "no inputs"). */
#define MAX_HELPER_HOPS 3

struct cls {
	int state;          /* 0: neutral (a constant, Qnil) */
	bool held;          /* read out of a container that keeps it alive */
	const char *why;    /* deciding call */
	const char *why_fn; /* function whose argument it is */
	const char *arg;    /* that argument's name */
	struct loc loc;
	bool param; /* an unassigned parameter */
};

/* inputs_flow.c */
bool ref_is_var(const struct ref *r);
bool region_encloses(const struct func *f, int32_t outer, int32_t inner);
bool arg_ref(const struct expr *a, struct ref *out);
bool expr_mentions(const struct expr *a, const struct ref *r);
void top_reads(const struct mfunc *mf, const struct expr *x, int32_t parent, refvec *out);
const char *ref_name(const struct mfunc *mf, const struct ref *r);
bool carried(const struct flow *fl, const struct ref *r);
int object_member_kind(const char *record);
void flow_expr(struct flow *fl, const struct expr *x, int32_t parent, const struct ref *dest);
void flow_run(struct flow *fl);

/* inputs_classify.c */
const struct src_entry *source_of(const char *name);
bool in_table(const char *name, const char *const *t, size_t n);
struct cls classify_expr(const struct model *m, const struct mfunc *mf, const struct expr *x, int32_t parent,
			 uint32_t at, int depth);
struct cls classify_var(const struct model *m, const struct mfunc *mf, const struct ref *o, uint32_t at, uint32_t rel,
			int depth);
struct cls classify_param(const struct model *m, const struct mfunc *mf, const struct var *v, int depth);
bool root_is_typed_data(const struct mfunc *mf, int32_t var, uint32_t at);
bool root_from_param(const struct mfunc *mf, int32_t var, uint32_t at);

/* inputs_analyse.c */
/* A call (an event of function `from`) that hands a function its data. */
struct hop_at {
	uint32_t from, ev;
};
/* Where the data a hop followed in a caller is rooted: that caller's own
 * pointer parameters (their indexes), or something else (a local set from a
 * parameter, more parameters than fit): then nothing further is followed. */
struct hop_roots {
	int params[16];
	unsigned np;
	bool other;
};
bool hop_call(const struct model *m, const struct mfunc *mf, struct io_analysis *out, const struct mfunc *cf,
	      const struct hop_at *edp, const struct expr *const *xs, unsigned nx, struct hop_roots *roots);

/* inputs_relay.c */
/* Adds the parameters of cf that carrier variable var of a hop's flow (a
 * parameter, or a local set from one before event limit) is rooted at. */
void hop_root(struct hop_roots *roots, const struct mfunc *cf, int32_t var, uint32_t limit);
/* hop_call for the data argument x of the call at that hands the body mf its
 * data (rb_protect(body, (VALUE)&arg, ...)), then, when that data is rooted at
 * the caller's own pointer parameters (arg.data = data), up through the
 * callers of that function (every caller direct, a few levels, a bounded
 * number of calls). Returns whether the data is still rooted somewhere not
 * followed. */
bool relay_call(const struct model *m, const struct mfunc *mf, struct io_analysis *out, const struct mfunc *cf,
		const struct hop_at *at, const struct expr *x);
/* relay_call for the expressions xs of that call (a variadic wrapper's
 * arguments); roots gets the parameters of cf the data is rooted at. */
bool relay_exprs(const struct model *m, const struct mfunc *mf, struct io_analysis *out, const struct mfunc *cf,
		 const struct hop_at *at, const struct expr *const *xs, unsigned nx, struct hop_roots *roots);
/* The site's data are fields of the rb_protect/rb_ensure body's cast
 * parameter (struct rel *r = (struct rel *)arg; release(r->fn, r->data, ...)):
 * those fields of the local struct each body call hands over
 * ((VALUE)&parg) are followed in its caller, then up as relay_call does. The
 * data is no longer "from the caller" only when every reference to the body
 * is such a call and nothing stays rooted. */
void field_hop(const struct model *m, const struct msite *s, const struct mfunc *mf, const struct flow *fl,
	       struct io_analysis *out);

/* inputs_callers.c */
const char *first_member(const struct mfunc *mf, const char *path);
bool address_taken(const struct model *m, const struct mfunc *mf);
bool taken_only_for_param_calls(const struct model *m, const struct mfunc *mf);
bool frame_holds(const struct model *m, const struct mfunc *mf, const struct ref *o, const struct cls *c, uint32_t src,
		 uint32_t rel);
/* c is rb_ensure(body, data, ...), rb_protect, rb_rescue(2) or
 * rb_mutex_synchronize(mutex, body, data): the indexes of its body and data
 * arguments. */
bool body_call(const struct call *c, unsigned *fn, unsigned *data);
/* Adds to *refs the arguments of c naming the function usr, and whether c
 * runs it as its body (body_call): then *data is the body's data argument. */
bool runs_as_body(const struct call *c, const char *usr, unsigned *refs, unsigned *data);
/* g hands its parameter pfn, unchanged and nowhere else, to one such call as
 * the body, with another parameter (cast or not) as that call's data and that
 * parameter read nowhere else (ruby-magic's magic_lock(object, function, data)
 * runs rb_ensure(function, (VALUE)data, unlock, object)): that parameter's
 * index, else -1. */
int body_param_data(const struct mfunc *g, uint32_t pfn);

#endif
