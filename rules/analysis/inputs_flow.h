/* inputs_flow.h: what a release site hands its callback from Ruby objects.
 *
 * For one release site this follows the callback's data (data1, data2: a
 * struct on the stack, pointers stored in its fields, locals they point to)
 * back through the function that fills it (the caller, or the wrapper that
 * builds its own struct), and one hop into a helper that receives the struct's
 * address. Every pointer taken out of a Ruby object on the way
 * (RSTRING_PTR, StringValuePtr, RSTRING_GETMEM, RARRAY_CONST_PTR, typed data
 * ...) becomes an input: where it was taken, which VALUE owns the memory, how
 * that VALUE was made (frozen copy, fresh string, rb_str_dup, a method
 * argument ...) and whether it is kept alive past the call.
 *
 * unfrozen-input and missing-gc-guard report from this, and so does the offload
 * gate (gate_check_inputs, gate_check_outputs in gates.h).
 */
#ifndef NOGVL_INPUTS_FLOW_H
#define NOGVL_INPUTS_FLOW_H

#include "model.h"

enum io_kind {
	IOK_STRING = 1, /* bytes of a String */
	IOK_ARRAY,      /* element buffer of an Array */
	IOK_TYPED,      /* the C struct of a typed/data object */
	IOK_OBJECT,     /* another object's internals (RSTRUCT_PTR ...) */
};

/* How the owning object was made, best first. */
enum io_state {
	IOS_FROZEN = 1, /* rb_str_new_frozen, rb_obj_freeze ... */
	IOS_FRESH,      /* created here (rb_str_new(NULL, n) ...) and not shown to other code */
	IOS_LOCKED,     /* rb_str_locktmp for the duration of the call */
	IOS_RECEIVER,   /* typed data of the receiver (or another argument's) */
	IOS_UNKNOWN,    /* filled by code we do not follow (the caller's struct) */
	IOS_EXPOSED,    /* created here, but shown to other code before the call */
	IOS_DUP,        /* rb_str_dup/rb_ary_dup copy: unfrozen, reachable through ObjectSpace */
	IOS_SHARED,     /* a method argument or an object from elsewhere */
};

enum io_alive {
	IOA_NO = 0, /* nothing keeps the owner alive past the call */
	IOA_GUARD,  /* RB_GC_GUARD(owner) after the call */
	IOA_USE,    /* a later real use of the owner */
	IOA_STRUCT, /* the owner VALUE sits in the data struct on the stack */
	IOA_HELD,   /* held elsewhere: the receiver, a member of an object, the caller's struct */
};

struct io_input {
	uint32_t fn;              /* function holding the source event */
	uint32_t ev;              /* the event that takes the pointer (call or member access) */
	const char *what;         /* "RSTRING_PTR", "StringValueCStr" ... as written */
	int kind;                 /* enum io_kind */
	int state;                /* enum io_state */
	const char *owner;        /* the owning VALUE as written ("str", "s->buf"), or the temporary */
	uint8_t owner_param;      /* the owner is a parameter never reassigned */
	uint8_t temporary;        /* the owner is a temporary (a call's result, never stored) */
	const char *why;          /* the call that decided state ("rb_str_dup", "rb_yield" ...) or NULL */
	const char *why_fn;       /* for arguments: the function whose argument it is */
	const char *why_arg;      /* and the argument's name */
	struct loc why_loc;       /* where (line 0 when not known) */
	int alive;                /* enum io_alive */
	struct loc guard_before;  /* an RB_GC_GUARD of the owner before the call (line 0: none) */
	const char *helper;       /* the helper the source is in, when not the data function */
	const char *helper_local; /* the owner is a local of that helper */
	const char *dest;         /* where it enters the data ("a.ptr"), or NULL */
	struct loc dest_loc;
	/* Found in a caller of the function that fills the data: the pointer is an
	 * argument of the call `via` (a stub such as gvl_PQexec(conn, ptr) whose
	 * own struct carries it to the callback). The release, from the owner's
	 * side, is that call: rel_fn/rel_ev (rel_fn -1: the site's own release). */
	const char *via;
	int32_t rel_fn;
	uint32_t rel_ev;
	/* internal to the analysis */
	struct ref owner_ref;   /* the owner in the terms of `fn` (var -1: none) */
	int32_t owner_call;     /* the call making a temporary owner, -1 */
	uint8_t stored;         /* a helper stored the owner VALUE in the struct */
	uint8_t mapped;         /* a helper of a helper: top_owner is the owner in the data function */
	uint8_t unmapped_param; /* the owner is a parameter of such a helper, not mapped to the data function */
	struct ref top_owner;
	uint32_t top_at;     /* the event of the data function that passes it down */
	int32_t stop_fn;     /* unmapped: the helper where the chain stops at a local (-1: none) */
	struct ref stop_ref; /* ... that local */
	uint32_t stop_at;    /* ... and the call there that passes it down */
};

struct io_static {
	int32_t var; /* a static or global buffer handed to the callback */
	const char *name;
	struct loc loc;
	/* objstate: the object struct and its field (NULL when not known) */
	const char *rec;
	const char *field;
};

struct io_analysis {
	const struct msite *s;
	uint32_t fn;  /* the function whose events fill the data (site->data_fn) */
	uint32_t rel; /* the release call's event in fn */
	VEC(struct io_input) in;
	uint8_t no_data;          /* data1 and data2 carry nothing (NULL, a constant) */
	uint8_t from_caller;      /* the data is rooted at a parameter: filled by code not followed */
	uint8_t from_caller_ptr;  /* ... because a pointer parameter is stored in it (callers followed) */
	uint8_t from_caller_cast; /* ... because a VALUE parameter is cast to the struct (rb_ensure body) */
	struct loc from_caller_loc;
	const char *from_caller_name;
	const char *from_caller_member; /* C++: the member path below 'this' ("events") */
	const char *global_ptr_name;    /* a global/static pointer whose target is handed over */
	struct loc global_ptr_loc;
	/* a pointer returned by a helper below the last followed level carries
	 * the data: what it points to is not followed (inputs gate: cannot verify) */
	uint8_t ret_unfollowed;
	struct loc ret_loc;
	const char *ret_name; /* where it goes (the carrier), or the helper */
	/* a caller followed above the data function (ensure_hop, caller_hop ...)
	 * hands the data to one of the gem's functions before the call
	 * (fill(&job, str)): what it stores there is not followed (inputs gate:
	 * cannot verify) */
	uint8_t helper_unfollowed;
	struct loc helper_loc;
	const char *helper_name; /* that function */
	const char *helper_in;   /* the caller */
	/* static buffers handed to the callback (outputs gate) */
	VEC(struct io_static) statics;
	/* fields of an object's C struct handed to the callback (a library handle
	 * in typed data): state other fibers may use too (inputs gate) */
	VEC(struct io_static) objstate;
};

/* The release call of site s as an event of the function that fills its data. */
bool io_release_event(const struct model *m, const struct msite *s, uint32_t *fn, uint32_t *ev);

/* Analyses one site. Free with io_free. */
void io_analyse(const struct model *m, const struct msite *s, struct io_analysis *out);
void io_free(struct io_analysis *a);

/* True when site s is the first site with the same data function and release
 * event (wrapper call sites share their template's data). */
bool io_first_for_data(const struct model *m, const struct msite *s);

/* The inputs of every release site, once per data (a wrapper's call sites
 * share their template's data): the one walk the input rules use
 * (inputs_sites.c).
 *
 *   struct io_sites it;
 *   for (io_sites_init(&it, m, true); io_sites_next(&it);)
 *           ... it.s (the site), it.a (its analysis) ...
 *
 * With analyse false only the sites are walked (it.a stays empty). Each step
 * frees the previous analysis, the last one frees everything: leaving the
 * loop early needs io_sites_end. */
struct io_sites {
	const struct model *m;
	bool analyse;
	size_t next;
	const struct msite *s;
	struct io_analysis a;
	bool have; /* a holds an analysis */
};
void io_sites_init(struct io_sites *it, const struct model *m, bool analyse);
bool io_sites_next(struct io_sites *it);
void io_sites_end(struct io_sites *it);

/* Unfrozen: the owner may be modified by other code during the call. */
static inline bool io_unfrozen(const struct io_input *in)
{
	return in->state == IOS_SHARED || in->state == IOS_DUP || in->state == IOS_EXPOSED;
}

/* The first direct call (an edge id) that passes mf's parameter param_index
 * something no frame up the chain is known to hold (a temporary, a local, a
 * converted or reassigned argument), or -1 when every direct caller passes its
 * own untouched VALUE argument, up to four callers up. */
int io_param_caller_temp(const struct model *m, const struct mfunc *mf, int32_t param_index);

/* mf replaces parameter var with a call's result before event `before`
 * (`s = rb_obj_as_string(s)`): a new object may be there that only that
 * local holds. */
bool param_replaced(const struct mfunc *mf, int32_t var, uint32_t before);

/* Event ev of mf calls a helper of the gem that converts one of its own VALUE
 * parameters with StringValue* (ruby-pg's pg_cstr_enc): that conversion, and
 * the helper in *helper; else NULL. A #to_str result made there is held
 * only by the helper's parameter. */
const struct event *io_helper_converts(const struct model *m, const struct mfunc *mf, uint32_t ev,
				       const struct mfunc **helper);

/* The calls that run mf, a static one-parameter function, on a data
 * argument: rb_ensure(mf, data, ...) and the like, and calls of the gem's own
 * helpers that hand their function-pointer parameter to one of those with
 * their data parameter (magic_lock(obj, mf, &args)). visit gets the calling
 * function, the call event and the data argument, and returns true to stop.
 * Returns how many were visited (at most 16). */
typedef bool (*io_body_visit)(void *ctx, const struct mfunc *cf, uint32_t ev, const struct expr *data);
unsigned io_body_runs(const struct model *m, const struct mfunc *mf, io_body_visit visit, void *ctx);

/* Needs to be kept alive and is not. */
static inline bool io_not_alive(const struct io_input *in)
{
	return in->alive == IOA_NO;
}

/* Where the handle of a per-handle library call made in a callback comes
 * from (offload gates, libmodel thread_safe: per_handle). The handle is
 * followed out of the callback's data struct (`args->ctx`, `p->params.conn`)
 * to the stores that fill that field before the release (an initialiser, a
 * helper's `args.ctx = ctx`), then through locals, parameters (every caller,
 * including calls through a function pointer the linker resolved) and the
 * return values of the gem's functions (`pg_get_pgconn(self)`), a few levels
 * deep. Stops at:
 *   IOH_OWNED   a handle made in that frame (a thread-safe constructor or an
 *               allocator) and never handed to Ruby, another thread or storage
 *               outside the frame: this call's own;
 *   IOH_OBJECT  a field of a Ruby object's C struct (typed data), or that
 *               typed data itself taken out of an object from outside the
 *               method (whole): other fibers can use the object during the
 *               call, never "owned";
 *   IOH_UNKNOWN anything else, or too deep: `name` says where the flow ended.
 * The worst over all paths wins (OBJECT over UNKNOWN over OWNED). */
enum io_handle_origin {
	IOH_UNKNOWN = 0,
	IOH_OWNED,
	IOH_OBJECT
};
struct io_handle {
	int origin;
	const char *name; /* concrete: the expression where the flow ended (never empty) */
	const char *fn;   /* the function it is in */
	struct loc loc;
	bool escapes; /* IOH_UNKNOWN: made there, but stored or handed out */
	/* IOH_OBJECT: the object struct and the field holding the handle */
	const char *rec;
	const char *field;
	/* IOH_OBJECT, whole: the handle is the object's whole typed data (field
	 * NULL, rec the data type: io_typed_data_type, "image_type" or "DATA_PTR"),
	 * taken out of the Ruby object obj, a parameter of obj_fn (the receiver
	 * or an argument) */
	bool whole;
	const char *obj;
	const char *obj_fn;
};
/* A call that makes a new handle: a library function modelled thread_safe:
 * always (PQconnectdb, ZSTD_createCCtx, sqlite3_open filling &db ...) or an
 * allocator. A function of the gem, or one that may look a shared handle up,
 * does not count. */
bool io_makes_handle(const struct mfunc *mf, int32_t ev);
void io_handle_origin(const struct model *m, const struct msite *s, const struct mfunc *cb, const struct event *call,
		      int arg, struct io_handle *out);

const char *io_kind_noun(int kind); /* "string", "array" ... */
/* Whether x takes the C struct out of a typed/data object (rb_check_typeddata
 * behind TypedData_Get_Struct, DATA_PTR ...). */
bool io_typed_data_expr(const struct mfunc *mf, const struct expr *x);
/* The data type such a call checks: the rb_data_type_t variable's name
 * (rb_check_typeddata(obj, &image_type): "image_type"), or "DATA_PTR" when
 * the call does not name one (rb_data_object_get ...). */
const char *io_typed_data_type(const struct mfunc *mf, const struct call *c);
/* The knowledge tables are sorted (unit test). */
bool io_tables_sorted(void);
/* The callback's name for messages. */
const char *io_callback_name(const struct model *m, const struct msite *s);

#endif
