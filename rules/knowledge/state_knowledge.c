/* state_knowledge.c: what the shared and thread state rules know about
 * library functions, from the library models (rules/libmodel.h: thread_state,
 * lock, writes_arg, error_channel, thread_safe: never), plus name patterns for
 * calls whose headers were not seen. */
#include "state_knowledge.h"

#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "util.h"

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

/* The library model of exactly this function (not a prefix entry). */
static const struct lib_model *exact_model(const char *name)
{
	const struct lib_model *lm = name ? model_find(name) : NULL;
	return lm && str_eq(lm->name, name) ? lm : NULL;
}

/* Functions whose result or effect belongs to the calling thread
 * (gvl-semantics.md 2.7 and rule 13; design.md thread-local-state): the
 * models' thread_state property (POSIX.1-2017 pthread_getspecific/
 * pthread_self/pthread_sigmask/sigwait ..., C11 tss_get, tss_set, thrd_current, Linux
 * gettid(2), Win32 TlsGetValue, FlsGetValue, Ruby's rb_internal_thread_specific_*). */
const struct thread_state_fn *thread_state_find(const char *name)
{
	const struct lib_model *lm = exact_model(name);
	return lm ? lm->thread_state : NULL;
}

const char *thread_state_kind_text(int kind)
{
	switch (kind) {
	case TS_TLS_API:
		return "thread-specific data";
	case TS_IDENTITY:
		return "the running thread's identity";
	case TS_LOCALE:
		return "the thread's locale";
	case TS_SIGMASK:
		return "the thread's signal mask";
	default:
		return "thread state";
	}
}

/* Per-thread error channels by their model name (error_channel: {name: ...}). */
static const char *const channel_names[] = {
	[ERRCH_OPENSSL] = "openssl", [ERRCH_LIBGIT2] = "libgit2", [ERRCH_DLFCN] = "dlfcn",
	[ERRCH_H_ERRNO] = "h_errno", [ERRCH_WIN32] = "win32",     [ERRCH_LIBXML2] = "libxml2",
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
	case ERRCH_OPENSSL:
		return "OpenSSL's per-thread error queue";
	case ERRCH_LIBGIT2:
		return "libgit2's per-thread last error";
	case ERRCH_DLFCN:
		return "dlerror's per-thread message";
	case ERRCH_H_ERRNO:
		return "the per-thread h_errno";
	case ERRCH_WIN32:
		return "the thread's Win32 last-error code";
	case ERRCH_LIBXML2:
		return "libxml2's per-thread last error";
	default:
		return "a per-thread error channel";
	}
}

/* Name prefixes of OpenSSL's public API (OpenSSL's include/openssl/ *.h), for
 * calls whose header was not seen (buildless parses without OpenSSL headers). */
static const char *const openssl_prefixes[] = {
	"ASN1_",    "BIO_",   "BN_",     "CMS_",    "CONF_",  "CRYPTO_", "DH_",   "DSA_", "ECDH_",
	"ECDSA_",   "EC_",    "ENGINE_", "ERR_",    "EVP_",   "HMAC",    "MD5",   "OBJ_", "OCSP_",
	"OPENSSL_", "OSSL_",  "PEM_",    "PKCS12_", "PKCS5_", "PKCS7_",  "RAND_", "RSA_", "SHA1",
	"SHA224",   "SHA256", "SHA384",  "SHA512",  "SSL_",   "TLS_",    "X509",  "d2i_", "i2d_",
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
	static const char *const resolver[] = {
		"getaddrinfo",      "gethostbyaddr",   "gethostbyaddr_r", "gethostbyname",   "gethostbyname2",
		"gethostbyname2_r", "gethostbyname_r", "gethostent",      "getipnodebyaddr", "getipnodebyname"};
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

/* Mutex operations: the models' lock property. POSIX.1-2017
 * pthread_mutex_lock ("If the mutex type is PTHREAD_MUTEX_ERRORCHECK ... a
 * thread attempts to unlock a mutex which it has not locked, an error shall
 * be returned"; undefined for the default type), pthread_rwlock_*,
 * pthread_spin_*, pthread_cond_wait ("shall be called with mutex locked by
 * the calling thread"), flockfile ("the calling thread ... owner"); C11
 * 7.26.4 mtx_*, 7.26.3 cnd_wait; Ruby thread_native.h; Win32 synchapi.h.
 * Semaphores are not locks: any thread may post one. */
const struct lock_fn *lock_fn_find(const char *name)
{
	const struct lib_model *lm = exact_model(name);
	return lm ? lm->lock : NULL;
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

const struct lock_fn *lock_fn_classify(const char *name, const char *const *args, unsigned nargs, struct lock_fn *buf)
{
	const struct lock_fn *lf = lock_fn_find(name);
	if (lf || !name)
		return lf;
	static const char *const src = "name pattern: a library's mutex wrapper (gRPC gpr_mu_*, libuv uv_mutex_*, "
				       "GLib g_mutex_*, APR, OpenSSL CRYPTO_THREAD_*)";
	buf->name = name;
	buf->source = src;
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

/* Library functions that store through a pointer argument: the models'
 * writes_arg property (C11 7.21 stdio.h, 7.22 stdlib.h, 7.24 string.h, 7.27
 * time.h; POSIX.1-2017 for the rest; Ruby's memory.h wraps memcpy). */
const struct writer_fn *writer_fn_find(const char *name)
{
	const struct lib_model *lm = exact_model(name);
	return lm ? lm->writer : NULL;
}

const char *state_knowledge_unsorted(void)
{
	for (size_t i = 1; i < ARRAY_SIZE(openssl_prefixes); i++)
		if (strcmp(openssl_prefixes[i - 1], openssl_prefixes[i]) >= 0)
			return openssl_prefixes[i];
	return NULL;
}
