/* A release written through the gem's own macro: the finding at the call
 * carries the macro (JSON "macro", checked by cli/evidence) and an "expanded
 * from macro" note, whichever rule reports there. */
#include <ruby.h>
#include <ruby/thread.h>

struct use_args {
	const char *s;
	long n;
};

int lib_use(const char *s, long n);

#define RELEASE(fn, x) rb_thread_call_without_gvl((fn), (x), NULL, NULL)

static void *use_nogvl(void *p)
{
	struct use_args *a = p;
	return (void *)(long)lib_use(a->s, a->n);
}

static VALUE use_fresh(VALUE self, VALUE len)
{
	struct use_args a;
	VALUE buf = rb_str_new(NULL, NUM2LONG(len));
	a.s = RSTRING_PTR(buf);
	a.n = RSTRING_LEN(buf);
	RELEASE(use_nogvl, &a); /* expect: missing-gc-guard */ /* expect-note: expanded from macro 'RELEASE' */
	return self;
}

void Init_macro_release(void)
{
	rb_define_method(rb_cObject, "use_fresh", use_fresh, 1);
}
