/* state_knowledge.c: tables for the shared and thread state rules. Each table
 * is sorted by name (binary search; tests/unit/test_state_knowledge.c checks
 * the order) and every entry names its source. */
#include "state_knowledge.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "util.h"

static int by_name(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

#define FIND(table, name)                                                                              \
	((name) ? bsearch((name), (table), ARRAY_SIZE(table), sizeof((table)[0]), by_name) : NULL)

/* Functions not required to be thread-safe: the library models with
 * thread_safe: never (rules/models/posix-mt-unsafe.yml holds POSIX.1-2017
 * XSH 2.9.1's list, the SUSv3 entries POSIX.1-2008 removed and C11's
 * rand/srand; the same set backs clang-tidy's concurrency-mt-unsafe "posix"
 * list, linter-anchors.md 1.10). */
const struct lib_model *mt_unsafe_find(const char *name)
{
	const struct lib_model *lm = model_find(name);
	return lm && lm->thread_safe == LM_TS_NEVER ? lm : NULL;
}

/* Functions whose result or effect belongs to the calling thread
 * (gvl-semantics.md 2.7 and rule 13; design.md thread-local-state). */
static const struct thread_state_fn thread_state[] = {
	{"FlsGetValue", TS_TLS_API, 0, false, "Win32 fibersapi.h (fiber-local storage)"},
	{"FlsSetValue", TS_TLS_API, 0, true, "Win32 fibersapi.h (fiber-local storage)"},
	{"GetCurrentThread", TS_IDENTITY, -1, false, "Win32 processthreadsapi.h"},
	{"GetCurrentThreadId", TS_IDENTITY, -1, false, "Win32 processthreadsapi.h"},
	{"TlsGetValue", TS_TLS_API, 0, false, "Win32 processthreadsapi.h (thread-local storage)"},
	{"TlsSetValue", TS_TLS_API, 0, true, "Win32 processthreadsapi.h (thread-local storage)"},
	{"_configthreadlocale", TS_LOCALE, -1, false, "Microsoft CRT locale.h (per-thread locale switch)"},
	{"gettid", TS_IDENTITY, -1, false, "Linux gettid(2), glibc 2.30 unistd.h"},
	{"pthread_getname_np", TS_IDENTITY, -1, false, "glibc pthread.h (thread name)"},
	{"pthread_getspecific", TS_TLS_API, 0, false, "POSIX.1-2017 pthread_getspecific (thread-specific data)"},
	{"pthread_self", TS_IDENTITY, -1, false, "POSIX.1-2017 pthread_self"},
	{"pthread_setname_np", TS_IDENTITY, -1, false, "glibc pthread.h (thread name)"},
	{"pthread_setspecific", TS_TLS_API, 0, true, "POSIX.1-2017 pthread_setspecific (thread-specific data)"},
	{"pthread_sigmask", TS_SIGMASK, -1, false, "POSIX.1-2017 pthread_sigmask (the calling thread's mask)"},
	{"raise", TS_SIGMASK, -1, false, "POSIX.1-2017 raise (\"the signal shall be sent to the calling thread\")"},
	{"rb_internal_thread_specific_get", TS_TLS_API, 1, false, "Ruby thread.h (per-Ruby-thread storage)"},
	{"rb_internal_thread_specific_set", TS_TLS_API, 1, true, "Ruby thread.h (per-Ruby-thread storage)"},
	{"rb_nativethread_self", TS_IDENTITY, -1, false, "Ruby thread_native.h (the native thread id)"},
	{"setlocale", TS_LOCALE, -1, false,
	 "POSIX.1-2017 setlocale/uselocale (a thread that called uselocale has its own locale)"},
	{"sigpending", TS_SIGMASK, -1, false, "POSIX.1-2017 sigpending (signals pending for the calling thread)"},
	{"sigprocmask", TS_SIGMASK, -1, false,
	 "POSIX.1-2017 sigprocmask (unspecified in a multithreaded process; glibc: the calling thread's mask)"},
	{"sigsuspend", TS_SIGMASK, -1, false, "POSIX.1-2017 sigsuspend (replaces the calling thread's mask)"},
	{"sigtimedwait", TS_SIGMASK, -1, false, "POSIX.1-2017 sigwaitinfo/sigtimedwait (signals blocked in the calling thread)"},
	{"sigwait", TS_SIGMASK, -1, false, "POSIX.1-2017 sigwait (signals blocked in the calling thread)"},
	{"sigwaitinfo", TS_SIGMASK, -1, false, "POSIX.1-2017 sigwaitinfo (signals blocked in the calling thread)"},
	{"thrd_current", TS_IDENTITY, -1, false, "C11 7.26.5.2 thrd_current"},
	{"tss_get", TS_TLS_API, 0, false, "C11 7.26.6.3 tss_get (thread-specific storage)"},
	{"tss_set", TS_TLS_API, 0, true, "C11 7.26.6.4 tss_set (thread-specific storage)"},
	{"uselocale", TS_LOCALE, -1, false, "POSIX.1-2017 uselocale (sets the calling thread's locale)"},
};

const struct thread_state_fn *thread_state_find(const char *name)
{
	return FIND(thread_state, name);
}

const char *thread_state_kind_text(int kind)
{
	switch (kind) {
	case TS_TLS_API: return "thread-specific data";
	case TS_IDENTITY: return "the running thread's identity";
	case TS_LOCALE: return "the thread's locale";
	case TS_SIGMASK: return "the thread's signal mask";
	default: return "thread state";
	}
}

/* Per-thread error channels by their model name (error_channel: {name: ...}). */
static const char *const channel_names[] = {
	[ERRCH_OPENSSL] = "openssl", [ERRCH_LIBGIT2] = "libgit2", [ERRCH_DLFCN] = "dlfcn",
	[ERRCH_H_ERRNO] = "h_errno", [ERRCH_WIN32] = "win32",    [ERRCH_LIBXML2] = "libxml2",
};

static int channel_of(const char *name)
{
	for (int i = 1; i < (int)ARRAY_SIZE(channel_names); i++)
		if (str_eq(channel_names[i], name))
			return i;
	return 0;
}

/* Reads (and clears) of per-thread error channels: model entries with
 * error_channel use reads or clears. errno is deliberately not one: Ruby
 * carries it back to the caller in every path (gvl-semantics.md 2.4). */
bool err_channel_find(const char *name, struct err_channel_fn *out)
{
	const struct lib_model *lm = model_find(name);
	if (!lm || (lm->err_use != LM_ERR_READS && lm->err_use != LM_ERR_CLEARS))
		return false;
	int ch = channel_of(lm->err_channel);
	if (!ch)
		return false;
	if (out)
		*out = (struct err_channel_fn){lm->name, ch, lm->err_use == LM_ERR_CLEARS, lm->source};
	return true;
}

const char *err_channel_text(int channel)
{
	switch (channel) {
	case ERRCH_OPENSSL: return "OpenSSL's per-thread error queue";
	case ERRCH_LIBGIT2: return "libgit2's per-thread last error";
	case ERRCH_DLFCN: return "dlerror's per-thread message";
	case ERRCH_H_ERRNO: return "the per-thread h_errno";
	case ERRCH_WIN32: return "the thread's Win32 last-error code";
	case ERRCH_LIBXML2: return "libxml2's per-thread last error";
	default: return "a per-thread error channel";
	}
}

/* Name prefixes of OpenSSL's public API (OpenSSL's include/openssl/ *.h), for
 * calls whose header was not seen (buildless parses without OpenSSL headers). */
static const char *const openssl_prefixes[] = {
	"ASN1_", "BIO_", "BN_", "CMS_", "CONF_", "CRYPTO_", "DH_", "DSA_", "ECDH_", "ECDSA_", "EC_",
	"ENGINE_", "ERR_", "EVP_", "HMAC", "MD5", "OBJ_", "OCSP_", "OPENSSL_", "OSSL_", "PEM_", "PKCS12_",
	"PKCS5_", "PKCS7_", "RAND_", "RSA_", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512", "SSL_",
	"TLS_", "X509", "d2i_", "i2d_",
};

static bool has_prefix(const char *name, const char *const *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (str_starts(name, p[i]))
			return true;
	return false;
}

bool err_channel_producer(int channel, const char *name, const char *decl_file)
{
	static const char *const dl[] = {"dladdr", "dlclose", "dlinfo", "dlmopen", "dlopen", "dlsym", "dlvsym"};
	static const char *const resolver[] = {"getaddrinfo", "gethostbyaddr", "gethostbyaddr_r", "gethostbyname",
					       "gethostbyname2", "gethostbyname2_r", "gethostbyname_r", "gethostent",
					       "getipnodebyaddr", "getipnodebyname"};
	if (!name)
		return false;
	const struct lib_model *lm = model_find(name);
	if (lm && lm->err_use == LM_ERR_PRODUCES && channel_of(lm->err_channel) == channel)
		return true;
	switch (channel) {
	case ERRCH_OPENSSL:
		if (decl_file && strstr(decl_file, "/openssl/"))
			return true;
		return has_prefix(name, openssl_prefixes, ARRAY_SIZE(openssl_prefixes));
	case ERRCH_LIBGIT2:
		if (decl_file && strstr(decl_file, "/git2"))
			return true;
		return str_starts(name, "git_");
	case ERRCH_DLFCN:
		return str_in_sorted(name, dl, ARRAY_SIZE(dl));
	case ERRCH_H_ERRNO:
		return str_in_sorted(name, resolver, ARRAY_SIZE(resolver)) || str_starts(name, "res_");
	case ERRCH_WIN32:
		if (decl_file && (strstr(decl_file, "windows") || strstr(decl_file, "winsock") ||
				  strstr(decl_file, "winbase") || strstr(decl_file, "api.h")))
			return true;
		return str_starts(name, "WSA") || (name[0] >= 'A' && name[0] <= 'Z' && !strchr(name, '_'));
	case ERRCH_LIBXML2:
		if (decl_file && strstr(decl_file, "/libxml/"))
			return true;
		return str_starts(name, "xml") || str_starts(name, "html");
	default:
		return false;
	}
}

/* Mutex operations. POSIX.1-2017 pthread_mutex_lock ("If the mutex type is
 * PTHREAD_MUTEX_ERRORCHECK ... a thread attempts to unlock a mutex which it
 * has not locked, an error shall be returned"; undefined for the default
 * type), pthread_rwlock_*, pthread_spin_*, pthread_cond_wait ("shall be
 * called with mutex locked by the calling thread"), flockfile ("the calling
 * thread ... owner"); C11 7.26.4 mtx_*, 7.26.3 cnd_wait; Ruby
 * thread_native.h; Win32 synchapi.h. Semaphores are not here: any thread
 * may post one. */
static const struct lock_fn lock_fns[] = {
	{"AcquireSRWLockExclusive", LOCK_ACQUIRE, 0, "Win32 synchapi.h"},
	{"AcquireSRWLockShared", LOCK_ACQUIRE, 0, "Win32 synchapi.h"},
	{"EnterCriticalSection", LOCK_ACQUIRE, 0, "Win32 synchapi.h"},
	{"LeaveCriticalSection", LOCK_RELEASE, 0, "Win32 synchapi.h"},
	{"ReleaseSRWLockExclusive", LOCK_RELEASE, 0, "Win32 synchapi.h"},
	{"ReleaseSRWLockShared", LOCK_RELEASE, 0, "Win32 synchapi.h"},
	{"SleepConditionVariableCS", LOCK_WAIT, 1, "Win32 synchapi.h"},
	{"SleepConditionVariableSRW", LOCK_WAIT, 1, "Win32 synchapi.h"},
	{"TryAcquireSRWLockExclusive", LOCK_ACQUIRE, 0, "Win32 synchapi.h"},
	{"TryAcquireSRWLockShared", LOCK_ACQUIRE, 0, "Win32 synchapi.h"},
	{"TryEnterCriticalSection", LOCK_ACQUIRE, 0, "Win32 synchapi.h"},
	{"cnd_timedwait", LOCK_WAIT, 1, "C11 7.26.3.5"},
	{"cnd_wait", LOCK_WAIT, 1, "C11 7.26.3.6"},
	{"flockfile", LOCK_ACQUIRE, 0, "POSIX.1-2017 flockfile"},
	{"ftrylockfile", LOCK_ACQUIRE, 0, "POSIX.1-2017 flockfile"},
	{"funlockfile", LOCK_RELEASE, 0, "POSIX.1-2017 flockfile"},
	{"mtx_lock", LOCK_ACQUIRE, 0, "C11 7.26.4.3"},
	{"mtx_timedlock", LOCK_ACQUIRE, 0, "C11 7.26.4.4"},
	{"mtx_trylock", LOCK_ACQUIRE, 0, "C11 7.26.4.5"},
	{"mtx_unlock", LOCK_RELEASE, 0, "C11 7.26.4.6"},
	{"pthread_cond_timedwait", LOCK_WAIT, 1, "POSIX.1-2017 pthread_cond_timedwait"},
	{"pthread_cond_wait", LOCK_WAIT, 1, "POSIX.1-2017 pthread_cond_wait"},
	{"pthread_mutex_lock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_mutex_lock"},
	{"pthread_mutex_timedlock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_mutex_timedlock"},
	{"pthread_mutex_trylock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_mutex_lock"},
	{"pthread_mutex_unlock", LOCK_RELEASE, 0, "POSIX.1-2017 pthread_mutex_lock"},
	{"pthread_rwlock_rdlock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_rwlock_rdlock"},
	{"pthread_rwlock_timedrdlock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_rwlock_timedrdlock"},
	{"pthread_rwlock_timedwrlock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_rwlock_timedwrlock"},
	{"pthread_rwlock_tryrdlock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_rwlock_rdlock"},
	{"pthread_rwlock_trywrlock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_rwlock_wrlock"},
	{"pthread_rwlock_unlock", LOCK_RELEASE, 0, "POSIX.1-2017 pthread_rwlock_unlock"},
	{"pthread_rwlock_wrlock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_rwlock_wrlock"},
	{"pthread_spin_lock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_spin_lock"},
	{"pthread_spin_trylock", LOCK_ACQUIRE, 0, "POSIX.1-2017 pthread_spin_lock"},
	{"pthread_spin_unlock", LOCK_RELEASE, 0, "POSIX.1-2017 pthread_spin_unlock"},
	{"rb_native_cond_timedwait", LOCK_WAIT, 1, "Ruby thread_native.h"},
	{"rb_native_cond_wait", LOCK_WAIT, 1, "Ruby thread_native.h"},
	{"rb_native_mutex_lock", LOCK_ACQUIRE, 0, "Ruby thread_native.h"},
	{"rb_native_mutex_trylock", LOCK_ACQUIRE, 0, "Ruby thread_native.h"},
	{"rb_native_mutex_unlock", LOCK_RELEASE, 0, "Ruby thread_native.h"},
	{"rb_nativethread_lock_lock", LOCK_ACQUIRE, 0, "Ruby thread_native.h"},
	{"rb_nativethread_lock_unlock", LOCK_RELEASE, 0, "Ruby thread_native.h"},
};

const struct lock_fn *lock_fn_find(const char *name)
{
	return FIND(lock_fns, name);
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	if (k > n)
		return false;
	for (size_t i = 0; i < k; i++) {
		char a = s[n - k + i], b = suffix[i];
		if (a >= 'A' && a <= 'Z')
			a = (char)(a - 'A' + 'a');
		if (a != b)
			return false;
	}
	return true;
}

/* The last identifier of an argument's text ("&q->mu" -> "mu"). */
static bool names_a_mutex(const char *text)
{
	if (!text)
		return false;
	size_t n = strlen(text);
	while (n && !((text[n - 1] >= 'a' && text[n - 1] <= 'z') || (text[n - 1] >= 'A' && text[n - 1] <= 'Z') ||
		      (text[n - 1] >= '0' && text[n - 1] <= '9') || text[n - 1] == '_'))
		n--;
	size_t b = n;
	while (b && ((text[b - 1] >= 'a' && text[b - 1] <= 'z') || (text[b - 1] >= 'A' && text[b - 1] <= 'Z') ||
		     (text[b - 1] >= '0' && text[b - 1] <= '9') || text[b - 1] == '_'))
		b--;
	char id[64];
	size_t len = n - b < sizeof(id) - 1 ? n - b : sizeof(id) - 1;
	for (size_t i = 0; i < len; i++) {
		char c = text[b + i];
		id[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	id[len] = '\0';
	return strstr(id, "mutex") || strstr(id, "lock") || strstr(id, "mtx") || strcmp(id, "mu") == 0 ||
	       str_ends(id, "_mu") || str_starts(id, "mu_");
}

const struct lock_fn *lock_fn_classify(const char *name, const char *const *args, unsigned nargs,
				       struct lock_fn *buf)
{
	const struct lock_fn *lf = lock_fn_find(name);
	if (lf || !name)
		return lf;
	static const char *const src = "name pattern: a library's mutex wrapper (gRPC gpr_mu_*, libuv uv_mutex_*, "
				       "GLib g_mutex_*, APR, OpenSSL CRYPTO_THREAD_*, SQLite sqlite3_mutex_*)";
	buf->name = name;
	buf->source = src;
	if (str_eq(name, "sqlite3_mutex_enter") || str_eq(name, "sqlite3_mutex_try")) {
		buf->op = LOCK_ACQUIRE;
		buf->arg = 0;
		return buf;
	}
	if (str_eq(name, "sqlite3_mutex_leave")) {
		buf->op = LOCK_RELEASE;
		buf->arg = 0;
		return buf;
	}
	/* condition waits: (cond, mutex, ...) */
	if (ends_with_ci(name, "cv_wait") || ends_with_ci(name, "cond_wait") || ends_with_ci(name, "cond_timedwait") ||
	    ends_with_ci(name, "cond_wait_until") || ends_with_ci(name, "cond_wait_timeout")) {
		if (nargs < 2 || !names_a_mutex(args[1]))
			return NULL;
		buf->op = LOCK_WAIT;
		buf->arg = 1;
		return buf;
	}
	int op = 0;
	if (ends_with_ci(name, "unlock"))
		op = LOCK_RELEASE;
	else if (ends_with_ci(name, "lock") && !ends_with_ci(name, "block") && !ends_with_ci(name, "flock") &&
		 !ends_with_ci(name, "mlock") && !ends_with_ci(name, "clock"))
		op = LOCK_ACQUIRE;
	if (!op || nargs < 1 || !names_a_mutex(args[0]))
		return NULL;
	buf->op = op;
	buf->arg = 0;
	return buf;
}

/* Library functions that store through a pointer argument (C11 7.21 stdio.h,
 * 7.22 stdlib.h, 7.24 string.h, 7.27 time.h; POSIX.1-2017 for the rest;
 * Ruby's memory.h wraps memcpy). */
static const struct writer_fn writers[] = {
	{"asctime_r", 1, "POSIX.1-2017 asctime_r"},
	{"bzero", 0, "POSIX.1-2001 bzero"},
	{"clock_gettime", 1, "POSIX.1-2017 clock_gettime"},
	{"ctime_r", 1, "POSIX.1-2017 ctime_r"},
	{"explicit_bzero", 0, "glibc 2.25 string.h"},
	{"fgets", 0, "C11 7.21.7.2"},
	{"fread", 0, "C11 7.21.8.1"},
	{"fstat", 1, "POSIX.1-2017 fstat"},
	{"getcwd", 0, "POSIX.1-2017 getcwd"},
	{"getentropy", 0, "POSIX.1-2024 getentropy"},
	{"getrandom", 0, "Linux getrandom(2)"},
	{"gettimeofday", 0, "POSIX.1-2017 gettimeofday"},
	{"gmtime_r", 1, "POSIX.1-2017 gmtime_r"},
	{"inet_ntop", 2, "POSIX.1-2017 inet_ntop"},
	{"inet_pton", 2, "POSIX.1-2017 inet_pton"},
	{"localtime_r", 1, "POSIX.1-2017 localtime_r"},
	{"lstat", 1, "POSIX.1-2017 lstat"},
	{"mbstowcs", 0, "C11 7.22.8.1"},
	{"memccpy", 0, "POSIX.1-2017 memccpy"},
	{"memcpy", 0, "C11 7.24.2.1"},
	{"memmove", 0, "C11 7.24.2.2"},
	{"memset", 0, "C11 7.24.6.1"},
	{"pread", 1, "POSIX.1-2017 pread"},
	{"qsort", 0, "C11 7.22.5.2 (sorts in place)"},
	{"read", 1, "POSIX.1-2017 read"},
	{"readlink", 1, "POSIX.1-2017 readlink"},
	{"recv", 1, "POSIX.1-2017 recv"},
	{"recvfrom", 1, "POSIX.1-2017 recvfrom"},
	{"ruby_nonempty_memcpy", 0, "Ruby ruby/internal/memory.h (`#define memcpy ruby_nonempty_memcpy`)"},
	{"ruby_snprintf", 0, "Ruby ruby/subst.h (`#define snprintf ruby_snprintf`)"},
	{"ruby_vsnprintf", 0, "Ruby ruby/subst.h (`#define vsnprintf ruby_vsnprintf`)"},
	{"snprintf", 0, "C11 7.21.6.5"},
	{"sprintf", 0, "C11 7.21.6.6"},
	{"stat", 1, "POSIX.1-2017 stat"},
	{"stpcpy", 0, "POSIX.1-2017 stpcpy"},
	{"stpncpy", 0, "POSIX.1-2017 stpncpy"},
	{"strcat", 0, "C11 7.24.3.1"},
	{"strcpy", 0, "C11 7.24.2.3"},
	{"strerror_r", 1, "POSIX.1-2017 strerror_r"},
	{"strftime", 0, "C11 7.27.3.5"},
	{"strncat", 0, "C11 7.24.3.2"},
	{"strncpy", 0, "C11 7.24.2.4"},
	{"strxfrm", 0, "C11 7.24.4.5"},
	{"time", 0, "C11 7.27.2.4"},
	{"uname", 0, "POSIX.1-2017 uname"},
	{"vsnprintf", 0, "C11 7.21.6.12"},
	{"vsprintf", 0, "C11 7.21.6.13"},
	{"wcstombs", 0, "C11 7.22.8.2"},
};

const struct writer_fn *writer_fn_find(const char *name)
{
	return FIND(writers, name);
}

const char *state_knowledge_unsorted(void)
{
#define CHECK(table)                                                                   \
	for (size_t i = 1; i < ARRAY_SIZE(table); i++)                                 \
		if (strcmp((table)[i - 1].name, (table)[i].name) >= 0)                 \
			return (table)[i].name;
	CHECK(thread_state)
	CHECK(lock_fns)
	CHECK(writers)
#undef CHECK
	for (size_t i = 1; i < ARRAY_SIZE(openssl_prefixes); i++)
		if (strcmp(openssl_prefixes[i - 1], openssl_prefixes[i]) >= 0)
			return openssl_prefixes[i];
	return NULL;
}
