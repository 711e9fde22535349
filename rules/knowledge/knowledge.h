/* knowledge.h: tables of what functions do, each with its source. Rules and
 * the offload gate share them. */
#ifndef NOGVL_KNOWLEDGE_H
#define NOGVL_KNOWLEDGE_H

#include "model.h"

/* How a call relates to Ruby's C API. */
enum ruby_class {
	RC_NONE = 0,  /* not Ruby API (libc, a library, the gem's own function) */
	RC_PURE,      /* Ruby header helper on immediates only (INT2FIX, NIL_P, RTEST) */
	RC_ALLOWED,   /* documented as safe without the GVL */
	RC_ALLOC,     /* ruby_xmalloc family: works without the GVL on a Ruby thread */
	RC_ACCESSOR,  /* reads or writes an object's internals (RSTRING_PTR ...) */
	RC_CALL,      /* other Ruby API: needs the GVL */
	RC_MAY_RAISE, /* may raise (NUM2INT, StringValue, Check_Type, ALLOCV ...) */
	RC_RAISES,    /* raises (rb_raise, rb_sys_fail ...) */
};

struct ruby_use {
	int cls;                /* enum ruby_class */
	const char *name;       /* what to call it in messages: the macro as written, or the callee */
	const char *callee;     /* the underlying function, or the record for member accesses */
	uint8_t member;         /* a member access on a Ruby object struct */
	uint8_t representative; /* first event of its macro expansion with this class (report once) */
};

/* When a Ruby header redefines the libc name the code wrote as Ruby's own
 * function (ruby/util.h `#define strdup(s) ruby_strdup(s)`, ruby/subst.h
 * `#define snprintf ruby_snprintf`): that header; else NULL. Messages that
 * rest on the redefinition say so. */
const char *ruby_header_redefines(const char *written, const char *callee);

/* Classifies a callee by name and where it is declared. */
int ruby_class_of_call(const struct call *c);
/* Ruby's object structs ("struct RString" ...). */
bool ruby_object_record(const char *record);
/* Classifies event ev of mf, combining all events of the same macro
 * expansion (so NUM2INT is one use, classed by its strongest part). */
struct ruby_use ruby_use_of(const struct mfunc *mf, uint32_t ev);

/* Repeated uses from expansions of one macro (or one included file) in one
 * function are reported once, with a note counting the others. */
struct use_groups {
	struct hmap map; /* key -> struct use_group* */
	struct strpool keys;
};
struct finding;
/* Returns the finding already made for this event's group, or NULL (then the
 * caller reports and calls use_group_add). */
struct finding *use_group_find(struct use_groups *g, const struct mfunc *mf, const struct event *e, const char *name);
void use_group_add(struct use_groups *g, const struct mfunc *mf, const struct event *e, const char *name,
		   struct finding *f);
/* Adds "N more ..." notes and frees. */
void use_groups_finish(struct use_groups *g);

/* Library functions safe on any thread (safe_calls.c). */
bool known_safe_call(const char *name);
/* Constant-time or small fixed-cost library calls, for small-work-nogvl. */
bool cheap_call(const char *name);
/* Index of the size argument of a cheap call (memcpy ...), or -1. */
int cheap_call_size_arg(const char *name);
/* A call the library model says waits for an event or a lock (blocking: {...},
 * blocks: other than no, kinds: [takes_lock]): never small work, even when Ruby
 * allows it without the GVL (rb_native_cond_wait, rb_nativethread_lock_lock). */
bool waiting_call(const char *name);

/* Functions that release the GVL or are Ruby's thread helpers (never calls
 * the callback follows). */
bool ruby_thread_api(const char *name);

#endif
