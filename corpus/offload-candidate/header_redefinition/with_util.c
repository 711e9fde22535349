/* nogvl-lint-test: --enable debug-offload-verdict */
/* After ruby/util.h, `strdup(s)` is `ruby_strdup(s)` (`#define strdup(s)
 * ruby_strdup(s)`): it allocates with ruby_xmalloc, which needs a Ruby thread
 * and may raise NoMemoryError. The evidence says the call is Ruby's because a
 * header redefines it; the file next door, without ruby/util.h, calls libc's
 * strdup and is a candidate. */
#include <ruby.h>
#include <ruby/util.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

struct copy_args {
	const char *src;
	size_t n;
};

static void *copy_nogvl(void *p)
{
	struct copy_args *a = p;
	char *d = strdup(a->src);
	a->n = d ? strlen(d) : 0;
	xfree(d);
	return NULL;
}

static VALUE copy_name(VALUE self)
{
	struct copy_args a = {"fixed", 0};
	rb_thread_call_without_gvl(copy_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: 'copy_nogvl' allocates with 'strdup', which is Ruby's 'ruby_strdup' here (ruby/util.h redefines it) */
	return SIZET2NUM(a.n);
}

void Init_with_util(void)
{
	rb_define_method(rb_cObject, "copy_name", copy_name, 0);
}
