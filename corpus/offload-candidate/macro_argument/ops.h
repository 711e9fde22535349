/* A gem that writes its blocking wrappers with macros: one macro makes each
 * callback, another makes each wrapper that releases the GVL, and a list
 * macro applies them to every operation. The release call is spelled in this
 * header; the main file names only the macros. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct copy_job {
	char *dst;
	const char *src;
	size_t n;
};

#define MAKE_CALLBACK(op) \
	static void *op##_nogvl(void *data) \
	{ \
		struct copy_job *j = data; \
		memcpy(j->dst, j->src, j->n); \
		return NULL; \
	}
#define MAKE_WRAPPER(op) \
	static void op##_released(struct copy_job *j) { rb_thread_call_without_gvl(op##_nogvl, j, NULL, NULL); }
#define EACH_OPERATION(apply) apply(bulk_copy)
