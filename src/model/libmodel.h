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
 *   registers_handler: N       argument N is a handler that the functions naming
 *                              this one in calls_back.registered_by may run (the
 *                              linker adds those call edges, src/link.c)
 *   async_signal_safe: bool
 *   dequeues: bool             returns an item it takes out of a queue (an event,
 *                              a message): the caller alone has it, and it is
 *                              lost if the caller never handles it
 *                              (result-lost-on-interrupt)
 *   handle_arg: N              for per_handle: the handle argument (default 0)
 *   cheap: bool, size_arg: N   constant or small fixed cost (small-work-nogvl);
 *                              size_arg: the argument bounding the cost
 *   why, instead, null_arg: N  for thread_safe: never (mt-unsafe-call's message;
 *                              null_arg: unsafe only when that argument is NULL)
 *   blocking: {bound: always|never|fd|neg_timeout|null_timeout|flag_clear|arg_equals,
 *              arg: N, wake: signal_io|signal_process|condvar|semaphore|none,
 *              fd_wait: bool, flag: NAME, flag2: NAME, on_fd: bool}
 *                              may sleep in the kernel waiting for an event (the UBF
 *                              rules; flag names are system-header constants: WNOHANG,
 *                              IPC_NOWAIT, LOCK_NB, LOCK_UN, F_SETLKW, F_OFD_SETLKW, F_LOCK)
 *   kinds: [cpu, allocates, takes_lock, wakes_waiter, stdio, wakes_pipe, thread_id,
 *           thread_signal, polls_interrupts]   what the call does (the UBF scans)
 *   same_as: NAME              a header substitutes this function for NAME
 *                              (ruby_snprintf for snprintf): it does what NAME does
 *   thread_state: {kind: tls|identity|locale|sigmask, key_arg: N, sets: bool}
 *   lock: {op: acquire|release|wait, arg: N}   a mutex operation on argument N
 *   writes_arg: N              writes through pointer argument N
 *   process_change: {when: always|std_fd|std_stream|arg_not_null, arg: N, what: TEXT}
 *                              changes process-wide state (process-wide-state's
 *                              message: TEXT with {std}, {fd}, {fn} filled in)
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

/* ---- what the UBF, shared-state and thread-state rules read (model keys
 * blocking, kinds, same_as, thread_state, lock, writes_arg) ---- */

/* How a blocking call can be woken (what the fix should suggest). */
enum wake_kind {
	WAKE_SIGNAL_IO = 0,  /* a signal interrupts it (EINTR): RUBY_UBF_IO or a self-pipe UBF */
	WAKE_SIGNAL_PROCESS, /* waits for a child: RUBY_UBF_PROCESS */
	WAKE_CONDVAR,        /* a signal does not end it: a UBF that sets a flag and signals the condvar */
	WAKE_SEMAPHORE,      /* a UBF that sem_post()s */
	WAKE_NONE,           /* nothing wakes it from outside (pthread_join ...) */
};

/* When a blocking call waits without bound. */
enum bound_rule {
	BOUND_ALWAYS = 0,   /* finite by nature (a sleep, a file write, a resolver with timeouts) */
	BOUND_NEVER,        /* waits without bound (pthread_cond_wait, sem_wait, pause ...) */
	BOUND_FD,           /* unbounded on a blocking pipe/socket/terminal fd (read, recv, accept) */
	BOUND_NEG_TIMEOUT,  /* unbounded when argument `arg` is a negative constant (poll, epoll_wait) */
	BOUND_NULL_TIMEOUT, /* unbounded when argument `arg` is NULL (select, ppoll, kevent) */
	BOUND_FLAG_CLEAR,   /* unbounded when the constant argument `arg` lacks `flag` (WNOHANG ...) */
	BOUND_ARG_EQUALS,   /* unbounded when the constant argument `arg` equals `flag` (F_SETLKW ...) */
};

/* A call that can sleep in the kernel waiting for an event (model key
 * blocking: {bound, arg, wake, fd_wait, flag, flag2, on_fd}). */
struct blocking_call {
	const char *name;
	uint8_t bound;   /* enum bound_rule */
	int8_t arg;      /* the argument the rule looks at, -1 */
	uint8_t wake;    /* enum wake_kind */
	uint8_t fd_wait; /* waits on a file descriptor (a self-pipe or eventfd can wake it) */
	long flag;       /* BOUND_FLAG_CLEAR / BOUND_ARG_EQUALS value; a second accepted value in flag2 */
	long flag2;
	uint8_t on_fd; /* blocks on the descriptor it is given (io-fd-without-io-region) */
};

/* What a call does, for the UBF scans (model key kinds: [...]). */
enum lm_kind {
	LM_KIND_CPU = 1u << 0,              /* cpu: computes on memory, never waits for an event */
	LM_KIND_ALLOC = 1u << 1,            /* allocates: malloc family */
	LM_KIND_LOCK = 1u << 2,             /* takes_lock: acquires a lock or waits on one */
	LM_KIND_COND_SIGNAL = 1u << 3,      /* wakes_waiter: pthread_cond_signal ... */
	LM_KIND_STDIO = 1u << 4,            /* stdio: a FILE * stream function */
	LM_KIND_PIPE_WRITE = 1u << 5,       /* wakes_pipe: a write that wakes a thread waiting on the other end */
	LM_KIND_THREAD_ID = 1u << 6,        /* thread_id: which thread runs */
	LM_KIND_THREAD_SIGNAL = 1u << 7,    /* thread_signal: aimed at one thread */
	LM_KIND_POLLS_INTERRUPTS = 1u << 8, /* polls_interrupts: checks Ruby's interrupt flag */
};

enum thread_state_kind {
	TS_TLS_API = 1, /* thread-specific data: pthread_getspecific ... */
	TS_IDENTITY,    /* which thread runs: pthread_self, gettid ... */
	TS_LOCALE,      /* the thread's locale: uselocale, setlocale */
	TS_SIGMASK,     /* the thread's signal mask or signals aimed at it */
};

/* A function whose result or effect depends on the thread that calls it
 * (model key thread_state: {kind, key_arg, sets}). */
struct thread_state_fn {
	const char *name;
	int kind;    /* enum thread_state_kind */
	int key_arg; /* TS_TLS_API: the key argument (pthread_key_t), else -1 */
	bool sets;   /* TS_TLS_API: stores a value for the key */
	const char *source;
};

enum lock_op {
	LOCK_ACQUIRE = 1, /* lock, trylock, timedlock */
	LOCK_RELEASE,     /* unlock */
	LOCK_WAIT,        /* condition wait: needs the mutex held, releases and re-takes it */
};
/* A mutex operation (model key lock: {op, arg}). */
struct lock_fn {
	const char *name;
	int op;  /* enum lock_op */
	int arg; /* the mutex argument */
	const char *source;
};

/* When a call changes state the whole process shares (model key
 * process_change: {when, arg, what}). */
enum lm_change_when {
	LM_CHANGE_ALWAYS = 0,
	LM_CHANGE_STD_FD,       /* argument arg names fd 0, 1 or 2 */
	LM_CHANGE_STD_STREAM,   /* argument arg is stdin, stdout or stderr */
	LM_CHANGE_ARG_NOT_NULL, /* argument arg is not NULL */
};
struct process_change {
	uint8_t when; /* enum lm_change_when */
	int8_t arg;
	const char *what; /* "redirects {std} ({fn} onto fd {fd})": {std} stdin/stdout/stderr,
			     {fd} its number, {fn} the function */
};

/* A library function that writes through a pointer argument (model key
 * writes_arg: N). */
struct writer_fn {
	const char *name;
	int arg; /* the destination argument */
	const char *source;
};

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
	const char *name;    /* function name, or a prefix ending in '*' */
	const char *library; /* the file's `library:` */
	const char *source;
	const char *file; /* "rules/models/zlib.yml" or the user's path */
	unsigned line, col;
	bool user;           /* from a user's model file (--models, .nogvl-lint.yml models:) */
	bool overrides;      /* a user entry that replaced a built-in one */
	uint8_t thread_safe; /* enum lm_thread_safe */
	int8_t pure;         /* -1 unknown, 0, 1 */
	uint8_t blocks;      /* enum lm_blocks */
	int8_t ruby_alloc;   /* -1, 0, 1 */
	int8_t async_signal_safe;
	int8_t cheap;
	int8_t dequeues;         /* -1, 0, 1: returns an item it took out of a queue */
	int8_t size_arg;         /* -1 none */
	int8_t null_arg;         /* -1 none */
	int8_t handle_arg;       /* per_handle: the handle argument (default 0) */
	uint16_t process_state;  /* enum lm_process_state bits */
	uint8_t err_use;         /* enum lm_err_use */
	const char *err_channel; /* "openssl" ... */
	const char *err_read_with;
	const char *const *registered_by; /* calls_back: NULL-terminated, or NULL */
	int8_t registers_handler;         /* argument N is a handler that the calls naming this
				     function in calls_back.registered_by may run; -1 none */
	const char *why;
	const char *instead;
	const struct blocking_call *blocking;        /* blocking: {...}, or NULL */
	uint16_t kinds;                              /* enum lm_kind bits */
	const char *same_as;                         /* same_as: the function a header substitutes this one for */
	const struct thread_state_fn *thread_state;  /* or NULL */
	const struct lock_fn *lock;                  /* or NULL */
	const struct writer_fn *writer;              /* writes_arg, or NULL */
	const struct process_change *process_change; /* or NULL */
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
