/* gvlapi.h: the GVL-release entry points and related Ruby thread APIs.
 * Source: design.md section 4; gvl-semantics.md sections 1.1-1.4
 * (Ruby 3.1 ruby/thread.h, master thread.h/thread.c, internal/io.h). */
#ifndef NOGVL_GVLAPI_H
#define NOGVL_GVLAPI_H

#include <stdbool.h>

enum gvl_flag {
	NOGVL_INTR_FAIL = 0x1,
	NOGVL_UBF_ASYNC_SAFE = 0x2,
	NOGVL_OFFLOAD_SAFE = 0x4,
	NOGVL_PENDING_INTR_FAIL = 0x8,
};

enum gvl_api_kind {
	API_NOGVL = 1,
	API_WITHOUT_GVL,
	API_WITHOUT_GVL2,
	API_THREAD_IO_BLOCKING_REGION, /* internal; (func, data1, fd) or (io, func, data1) */
	API_IO_BLOCKING_REGION,        /* rb_io_blocking_region(_wait)(io, func, data1, ...) */
	API_BLOCKING_REGION,           /* removed in Ruby 2.2 */
};

struct gvl_api {
	const char *name;
	int kind;  /* enum gvl_api_kind */
	int cb;    /* argument index of the callback; -1: first function argument */
	int data1; /* -1: the argument after the callback */
	int ubf;   /* -1: none (ubf_select implied) */
	int data2;
	int flags; /* argument index of flags, -1 when implied */
	int implied_flags;
	bool cb_returns_value; /* callback type is rb_blocking_function_t (returns VALUE) */
	bool removed;
};

/* Sorted by name. */
extern const struct gvl_api gvl_apis[];
extern const unsigned gvl_napis;

const struct gvl_api *gvl_api_find(const char *name);
/* Any spelled name the token scanner should look for (APIs above). */
bool gvl_api_is_name(const char *name);

/* Names the token scanner records: the APIs above and the removed
 * TRAP_BEG/TRAP_END/rb_thread_blocking_region_begin/_end. */
bool gvl_watch_name(const char *name, bool *needs_call);

/* rb_thread_call_with_gvl(func, data1): re-acquires the GVL inside a callback. */
#define WITH_GVL_API "rb_thread_call_with_gvl"
/* Functions whose truth means "this thread holds the GVL". */
bool gvl_is_guard_predicate(const char *name);

/* Renders flags as "RB_NOGVL_INTR_FAIL | RB_NOGVL_OFFLOAD_SAFE" or "0". */
const char *gvl_flags_text(int flags, char *buf, unsigned size);

#endif
