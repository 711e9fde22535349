/* ubf.h: the analysis shared by the unblocking-function rules (ubf-on-cpu-work,
 * ubf-not-async-safe, ubf-ignored, uninterruptible-blocking) and the UBF
 * offload gate (gate_check_ubf in gates.h).
 *
 * Two scans, both over one release site:
 *  - the callback scan classifies every call the callback reaches without a
 *    body in the gem: a blocking call (with whether it can wait without
 *    bound), known CPU work, a poll of Ruby's interrupt flag, or opaque (a
 *    library function we know nothing about, an unresolved function pointer);
 *  - the UBF scan classifies what a custom unblocking function does: flag
 *    writes, pipe/eventfd writes, Ruby API, allocation, locks, stdio, thread
 *    identity, and whether each call is async-signal-safe.
 * The knowledge tables behind them are in ubf_tables.c, sorted, with sources.
 */
#ifndef NOGVL_UBF_H
#define NOGVL_UBF_H

#include "libmodel.h"
#include "model.h"

/* ---- knowledge tables (ubf_tables.c) ---- */

/* enum wake_kind, enum bound_rule and struct blocking_call are in libmodel.h:
 * a blocking call is a library model with a `blocking:` property. */

const struct blocking_call *ubf_blocking_call(const char *name);
bool ubf_cpu_call(const char *name);          /* known non-blocking library call */
bool ubf_builtin(const char *name);           /* compiler builtins and atomics */
bool ubf_async_signal_safe(const char *name); /* POSIX.1-2017 list plus documented extras */
bool ubf_alloc_call(const char *name);
bool ubf_lock_call(const char *name);        /* acquires a lock or waits on one */
bool ubf_cond_signal_call(const char *name); /* pthread_cond_signal/broadcast ... */
bool ubf_stdio_call(const char *name);
bool ubf_pipe_write_call(const char *name);    /* write, eventfd_write, send: wakes a waiter */
bool ubf_thread_id_call(const char *name);     /* pthread_self, gettid ... */
bool ubf_thread_signal_call(const char *name); /* pthread_kill, tgkill ...: aims at one thread */
bool ubf_polls_interrupts(const char *name);   /* rb_thread_interrupted, rb_thread_check_ints */
/* The libc function a Ruby header substitutes (ruby_snprintf -> snprintf), or NULL. */
const char *ubf_libc_name(const char *name);

/* ---- callback scan ---- */

enum cb_item_kind {
	CI_BLOCKING = 1, /* a blocking call (bc set) */
	CI_POLLS,        /* polls Ruby's interrupt flag or re-enters Ruby (rb_thread_call_with_gvl) */
	CI_OPAQUE,       /* a call we know nothing about */
};

enum cb_bound {
	CB_BOUNDED = 0,
	CB_UNKNOWN, /* depends on a value we cannot see */
	CB_UNBOUNDED,
};

struct cb_item {
	uint32_t fn, ev;
	uint8_t kind;  /* enum cb_item_kind */
	uint8_t bound; /* enum cb_bound, CI_BLOCKING only */
	const struct blocking_call *bc;
	const char *name;
	const char *why; /* for CB_UNBOUNDED: what makes it unbounded ("timeout -1") */
};

struct cb_scan {
	struct reach_set rs;
	bool resolved; /* every callback target has a body and no function pointer stays unresolved */
	bool clean;    /* every reached function comes from a translation unit that parsed without
			    errors (a call lost to a parse error cannot hide) */
	bool nonblock; /* O_NONBLOCK / SOCK_NONBLOCK / SO_RCVTIMEO set by the callback or the caller */
	/* the gem starts threads of its own (pthread_create ...): a walk of the
	 * whole gem, made only when a wait without timeout asks (gem_threads_known) */
	bool gem_threads, gem_threads_known;
	VEC(struct cb_item) items;
	uint32_t nblocking, nopaque, npolls;
	uint32_t nwork; /* loops and known CPU library calls: evidence of real work */
};

void ubf_scan_callback(const struct model *m, const struct msite *s, struct cb_scan *out);
void cb_scan_free(struct cb_scan *cs);

/* ---- UBF scan ---- */

enum ubf_item_kind {
	UI_FLAG = 1, /* writes a field or a global (the cancel flag) */
	UI_PIPE,     /* write/eventfd_write/send: wakes a waiter */
	UI_INERT,    /* builtins, errno, memory and string functions */
	UI_RUBY,     /* Ruby C API */
	UI_ALLOC,
	UI_LOCK,
	UI_COND_SIGNAL,
	UI_STDIO,
	UI_THREAD_ID,     /* pthread_self, gettid, thread-local storage */
	UI_THREAD_SIGNAL, /* pthread_kill & co on a saved thread handle */
	UI_OTHER,         /* another library call: something else may cancel the work */
	UI_OPAQUE,        /* declared nowhere we can see (stubbed, project header without body) */
};

struct ubf_item {
	uint32_t fn, ev;
	uint8_t kind;               /* enum ubf_item_kind */
	uint8_t async_safe;         /* the call is async-signal-safe (or not a call) */
	const char *name;           /* callee, or the flag as written */
	struct ref ref;             /* UI_FLAG: the flag; UI_THREAD_SIGNAL: the thread handle */
	const char *record, *field; /* flag identity: record+field, or NULL record and a global's USR in field */
};

struct ubf_scan {
	struct reach_set rs;
	bool resolved; /* a custom UBF whose every target has a body */
	VEC(struct ubf_item) items;
};

void ubf_scan_ubf(const struct model *m, const struct msite *s, struct ubf_scan *out);
void ubf_scan_free(struct ubf_scan *us);

/* ---- helpers ---- */

/* fn is reached only as the start routine of a thread the callback creates
 * (pthread_create, thrd_create): it does not run on the callback's thread. */
bool ubf_on_other_thread(const struct model *m, const struct reach_set *rs, uint32_t fn);

/* The site passes RB_NOGVL_UBF_ASYNC_SAFE (known flags only). */
bool site_ubf_async_safe(const struct msite *s);
/* "RUBY_UBF_IO" / "RUBY_UBF_PROCESS" as written, for messages. */
const char *site_ubf_spelling(const struct msite *s);
/* Name of the (first) callback or UBF target. */
const char *cbres_name(const struct model *m, const struct cbres *r);

/* ---- ubf-ignored (ubf_ignored_scan.c) ---- */

/* The proof that a custom UBF changes nothing the callback looks at: it only
 * sets flags nobody else reads and writes pipes the callback never waits on.
 * True when proved; *out holds the scans either way (ubf_ignored_free). */
struct ubf_ignored {
	struct ubf_scan us;
	struct cb_scan cs;
	bool have_us, have_cs;
	const struct ubf_item *first_flag, *first_pipe;
	bool waits_other; /* the callback waits on descriptors, only not on the pipe's */
};
bool ubf_ignored_check(const struct model *m, const struct msite *s, struct ubf_ignored *out);
void ubf_ignored_free(struct ubf_ignored *r);

#endif
