/* A gem that defines its own rb_gc_register_address-like helper with the same
 * name would be followed as a function; here its own root table is not Ruby's. */
#include <ruby.h>
#include <ruby/thread.h>

static VALUE *roots[8];
static int nroots;

static void my_register(VALUE *addr)
{
	roots[nroots++ & 7] = addr;
}

static void *work(void *p)
{
	(void)p;
	return NULL;
}

VALUE run_own(VALUE self, VALUE s)
{
	VALUE keep = s;
	my_register(&keep); /* not Ruby's registry */
	rb_thread_call_without_gvl(work, NULL, NULL, NULL); /* expect: small-work-nogvl */
	return keep;
}
