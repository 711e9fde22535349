/* libmodel.h: what library functions do, as data (rules/models/<library>.yml).
 *
 * The models ship inside the binary (rules/embed_models.cmake); users add or
 * override entries with `models:` in .nogvl-lint.yml or --models FILE. Every
 * entry names its source. The offload gates and the rules query them by
 * function name:
 *
 *     const struct lib_model *lm = model_find("deflate");
 *     if (lm && lm->thread_safe == TS_PER_HANDLE) ...
 *
 * A model file:
 *
 *     library: zlib
 *     functions:
 *       deflate: {thread_safe: per_handle, source: "zlib FAQ 'Is zlib thread-safe?'"}
 *       "__builtin_*": {...}        # a name ending in '*' matches a prefix
 *
 * Per function (every key optional except source):
 *   thread_safe: always | per_handle | never   (absent: not known, never "safe")
 *   pure: bool                 no side effects beyond its result (a pure function
 *                              without thread_safe counts as thread_safe: always)
 *   blocks: no | bounded | interruptible | retries_eintr | uninterruptible
 *                              (bounded: waits at most a time the caller gives)
 *   ruby_alloc: bool           allocates through Ruby's allocator (ruby_xmalloc)
 *   error_channel: {name: openssl, use: produces|reads|clears, read_with: ERR_get_error}
 *   process_state: [fd_table, cwd, umask, environment, locale, signals, stdio]
 *   calls_back: {registered_by: [sqlite3_busy_handler, ...]}
 *   async_signal_safe: bool
 *   handle_arg: N              for per_handle: the handle argument (default 0)
 *   cheap: bool, size_arg: N   constant or small fixed cost (small-work-nogvl);
 *                              size_arg: the argument bounding the cost
 *   why, instead, null_arg: N  for thread_safe: never (mt-unsafe-call's message;
 *                              null_arg: unsafe only when that argument is NULL)
 *   source: text               man page section, library documentation URL/section
 *
 * Bad model files (unknown keys, wrong types, duplicate functions, aliases,
 * nesting deeper than MODEL_MAX_DEPTH, more than MODEL_MAX_BYTES) are
 * configuration errors reported as "path:line:col: what".
 */
#ifndef NOGVL_LIBMODEL_H
#define NOGVL_LIBMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MODEL_MAX_BYTES (64u * 1024)
#define MODEL_MAX_DEPTH 64
#define MODEL_MAX_NODES 20000

enum lm_thread_safe {
	LM_TS_UNKNOWN = 0,
	LM_TS_ALWAYS,
	LM_TS_PER_HANDLE, /* safe while each handle is used by one thread at a time */
	LM_TS_NEVER,
};

enum lm_blocks {
	LM_BLOCKS_UNKNOWN = 0,
	LM_BLOCKS_NO,
	LM_BLOCKS_BOUNDED,         /* waits at most a time the caller gives (a timeout, a sleep length) */
	LM_BLOCKS_INTERRUPTIBLE,   /* a signal interrupts the wait (EINTR returned) */
	LM_BLOCKS_RETRIES_EINTR,   /* the library restarts the wait on EINTR: a signal does not stop it */
	LM_BLOCKS_UNINTERRUPTIBLE, /* nothing short of its own timeout ends the wait */
};

enum lm_process_state {
	LM_PS_FD_TABLE = 1u << 0,
	LM_PS_CWD = 1u << 1,
	LM_PS_UMASK = 1u << 2,
	LM_PS_ENVIRONMENT = 1u << 3,
	LM_PS_LOCALE = 1u << 4,
	LM_PS_SIGNALS = 1u << 5,
	LM_PS_STDIO = 1u << 6,
};

enum lm_err_use {
	LM_ERR_NONE = 0,
	LM_ERR_PRODUCES, /* a failure leaves its error on the channel */
	LM_ERR_READS,
	LM_ERR_CLEARS,
};

struct lib_model {
	const char *name;      /* function name, or a prefix ending in '*' */
	const char *library;   /* the file's `library:` */
	const char *source;
	const char *file;      /* "rules/models/zlib.yml" or the user's path */
	unsigned line, col;
	bool user;             /* from a user's model file (--models, .nogvl-lint.yml models:) */
	bool overrides;        /* a user entry that replaced a built-in one */
	uint8_t thread_safe;   /* enum lm_thread_safe */
	int8_t pure;           /* -1 unknown, 0, 1 */
	uint8_t blocks;        /* enum lm_blocks */
	int8_t ruby_alloc;     /* -1, 0, 1 */
	int8_t async_signal_safe;
	int8_t cheap;
	int8_t size_arg;       /* -1 none */
	int8_t null_arg;       /* -1 none */
	int8_t handle_arg;     /* per_handle: the handle argument (default 0) */
	uint16_t process_state; /* enum lm_process_state bits */
	uint8_t err_use;       /* enum lm_err_use */
	const char *err_channel; /* "openssl" ... */
	const char *err_read_with;
	const char *const *registered_by; /* calls_back: NULL-terminated, or NULL */
	const char *why;
	const char *instead;
};

/* Thread safety as the gates use it: a pure function (no side effects, no
 * state) with no thread_safe of its own is safe on any thread. */
static inline int lm_thread_safety(const struct lib_model *lm)
{
	if (!lm)
		return LM_TS_UNKNOWN;
	if (lm->thread_safe == LM_TS_UNKNOWN && lm->pure == 1)
		return LM_TS_ALWAYS;
	return lm->thread_safe;
}

/* The model of fn (exact name, then the longest matching prefix entry), or
 * NULL. Loads the built-in models on first use. */
const struct lib_model *model_find(const char *fn);
/* "rules/models/zlib.yml:12" (static buffer per call site: copy it). */
const char *model_where(const struct lib_model *lm, char *buf, size_t n);

const char *lm_thread_safe_name(int ts);
const char *lm_blocks_name(int b);
const char *lm_process_state_name(unsigned bit);

/* Loads the built-in models (idempotent). Returns 0, or -1 with *err set
 * (a broken built-in file: a bug this build's tests catch). */
int models_init(char **err);
/* Adds a user model file on top of the built-ins. Returns 0, or -1 with
 * *err = "path:line:col: what is wrong". */
int models_load_file(const char *path, char **err);
/* Same for text as if read from path (tests, fuzzing). */
int models_load_text(const char *path, const char *text, size_t len, bool user, char **err);
/* Drops every model (the next query reloads the built-ins). */
void models_reset(void);
/* How many user entries are loaded. */
size_t models_user_count(void);

/* Every entry, for --list-models style output and tests; n set to the count. */
const struct lib_model *const *models_all(size_t *n);

#endif
