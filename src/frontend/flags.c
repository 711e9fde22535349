/* flags.c: see flags.h. Moved from parse.c unchanged. */
#include "flags.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef VEC(const char *) argvec;

/* ---- arguments clang rejects ---- */

/* The empty file probes parse: an anonymous in-memory file (memfd) read
 * through /proc/self/fd, else /dev/null. libclang reading /dev/null failed
 * now and then ("error reading '/dev/null'") while other threads parsed,
 * which made a probe of good arguments fail and the bisection drop one of
 * them (unit/test_parse under load); a regular file did not. */
static char probe_path[64] = "/dev/null";
static pthread_once_t probe_once = PTHREAD_ONCE_INIT;

static void probe_file_init(void)
{
#ifdef MFD_CLOEXEC
	int fd = memfd_create("nogvl-lint-probe", MFD_CLOEXEC);
	if (fd < 0)
		return;
	char p[64];
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	struct stat st;
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		memcpy(probe_path, p, sizeof(p));
	else
		close(fd);
#endif
}

static const char *probe_file(void)
{
	pthread_once(&probe_once, probe_file_init);
	return probe_path;
}
#define MAX_FLAG_ROUNDS 16

void verdict_free(struct flag_verdict *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++)
		free(v->why[i]);
	free(v->why);
	free(v->drop);
	free(v);
}

void flag_cache_free(struct flag_cache *c)
{
	hmap_foreach(&c->map, e) verdict_free(e->val);
	hmap_free(&c->map);
	strlist_free(&c->keys);
	pthread_mutex_destroy(&c->lock);
}

/* Parses an empty file with the arguments not dropped (or only the first
 * `limit` of them). Returns the TU (caller disposes) or NULL when the driver
 * rejected the command line. */
static CXTranslationUnit probe_parse(CXIndex idx, char *const *args, const bool *drop, size_t n, size_t limit)
{
	argvec argv = {0};
	vec_push(&argv, "-x"); /* the arguments' own -x, if any, comes later and wins */
	vec_push(&argv, "c");
	for (size_t i = 0; i < n && i < limit; i++)
		if (!drop[i])
			vec_push(&argv, args[i]);
	/* an empty file on disk: libclang leaks the copies of unsaved files
	 * when the driver fails, which is what probes are for */
	CXTranslationUnit ctu = NULL;
	enum CXErrorCode e = clang_parseTranslationUnit2(idx, probe_file(), argv.v, (int)argv.n, NULL, 0,
							 CXTranslationUnit_KeepGoing, &ctu);
	vec_free(&argv);
	if (e != CXError_Success && ctu) {
		clang_disposeTranslationUnit(ctu);
		ctu = NULL;
	}
	return ctu;
}

/* Driver diagnostics that name a rejected argument. */
static const char *const rejected_arg_msgs[] = {
	"unknown argument",                    /* unknown argument: '-x' / unknown argument '-x'; did you mean */
	"unsupported option",                  /* unsupported option '-x' [for target ...] */
	"the clang compiler does not support", /* ... '-x' */
	"invalid argument",                    /* invalid argument '-std=c++17' not allowed with 'C' */
	"unsupported argument",                /* unsupported argument 'v' to option 'fsanitize=' */
};

/* The text between the first pair of single quotes after from, or NULL. */
static char *quoted_after(const char *from, const char **end)
{
	const char *a = strchr(from, '\'');
	if (!a)
		return NULL;
	const char *b = strchr(a + 1, '\'');
	if (!b)
		return NULL;
	if (end)
		*end = b + 1;
	return xstrndup(a + 1, (size_t)(b - a - 1));
}

static const char *skip_dashes(const char *s)
{
	while (*s == '-')
		s++;
	return s;
}

/* Index of the argument a driver diagnostic rejects, or -1. */
static long rejected_index(const char *msg, char *const *args, const bool *drop, size_t n)
{
	bool known = false;
	for (size_t k = 0; k < ARRAY_SIZE(rejected_arg_msgs); k++)
		known = known || str_starts(msg, rejected_arg_msgs[k]);
	if (!known)
		return -1;
	const char *rest = NULL;
	char *q1 = quoted_after(msg, &rest);
	if (!q1)
		return -1;
	long found = -1;
	/* "unsupported argument 'V' to option 'O'" / "invalid argument 'V' to -O" */
	const char *to = strstr(rest, " to option ");
	char *opt = NULL;
	if (to)
		opt = quoted_after(to, NULL);
	else if ((to = strstr(rest, " to -")) != NULL)
		opt = xstrdup(to + 4);
	if (opt) {
		const char *o = skip_dashes(opt);
		for (size_t i = 0; i < n && found < 0; i++)
			if (!drop[i] && args[i][0] == '-' && str_starts(skip_dashes(args[i]), o) && strstr(args[i], q1))
				found = (long)i;
		free(opt);
	}
	for (size_t i = 0; i < n && found < 0; i++) {
		if (drop[i] || args[i][0] != '-')
			continue;
		size_t ql = strlen(q1);
		if (strcmp(args[i], q1) == 0 || (ql > 1 && q1[ql - 1] == '=' && str_starts(args[i], q1)))
			found = (long)i;
	}
	free(q1);
	return found;
}

/* Options whose value is the next argument (they are dropped together). */
static const char *const separate_value_opts[] = {
	"--sysroot",
	"-D",
	"-F",
	"-I",
	"-MF",
	"-MQ",
	"-MT",
	"-U",
	"-Xassembler",
	"-Xclang",
	"-Xlinker",
	"-Xpreprocessor",
	"-arch",
	"-idirafter",
	"-iframework",
	"-imacros",
	"-include",
	"-include-pch",
	"-iquote",
	"-isysroot",
	"-isystem",
	"-mllvm",
	"-o",
	"-target",
	"-working-directory",
	"-x",
};

/* Options that pass their value on to another tool. */
static const char *const passthrough_opts[] = {
	"-Xassembler", "-Xclang", "-Xlinker", "-Xpreprocessor", "-mllvm",
};

/* Groups the arguments into units: an option with its separate value. */
static size_t unit_end(char *const *args, size_t n, size_t i)
{
	if (str_in_list(args[i], separate_value_opts, ARRAY_SIZE(separate_value_opts)) >= 0 && i + 1 < n)
		return i + 2;
	size_t j = i + 1;
	while (args[i][0] == '-' && j < n && args[j][0] != '-')
		j++;
	return j;
}

/* Finds the unit that makes the driver fail when nothing reports it: the
 * shortest failing prefix ends with it (a failing command line stays failing
 * when arguments are appended). Returns true when one was dropped. */
static bool bisect_failure(CXIndex idx, char *const *args, bool *drop, char **why, size_t n)
{
	VEC(size_t) ends = {0};
	for (size_t i = 0; i < n; i = unit_end(args, n, i))
		if (!drop[i])
			vec_push(&ends, unit_end(args, n, i));
	bool dropped = false;
	CXTranslationUnit t = probe_parse(idx, args, drop, n, 0);
	if (!t || !ends.n) /* fails with no arguments: not the arguments' fault */
		goto out;
	clang_disposeTranslationUnit(t);
	size_t lo = 0, hi = ends.n; /* prefix of lo units parses; of hi units fails */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		t = probe_parse(idx, args, drop, n, ends.v[mid - 1]);
		if (t) {
			clang_disposeTranslationUnit(t);
			lo = mid;
		} else {
			hi = mid;
		}
	}
	size_t end = ends.v[hi - 1];
	size_t begin = hi >= 2 ? ends.v[hi - 2] : 0;
	for (size_t i = begin; i < end; i++) {
		if (drop[i])
			continue;
		drop[i] = true;
		why[i] = xstrdup("clang rejects it");
		dropped = true;
	}
out:
	vec_free(&ends);
	return dropped;
}

static struct flag_verdict *check_flags(CXIndex idx, char *const *args, size_t n)
{
	struct flag_verdict *v = xcalloc(1, sizeof(*v));
	v->n = n;
	v->drop = xcalloc(n ? n : 1, sizeof(bool));
	v->why = xcalloc(n ? n : 1, sizeof(char *));
	for (unsigned round = 0; round < MAX_FLAG_ROUNDS; round++) {
		CXTranslationUnit t = probe_parse(idx, args, v->drop, n, SIZE_MAX);
		bool progress = false;
		if (!t) {
			progress = bisect_failure(idx, args, v->drop, v->why, n);
		} else {
			unsigned nd = clang_getNumDiagnostics(t);
			for (unsigned i = 0; i < nd; i++) {
				CXDiagnostic d = clang_getDiagnostic(t, i);
				CXFile f = NULL;
				clang_getFileLocation(clang_getDiagnosticLocation(d), &f, NULL, NULL, NULL);
				if (!f && clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
					CXString s = clang_getDiagnosticSpelling(d);
					const char *msg = clang_getCString(s) ? clang_getCString(s) : "";
					long k = rejected_index(msg, args, v->drop, n);
					if (k >= 0) {
						v->drop[k] = true;
						v->why[k] = xasprintf("clang: %s", msg);
						progress = true;
						/* -Xclang -bogus: the -Xclang goes too, or it takes the next argument */
						if (k > 0 && !v->drop[k - 1] &&
						    str_in_list(args[k - 1], passthrough_opts,
								ARRAY_SIZE(passthrough_opts)) >= 0) {
							v->drop[k - 1] = true;
							v->why[k - 1] = xasprintf("clang: %s", msg);
						}
					}
					clang_disposeString(s);
				}
				clang_disposeDiagnostic(d);
			}
			clang_disposeTranslationUnit(t);
		}
		if (!progress)
			break;
	}
	return v;
}

/* The verdict for these arguments, from the cache when it has one. */
const struct flag_verdict *flags_verdict(CXIndex idx, struct flag_cache *c, char *const *args, size_t n,
					 struct flag_verdict **owned)
{
	*owned = NULL;
	if (!c) {
		*owned = check_flags(idx, args, n);
		return *owned;
	}
	struct strbuf key = {0};
	for (size_t i = 0; i < n; i++) {
		sb_puts(&key, args[i]);
		sb_putc(&key, '\x1f');
	}
	pthread_mutex_lock(&c->lock);
	const struct flag_verdict *v = hmap_get(&c->map, sb_str(&key));
	pthread_mutex_unlock(&c->lock);
	if (v) {
		sb_free(&key);
		return v;
	}
	struct flag_verdict *nv = check_flags(idx, args, n);
	pthread_mutex_lock(&c->lock);
	v = hmap_get(&c->map, sb_str(&key));
	if (v) {
		verdict_free(nv); /* another worker was faster */
		sb_free(&key);
	} else {
		char *k = sb_detach(&key);
		vec_push(&c->keys, k);
		hmap_put(&c->map, k, nv);
		v = nv;
	}
	pthread_mutex_unlock(&c->lock);
	return v;
}
