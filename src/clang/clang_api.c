/* clang_api.c: see clang_api.h. */
#define NOGVL_CLANG_API_IMPL
#include "clang_api.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef NOGVL_LIBCLANG_PATH
#error "NOGVL_LIBCLANG_PATH: the libclang the build found (CMakeLists.txt)"
#endif

struct nogvl_clang_api nogvl_clang;
atomic_bool nogvl_clang_loaded;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
static const char *load_error;
static char load_error_buf[1024];
static const char *set_path; /* --libclang */
static char *resolved;       /* the library chosen, or NULL */
static const char *origin;

/* LLVM versions looked for, newest first. */
enum {
	LLVM_MIN = 14,
	LLVM_MAX = 19
};

void clang_api_set_path(const char *path)
{
	set_path = path;
}

/* "libclang-N.so" or "libclang-N.so.<anything>": N, else 0. */
static int name_version(const char *name)
{
	if (strncmp(name, "libclang-", 9) != 0)
		return 0;
	const char *p = name + 9;
	int n = 0;
	while (*p >= '0' && *p <= '9' && n < 1000)
		n = n * 10 + (*p++ - '0');
	if (p == name + 9 || strncmp(p, ".so", 3) != 0 || (p[3] && p[3] != '.'))
		return 0;
	return n;
}

char *clang_api_search(const char *const *dirs)
{
	/* the newest version; among equals the first directory, then the
	 * shortest name, then the first in byte order (libclang-14.so.1 before
	 * libclang-14.so.14.0.6: the same file on Debian) */
	char *best = NULL;
	int best_v = 0;
	size_t best_dir = 0;
	for (size_t i = 0; dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		if (!d)
			continue;
		struct dirent *e;
		while ((e = readdir(d))) {
			int v = name_version(e->d_name);
			if (v < LLVM_MIN || v > LLVM_MAX || v < best_v)
				continue;
			size_t len = strlen(dirs[i]) + strlen(e->d_name) + 2;
			char *p = malloc(len);
			if (!p)
				break;
			snprintf(p, len, "%s/%s", dirs[i], e->d_name);
			struct stat st;
			bool better = v > best_v || !best ||
				      (best_dir == i && (strlen(p) < strlen(best) ||
							 (strlen(p) == strlen(best) && strcmp(p, best) < 0)));
			if (better && stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, R_OK) == 0) {
				free(best);
				best = p;
				best_v = v;
				best_dir = i;
			} else {
				free(p);
			}
		}
		closedir(d);
	}
	return best;
}

/* The standard places: LLVM's own prefixes (apt.llvm.org, Debian), the
 * multiarch and plain library directories. */
static char *search_standard(void)
{
	static const char *const fixed[] = {
		"/usr/lib/llvm-19/lib",
		"/usr/lib/llvm-18/lib",
		"/usr/lib/llvm-17/lib",
		"/usr/lib/llvm-16/lib",
		"/usr/lib/llvm-15/lib",
		"/usr/lib/llvm-14/lib",
#if defined(__x86_64__)
		"/usr/lib/x86_64-linux-gnu",
#elif defined(__aarch64__)
		"/usr/lib/aarch64-linux-gnu",
#elif defined(__i386__)
		"/usr/lib/i386-linux-gnu",
#elif defined(__arm__)
		"/usr/lib/arm-linux-gnueabihf",
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		"/usr/lib/powerpc64le-linux-gnu",
#elif defined(__s390x__)
		"/usr/lib/s390x-linux-gnu",
#elif defined(__riscv)
		"/usr/lib/riscv64-linux-gnu",
#endif
		"/usr/lib64",
		"/usr/lib",
		"/usr/local/lib64",
		"/usr/local/lib",
		NULL,
	};
	return clang_api_search(fixed);
}

static void resolve(void)
{
	const char *env = getenv("NOGVL_LINT_LIBCLANG");
	if (set_path) {
		resolved = strdup(set_path);
		origin = "--libclang";
		return;
	}
	if (env && *env) {
		resolved = strdup(env);
		origin = "NOGVL_LINT_LIBCLANG";
		return;
	}
	/* NOGVL_LINT_LIBCLANG_SEARCH=DIR[:DIR...]: these directories instead of
	 * the build's library and the standard places (a relocated LLVM; the
	 * tests) */
	const char *dirs = getenv("NOGVL_LINT_LIBCLANG_SEARCH");
	if (dirs) {
		char *copy = strdup(dirs);
		const char *list[65];
		size_t n = 0;
		char *save = NULL;
		for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t && n < 64; t = strtok_r(NULL, ":", &save))
			list[n++] = t;
		list[n] = NULL;
		resolved = clang_api_search(list);
		free(copy);
		origin = resolved ? "found by search" : NULL;
		return;
	}
	if (access(NOGVL_LIBCLANG_PATH, R_OK) == 0) {
		resolved = strdup(NOGVL_LIBCLANG_PATH);
		origin = "the build's";
		return;
	}
	resolved = search_standard();
	origin = resolved ? "found by search" : NULL;
}

const char *clang_api_path(void)
{
	pthread_once(&resolve_once, resolve);
	return resolved;
}

const char *clang_api_origin(void)
{
	pthread_once(&resolve_once, resolve);
	return origin;
}

#define NOT_FOUND                                                                                                      \
	"no libclang found (LLVM 14 to 19): install libclang1-14 or newer (Debian, Ubuntu), or name the library "      \
	"with --libclang PATH or NOGVL_LINT_LIBCLANG"

static void load(void)
{
	const char *path = clang_api_path();
	if (!path) {
		load_error = NOT_FOUND;
		return;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(load_error_buf, sizeof(load_error_buf), "cannot load libclang %s (%s): %s", path, origin,
			 e ? e : "dlopen failed");
		/* one line, whatever the loader said */
		for (char *c = load_error_buf; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		load_error = load_error_buf;
		return;
	}
	bool ok = true;
	/* dlsym returns void *; POSIX guarantees it converts to a function pointer */
#define NOGVL_CLANG_LOAD(f)                                                                                            \
	do {                                                                                                           \
		void *p = dlsym(h, #f);                                                                                \
		if (!p && ok) {                                                                                        \
			snprintf(load_error_buf, sizeof(load_error_buf),                                               \
				 "%s (%s) is not libclang 14 or newer: it has no %s", path, origin, #f);               \
			ok = false;                                                                                    \
		}                                                                                                      \
		*(void **)&nogvl_clang.f = p;                                                                          \
	} while (0);
	NOGVL_CLANG_FUNCS(NOGVL_CLANG_LOAD)
#undef NOGVL_CLANG_LOAD
	if (!ok) {
		load_error = load_error_buf;
		return; /* the handle stays open: nothing of it is used */
	}
	atomic_store_explicit(&nogvl_clang_loaded, true, memory_order_release);
}

bool clang_api_load(const char **err)
{
	pthread_once(&once, load);
	if (atomic_load_explicit(&nogvl_clang_loaded, memory_order_acquire))
		return true;
	if (err)
		*err = load_error ? load_error : "cannot load libclang";
	return false;
}

bool clang_api_check(char *buf, size_t size)
{
	if (!clang_api_path()) {
		snprintf(buf, size, "%s", NOT_FOUND);
		return false;
	}
	if (atomic_load_explicit(&nogvl_clang_loaded, memory_order_acquire))
		return true;
	/* the library the build was made against, still in place: loaded by
	 * every run's parser processes already, not worth a child per run */
	if (origin && strcmp(origin, "the build's") == 0)
		return true;
	int fds[2];
	if (pipe(fds) != 0) {
		snprintf(buf, size, "cannot check libclang: pipe: %s", strerror(errno));
		return false;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		snprintf(buf, size, "cannot check libclang: fork: %s", strerror(errno));
		return false;
	}
	if (pid == 0) {
		close(fds[0]);
		const char *err = NULL;
		bool ok = clang_api_load(&err);
		if (!ok && err) {
			size_t n = strlen(err);
			while (n > 0) {
				ssize_t w = write(fds[1], err, n);
				if (w <= 0)
					break;
				err += w;
				n -= (size_t)w;
			}
		}
		_exit(ok ? 0 : 1);
	}
	close(fds[1]);
	size_t got = 0;
	for (;;) {
		ssize_t r = read(fds[0], buf + got, got + 1 < size ? size - got - 1 : 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	if (size)
		buf[got < size ? got : size - 1] = '\0';
	close(fds[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (!got)
		snprintf(buf, size, "loading libclang %s (%s) %s %d", clang_api_path(), origin,
			 WIFSIGNALED(status) ? "crashed with signal" : "failed with status",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	return false;
}

void nogvl_clang_need(void)
{
	const char *err = NULL;
	if (clang_api_load(&err))
		return;
	/* a call into libclang that cannot be made: nothing sensible is left
	 * (main and the parser processes check clang_api_load first) */
	fprintf(stderr, "nogvl-lint: %s\n", err);
	abort();
}
