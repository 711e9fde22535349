/* clang_api.c: see clang_api.h. */
#define NOGVL_CLANG_API_IMPL
#include "clang_api.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NOGVL_LIBCLANG_PATH
#error "NOGVL_LIBCLANG_PATH: the libclang the build found (CMakeLists.txt)"
#endif

struct nogvl_clang_api nogvl_clang;
atomic_bool nogvl_clang_loaded;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *load_error;
static char load_error_buf[512];

static void load(void)
{
	void *h = dlopen(NOGVL_LIBCLANG_PATH, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		snprintf(load_error_buf, sizeof(load_error_buf), "cannot load libclang: %s", e ? e : NOGVL_LIBCLANG_PATH);
		load_error = load_error_buf;
		return;
	}
	bool ok = true;
	/* dlsym returns void *; POSIX guarantees it converts to a function pointer */
#define NOGVL_CLANG_LOAD(f)                                                                                    \
	do {                                                                                                   \
		void *p = dlsym(h, #f);                                                                        \
		if (!p && ok) {                                                                                \
			snprintf(load_error_buf, sizeof(load_error_buf), "%s has no %s", NOGVL_LIBCLANG_PATH, #f); \
			ok = false;                                                                            \
		}                                                                                              \
		*(void **)&nogvl_clang.f = p;                                                                  \
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

const char *clang_api_path(void)
{
	return NOGVL_LIBCLANG_PATH;
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
