/* ubf_tables.c: what library calls do, for the unblocking-function rules,
 * answered from the library models (rules/libmodel.h). Flag values (WNOHANG,
 * F_SETLKW ...) come from the system headers this tool is built with
 * (libmodel.c), the same headers libclang evaluates the analysed code's
 * constants with.
 */
#include "ubf.h"
#include "libmodel.h"

#include <string.h>

#include "util.h"

/* Every table that was here is a property of the library models now
 * (rules/models/, one place for what a function does):
 *  - blocking: {bound, arg, wake, fd_wait, flag, flag2, on_fd}: calls that can
 *    sleep in the kernel waiting for an event. Sources: signal(7),
 *    "Interruption of system calls and library functions by signal handlers"
 *    (Linux man-pages 6.03), and each call's page for when it waits without
 *    bound (poll(2)/epoll_wait(2) timeout -1, select(2)/pselect(2) NULL
 *    timeout, waitpid(2) WNOHANG, recv(2) MSG_DONTWAIT, msgrcv(2) IPC_NOWAIT,
 *    flock(2) LOCK_NB, fcntl(2) F_SETLKW, lockf(3) F_LOCK); writes block only
 *    while a buffer is full and are bounded.
 *  - kinds: cpu (computes in memory: ISO C17 7.24/7.4/7.12/7.22, zlib's
 *    in-memory calls, pthread_mutex_lock/spin_lock "shall not return
 *    [EINTR]"), allocates, takes_lock, wakes_waiter, stdio, wakes_pipe
 *    (gvl-semantics.md 4.4 pattern B), thread_id, thread_signal and
 *    polls_interrupts (thread.c rb_thread_interrupted).
 *  - same_as: Ruby's header substitutes (ruby/subst.h, ruby/util.h,
 *    ruby/internal/memory.h: ruby_snprintf is snprintf ...).
 * Compiler builtins and atomics are the models of library "intrinsics"
 * (rules/models/intrinsics.yml); async-signal-safe functions are the models
 * with async_signal_safe: true. */

static const struct lib_model *exact_model(const char *name)
{
	const struct lib_model *lm = name ? model_find(name) : NULL;
	return lm && str_eq(lm->name, name) ? lm : NULL;
}

static bool has_kind(const char *name, unsigned kind)
{
	const struct lib_model *lm = exact_model(name);
	return lm && (lm->kinds & kind);
}

const char *ubf_libc_name(const char *name)
{
	if (!name || !str_starts(name, "ruby_"))
		return NULL;
	const struct lib_model *lm = exact_model(name);
	return lm ? lm->same_as : NULL;
}

const struct blocking_call *ubf_blocking_call(const char *name)
{
	const struct lib_model *lm = exact_model(name);
	return lm ? lm->blocking : NULL;
}

bool ubf_cpu_call(const char *name)
{
	return has_kind(name, LM_KIND_CPU);
}

bool ubf_builtin(const char *name)
{
	const struct lib_model *lm = name ? model_find(name) : NULL;
	return lm && str_eq(lm->library, "intrinsics");
}

bool ubf_async_signal_safe(const char *name)
{
	const struct lib_model *lm = model_find(name);
	return (lm && lm->async_signal_safe == 1) || ubf_builtin(name);
}

bool ubf_alloc_call(const char *name)
{
	return has_kind(name, LM_KIND_ALLOC);
}

bool ubf_lock_call(const char *name)
{
	return has_kind(name, LM_KIND_LOCK);
}

bool ubf_cond_signal_call(const char *name)
{
	return has_kind(name, LM_KIND_COND_SIGNAL);
}

bool ubf_stdio_call(const char *name)
{
	return has_kind(name, LM_KIND_STDIO);
}

bool ubf_pipe_write_call(const char *name)
{
	return has_kind(name, LM_KIND_PIPE_WRITE);
}

bool ubf_thread_id_call(const char *name)
{
	return has_kind(name, LM_KIND_THREAD_ID);
}

bool ubf_thread_signal_call(const char *name)
{
	return has_kind(name, LM_KIND_THREAD_SIGNAL);
}

bool ubf_polls_interrupts(const char *name)
{
	return has_kind(name, LM_KIND_POLLS_INTERRUPTS);
}
