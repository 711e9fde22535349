/* model.h: the linked whole-program model that rules read.
 *
 * link.c joins the facts of every TU: one table of defined functions (keyed by
 * USR, so two `static` functions with the same name in different files stay
 * apart), the call graph (direct calls, resolved function-pointer calls,
 * functions handed to library calls), the GVL-release sites with their
 * callbacks resolved, and wrapper functions that forward a callback parameter
 * to a release API. context.c then computes, per function, how it is reached
 * without the GVL (from a callback), from an unblocking function, or under
 * rb_thread_call_with_gvl, with the chain back to the release site.
 */
#ifndef NOGVL_MODEL_H
#define NOGVL_MODEL_H

#include "facts.h"
#include "gvlapi.h"
#include "verdict.h"

struct mfunc {
	const struct func *f;
	struct tu_facts *tu;
	uint32_t id;
	uint32_t edge_begin, edge_end; /* range in model.edges (outgoing) */
	uint32_t in_begin, in_end;     /* range in model.in_edges (incoming, edge ids) */
	int32_t wrapper;               /* index into model.wrappers, -1 */
	uint8_t protected_body;        /* passed as body to rb_protect/rb_ensure/rb_rescue */
	uint8_t address_taken;         /* passed as an argument, assigned, or bound to a field
					* anywhere: it has callers the call graph does not show */
	uint8_t unreachable;           /* static, and nothing in the gem refers to it (reachable.c) */
};

enum edge_kind {
	EDGE_DIRECT = 1, /* f() */
	EDGE_POINTER,    /* fp(), s->fn(): resolved through bindings or assignments */
	EDGE_FNARG,      /* g(cb) where g is a library function that may call cb */
	EDGE_PARAM,      /* fn(x) where fn is a parameter, resolved from the callers' arguments */
	EDGE_LIBCB,      /* a library call that runs handlers registered with another library
			      call (sqlite3_backup_step runs the sqlite3_busy_handler handler) */
};

/* Which caller justifies an EDGE_PARAM edge: `from` calls its parameter at
 * event ev, and `caller` passes `to` in that position (one entry per caller;
 * sorted by from, ev, to, caller). A parameter call only reaches `to` on a
 * path through such a caller. */
struct param_via {
	uint32_t from, ev;
	int32_t to;
	uint32_t caller;
};

struct edge {
	uint32_t from;
	int32_t to;   /* mfunc id; -1 for a function without a body */
	uint32_t ev;  /* the call event in `from` */
	uint8_t kind; /* enum edge_kind */
};

enum cb_how {
	CB_UNRESOLVED = 0,
	CB_DIRECT,     /* the function's name */
	CB_CAST,       /* (void *(*)(void *))fn */
	CB_LOCAL_VAR,  /* a local function-pointer variable */
	CB_GLOBAL_VAR, /* a global/static function-pointer variable */
	CB_FIELD,      /* a struct field (ops table, initialiser or assignment) */
	CB_WRAPPER,    /* an argument of a wrapper function */
	CB_NULL,       /* NULL */
	CB_SENTINEL,   /* RUBY_UBF_IO / RUBY_UBF_PROCESS (-1) */
};

struct cbres {
	uint8_t how;     /* enum cb_how */
	uint8_t partial; /* some assignments could not be resolved */
	uint32_t ntargets;
	uint32_t *targets; /* mfunc ids with bodies */
	uint32_t nexternal;
	const char **external; /* resolved names without a body (library functions) */
	const char *text;      /* as written */
	const char *macro;     /* RUBY_UBF_IO, RUBY_UBF_PROCESS, NULL ... */
};

enum ubf_kind {
	UBF_NONE = 0, /* the API takes no UBF (ubf_select implied for IO regions) */
	UBF_NULL,
	UBF_IO,      /* RUBY_UBF_IO */
	UBF_PROCESS, /* RUBY_UBF_PROCESS */
	UBF_FUNC,    /* a custom function */
	UBF_UNKNOWN,
};

struct msite {
	uint32_t id;
	struct tu_facts *tu;
	uint32_t fn;               /* mfunc id of the function making the call */
	uint32_t ev;               /* event index of the call in that function */
	const struct gvl_api *api; /* the underlying release API */
	const char *called;        /* name as called: the API, or the wrapper's name */
	int32_t inner;             /* for wrapper call sites: the site inside the wrapper */
	struct loc loc;
	const char *macro; /* expanded from this macro */
	struct cbres cb;
	struct cbres ubf;
	uint8_t ubf_kind; /* enum ubf_kind */
	const struct expr *data1, *data2, *flags_expr;
	uint32_t data_fn; /* function whose events fill data1/data2 (the caller
				      when a wrapper forwards them, else fn) */
	int flags;
	uint8_t flags_known;
	uint8_t is_template; /* inside a wrapper, callback is the wrapper's parameter */
	uint8_t token_only;  /* found by the token scan only (the parser lost the call):
				      callback resolved by name; data1/data2/flags unknown (NULL);
				      ev is the first event after it */
	uint8_t removed_api;
	uint8_t unreachable; /* in a function nothing in the gem calls (model_mark_unreachable) */
};

struct wrapper {
	uint32_t fn;   /* the wrapper function */
	uint32_t site; /* the release site inside it (possibly itself a wrapper call) */
	int cb_param, data1_param, ubf_param, data2_param, flags_param; /* -1 when not forwarded */
};

/* How a function is reached in a given context. */
struct reach {
	int32_t pred_fn; /* caller mfunc id, -1 at a root */
	int32_t pred_ev; /* call event in the caller (or the site's event at a root) */
	int32_t site;    /* release site whose callback/UBF this chain starts from; -1 none */
	uint8_t reached;
	uint8_t edge_kind;
};

enum ctx_kind {
	CTX_NOGVL = 0, /* reached from a callback while the GVL is released */
	CTX_UBF,       /* reached from an unblocking function */
	CTX_WITHGVL,   /* reached from a function given to rb_thread_call_with_gvl */
	CTX_COUNT,
};

/* A call of rb_thread_call_with_gvl: its function runs with the GVL again. */
struct withgvl_call {
	uint32_t fn; /* function making the call */
	uint32_t ev; /* the call event */
	struct cbres target;
};

/* A call event: the function (mfunc id) and the event index in it. */
struct call_at {
	uint32_t fn, ev;
};

/* Answers the rules compute from a walk of the whole gem and would otherwise
 * compute again for every release site (is a field ever a pointer, the first
 * registration of a handler): key -> value, filled on first use
 * (model_memo_get/put). Only a cache of what the facts already say: the
 * model's facts never change. The rules phase is single-threaded. */
struct model_memo {
	struct hmap by_key; /* key -> value + 1 */
	struct strpool keys;
	/* model_member_refs' index, built on its first use */
	struct hmap members;
	bool members_built;
};

struct model {
	struct tu_facts **tus;
	size_t ntus;
	VEC(struct mfunc) fns;
	struct hmap fn_by_usr;           /* USR -> mfunc id + 1 (the first definition) */
	struct hmap fn_defs;             /* USR -> u32 VEC of every definition's id, only for a
				     * USR defined in more than one place (two extensions
				     * of one tree each defining a non-static `m`) */
	VEC(struct edge) edges;          /* sorted by from */
	VEC(uint32_t) in_edges;          /* edge ids sorted by to */
	VEC(struct param_via) param_via; /* the callers behind each EDGE_PARAM edge */
	VEC(struct msite) sites;         /* sorted by location */
	VEC(struct wrapper) wrappers;
	struct hmap bindings; /* "record\1field" -> VEC of binding pointers */
	struct hmap globals;  /* global var USR -> first struct var * */
	struct hmap calls_to; /* callee USR -> VEC of direct call sites (struct call_at) */
	/* function USR -> VEC of the direct calls that pass it as an argument
	 * (rb_ensure(body, ...), a helper given a callback), in function id and
	 * event order, once per call (struct call_at) */
	struct hmap func_passed;
	/* function USR -> VEC of the events naming it as a value (an argument of
	 * any call, direct or not, or an assignment's value), in function id and
	 * event order, once per event (struct call_at; model_fn_refs) */
	struct hmap fn_refs;
	struct model_memo *memo; /* model_link allocates it; NULL: nothing is memoised */
	struct reach *reach[CTX_COUNT];
	VEC(struct withgvl_call) withgvl;
	struct arena arena;
	struct strpool pool;
	/* the offload verdict of each site (verdict.h), filled once by the
	 * offload phase after linking (rules/offload.h: offload_compute); NULL
	 * before it ran */
	struct site_verdict *verdicts;
	size_t nverdicts;
	/* statistics */
	uint32_t nsites_unresolved;
	uint32_t ncallbacks;
};

struct model *model_link(struct tu_facts **tus, size_t ntus);
/* Marks functions (and their release sites) that nothing in the gem calls:
 * static, never referred to (reachable.c). model_link calls it. */
void model_mark_unreachable(struct model *m);
void model_free(struct model *m);

/* Lookups. */
const struct mfunc *model_func_by_usr(const struct model *m, const char *usr);
/* The direct calls passing the function usr as an argument (func_passed);
 * *n of them, NULL when none. */
const struct call_at *model_func_passed(const struct model *m, const char *usr, size_t *n);
/* The events naming the function usr as a value (fn_refs): *n of them, NULL
 * when none (model_iter.c). */
const struct call_at *model_fn_refs(const struct model *m, const char *usr, size_t *n);
/* The memoised value of key (model_memo): whether there is one. Keys longer
 * than MODEL_MEMO_KEY_MAX are never stored (the caller computes). */
#define MODEL_MEMO_KEY_MAX 512
bool model_memo_get(const struct model *m, const char *key, uintptr_t *val);
/* The events that may name the member key (p->key, s.key) or the global
 * variable of USR key in a reference: an access, either side of an
 * assignment, a call's argument; in function id and event order, once per
 * event; *n of them, NULL when none. A superset: the caller checks each
 * event. Built on first use (model_memo). */
const struct call_at *model_member_refs(const struct model *m, const char *key, size_t *n);
void model_memo_put(const struct model *m, const char *key, uintptr_t val);
/* The definition a call from caller reaches (the caller's own file or
 * directory first, where one name has several definitions). */
const struct mfunc *model_callee(const struct model *m, const char *usr, const struct mfunc *caller);
static inline const struct event *mf_event(const struct mfunc *mf, uint32_t ev)
{
	return &mf->f->events[ev];
}
const struct var *mf_var(const struct mfunc *mf, int32_t var);

/* Context (context.c). */
void context_compute(struct model *m);
bool model_reached(const struct model *m, enum ctx_kind ctx, uint32_t fn);
const struct reach *model_reach(const struct model *m, enum ctx_kind ctx, uint32_t fn);

/* Functions reachable from the given roots in no-GVL context (the call graph
 * below a callback or UBF). out[i] is set for every reached function; pred
 * (optional) receives chains. Returns the count. */
struct reach_set {
	uint32_t n;
	uint32_t *fns;       /* reached functions in BFS order */
	struct reach *by_fn; /* indexed by mfunc id (ntotal entries) */
	uint32_t nopaque;    /* unresolved function-pointer calls reached */
};
void model_reach_from(const struct model *m, const struct cbres *roots, int32_t site, struct reach_set *out);
/* The same in another context: CTX_WITHGVL (below a function given to
 * rb_thread_call_with_gvl) follows calls under a GVL guard too. */
void model_reach_from_ctx(const struct model *m, const struct cbres *roots, int32_t site, enum ctx_kind ctx,
			  struct reach_set *out);
void reach_set_free(struct reach_set *rs);

/* What runs without the GVL, one event at a time (model_iter.c): the one
 * walk the rules use instead of writing the loops out.
 *
 *   struct nogvl_walk w;
 *   for (nogvl_walk_init(&w, m, rs, NOGVL_SKIP_GEM_CALLS); nogvl_walk_next(&w);)
 *           ... w.fi, w.mf, w.ei, w.e ...
 *
 * or, where a rule looks at each function as a whole first, function by
 * function:
 *
 *   for (nogvl_walk_init(&w, m, rs, 0); nogvl_walk_next_fn(&w);) {
 *           ... w.fi, w.mf ...
 *           while (nogvl_walk_next_event(&w))
 *                   ... w.ei, w.e ...
 *   }
 *
 * The functions: those of the reach set rs in its order (the call graph below
 * one callback, model_reach_from), or with rs NULL every function reached
 * without the GVL from any callback (CTX_NOGVL: functions given to
 * rb_thread_call_with_gvl are not), in id order (a reach set of another
 * context, model_reach_from_ctx, walks that one: with NOGVL_GUARDED_TOO,
 * what runs with the GVL). The events: every event of
 * each, except those under a GVL guard (`if (ruby_thread_has_gvl_p())`, after
 * an early return on it). With NOGVL_SKIP_GEM_CALLS also no call of the
 * gem's own functions or through a pointer: those are edges of the call
 * graph, looked at in the function they reach. NOGVL_GUARDED_TOO keeps the
 * guarded events, for questions about where something is used at all (not
 * about what runs without the GVL). nogvl_walk_next_unresolved gives the
 * current function's calls through a pointer the call graph could not
 * resolve (edges to -1), outside guards, in edge order. */
enum nogvl_walk_flags {
	NOGVL_ALL_EVENTS = 0,
	NOGVL_SKIP_GEM_CALLS = 1u << 0,
	NOGVL_GUARDED_TOO = 1u << 1,
};
struct nogvl_walk {
	const struct model *m;
	const struct reach_set *rs;
	unsigned flags;
	uint32_t pos; /* next function: index into rs->fns, or mfunc id */
	uint32_t next_ev;
	uint32_t next_edge; /* next edge of the current function (unresolved calls) */
	/* the current function and event */
	uint32_t fi; /* mfunc id */
	const struct mfunc *mf;
	uint32_t ei; /* event index in mf */
	const struct event *e;
	const struct edge *edge; /* nogvl_walk_next_unresolved: the edge of e */
};
void nogvl_walk_init(struct nogvl_walk *w, const struct model *m, const struct reach_set *rs, unsigned flags);
bool nogvl_walk_next(struct nogvl_walk *w);
bool nogvl_walk_next_fn(struct nogvl_walk *w);
bool nogvl_walk_next_event(struct nogvl_walk *w);
bool nogvl_walk_next_unresolved(struct nogvl_walk *w);

/* The calls of the gem, one call event at a time (model_iter.c): those of
 * the function fn (an mfunc id), or with fn -1 those of every function of the
 * model in id order; each function's in event order. CALLS_UNGUARDED leaves
 * out the calls under a GVL guard, CALLS_DIRECT the calls through a pointer;
 * CALLS_AND_ASSIGNS walks the assignment events too.
 *
 *   struct call_walk w;
 *   for (call_walk_init(&w, m, -1, 0); call_walk_next(&w);)
 *           ... w.fi, w.mf, w.ei, w.e, w.c ...
 */
enum call_walk_flags {
	CALLS_ALL = 0,
	CALLS_UNGUARDED = 1u << 0,
	CALLS_DIRECT = 1u << 1,
	CALLS_AND_ASSIGNS = 1u << 2, /* also the assignments (w.c NULL for them) */
};
struct call_walk {
	const struct model *m;
	unsigned flags;
	bool all_fns;
	uint32_t next_fn, next_ev;
	/* the current call */
	uint32_t fi; /* mfunc id */
	const struct mfunc *mf;
	uint32_t ei; /* event index in mf */
	const struct event *e;
	const struct call *c;
};
void call_walk_init(struct call_walk *w, const struct model *m, int32_t fn, unsigned flags);
bool call_walk_next(struct call_walk *w);

/* The calls of a function from the gem (model_iter.c): its incoming call
 * graph edges in order (direct calls, calls through a resolved pointer, the
 * function handed to a call: edge->kind), each with the caller and the call
 * event in it.
 *
 *   struct caller_walk w;
 *   for (caller_walk_init(&w, m, mf); caller_walk_next(&w);)
 *           ... w.edge, w.caller, w.e, w.c ...
 */
struct caller_walk {
	const struct model *m;
	const struct mfunc *callee;
	uint32_t next;
	/* the current call */
	const struct edge *edge;
	const struct mfunc *caller;
	const struct event *e; /* the call event in caller */
	const struct call *c;  /* its call (NULL when e is not a call) */
};
void caller_walk_init(struct caller_walk *w, const struct model *m, const struct mfunc *callee);
bool caller_walk_next(struct caller_walk *w);

/* The functions a release site's gates read (model_iter.c): those of the
 * reach set rs (the callback and what it calls, in its order), then the
 * function holding the site s (s->data_fn: its events fill the data
 * argument).
 *
 *   struct site_fns_walk w;
 *   for (site_fns_walk_init(&w, m, rs, s); site_fns_walk_next(&w);)
 *           ... w.mf ...
 */
struct site_fns_walk {
	const struct model *m;
	const struct reach_set *rs;
	const struct msite *s;
	uint32_t pos;
	const struct mfunc *mf; /* the current function */
};
void site_fns_walk_init(struct site_fns_walk *w, const struct model *m, const struct reach_set *rs,
			const struct msite *s);
bool site_fns_walk_next(struct site_fns_walk *w);

/* The functions of the gem a call hands to another call as an argument
 * (model_iter.c): rb_protect(body, ...), rb_ensure(body, ..., ensure, ...),
 * qsort's comparator. The one place that knows which argument a Ruby
 * protector (rb_protect, rb_ensure, rb_rescue, rb_rescue2,
 * rb_str_locktmp_ensure) runs as its body: `body` says the argument is that
 * one. The function is the definition the caller reaches (model_callee).
 *
 *   struct handed_walk h;
 *   for (handed_walk_init(&h, m, caller, NULL); handed_walk_next(&h);)
 *           ... h.ei, h.c, h.arg, h.fn, h.body ...
 *
 * With c NULL every call of caller in event order (with caller NULL too,
 * every call of every function of the model), else the call c of caller
 * only (caller NULL: the first definition of a name). */
struct handed_walk {
	const struct model *m;
	const struct call *only; /* the one call, or NULL */
	bool all_fns;            /* caller was NULL: walk every function */
	uint32_t fi, next_ev, next_arg;
	/* the current handed function */
	const struct mfunc *caller;
	uint32_t ei; /* the call's event in caller (0 with a single call) */
	const struct call *c;
	uint32_t arg;
	const struct mfunc *fn;
	bool body; /* arg is the body a Ruby protector runs */
};
void handed_walk_init(struct handed_walk *h, const struct model *m, const struct mfunc *caller, const struct call *c);
bool handed_walk_next(struct handed_walk *h);
/* The body a Ruby protector call runs (rb_protect's first argument), a
 * function of the gem, or NULL. */
const struct mfunc *model_protected_body(const struct model *m, const struct mfunc *caller, const struct call *c);

/* Edges. */
static inline const struct edge *mf_edges(const struct model *m, const struct mfunc *mf, uint32_t *n)
{
	*n = mf->edge_end - mf->edge_begin;
	return m->edges.v + mf->edge_begin;
}

/* Classification helpers shared by rules. */
const char *cb_how_text(int how);
const char *ubf_kind_text(int kind);

#endif
