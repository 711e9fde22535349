/* state_knowledge.h: what library functions do to shared and per-thread
 * state, from the library models (rules/models/: thread_state, lock,
 * writes_arg, error_channel, thread_safe: never; the record types are in
 * libmodel.h). Used by the shared/thread state gates (state_gates.c) and
 * their rules: shared-mutable-state, thread-local-state, mt-unsafe-call,
 * lock-across-boundary. */
#ifndef NOGVL_STATE_KNOWLEDGE_H
#define NOGVL_STATE_KNOWLEDGE_H

#include <stdbool.h>

#include "libmodel.h"

/* A library function that is not required to be thread-safe: its model
 * (thread_safe: never) with name, why, instead (a reentrant replacement, or
 * NULL), null_arg (>= 0: unsafe only when this argument is NULL, ctermid(NULL))
 * and source. */
struct lib_model;
const struct lib_model *mt_unsafe_find(const char *name);

/* A function whose result or effect depends on the thread that calls it. */
const struct thread_state_fn *thread_state_find(const char *name);
const char *thread_state_kind_text(int kind);

/* Per-thread error channels: what libraries leave behind for the thread
 * that made the failing call. */
enum err_channel {
	ERRCH_OPENSSL = 1,
	ERRCH_LIBGIT2,
	ERRCH_DLFCN,
	ERRCH_H_ERRNO,
	ERRCH_WIN32,
	ERRCH_LIBXML2,
};
struct err_channel_fn {
	const char *name;
	int channel; /* enum err_channel */
	bool clears; /* empties the channel (ERR_clear_error) rather than reading it */
	const char *source;
};
/* Whether name reads or clears a per-thread error channel (its model's
 * error_channel use); fills *out (may be NULL). */
bool err_channel_find(const char *name, struct err_channel_fn *out);
/* "OpenSSL's per-thread error queue" ... */
const char *err_channel_text(int channel);
/* Whether a call of `name` declared in decl_file (may be NULL) can leave an
 * error on `channel` (an OpenSSL function for the OpenSSL queue ...). */
bool err_channel_producer(int channel, const char *name, const char *decl_file);

/* A mutex operation (pthread_mutex_lock ...). */
const struct lock_fn *lock_fn_find(const char *name);
/* lock_fn_find, then name patterns for the lock wrappers of other libraries
 * (gRPC gpr_mu_lock, libuv uv_mutex_lock, GLib g_mutex_lock, APR
 * apr_thread_mutex_lock, OpenSSL CRYPTO_THREAD_write_lock (SQLite's sqlite3_mutex_enter is a model)
 * ...): a name ending in lock/unlock whose mutex argument is named like one.
 * args: the call's argument texts (may be NULL). Fills *buf for a pattern
 * match. */
const struct lock_fn *lock_fn_classify(const char *name, const char *const *args, unsigned nargs, struct lock_fn *buf);

/* A library function that writes through a pointer argument. */
const struct writer_fn *writer_fn_find(const char *name);

/* For the unit test: the first OpenSSL name prefix out of order, or NULL. */
const char *state_knowledge_unsorted(void);

#endif
