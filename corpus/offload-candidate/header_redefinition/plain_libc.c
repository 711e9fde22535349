/* nogvl-lint-test: --enable debug-offload-verdict */
/* No ruby/util.h: strdup is libc's (malloc), so the Ruby API gate passes
 * (only the library model of strdup is left to decide). */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

struct dup_args {
	const char *src;
	size_t n;
};

static void *dup_nogvl(void *p)
{
	struct dup_args *a = p;
	char *d = strdup(a->src);
	a->n = d ? strlen(d) : 0;
	free(d);
	return NULL;
}

static VALUE dup_name(VALUE self)
{
	struct dup_args a = {"fixed", 0};
	rb_thread_call_without_gvl(dup_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; opaque callees cannot verify: 'dup_nogvl' calls 'strdup' */
	return SIZET2NUM(a.n);
}

void Init_plain_libc(void)
{
	rb_define_method(rb_cObject, "dup_name", dup_name, 0);
}
