/* Pre-2.2 GVL APIs. They no longer exist in Ruby's headers, so a modern
 * build sees undeclared names; the linter still reports them. */
#include <ruby.h>
#include <ruby/thread.h>

static VALUE slow(void *p)
{
	return Qnil;
}

VALUE legacy(VALUE self)
{
	rb_thread_blocking_region(slow, NULL, RUBY_UBF_IO, NULL); /* expect: removed-api */ /* expect-msg: use rb_thread_call_without_gvl */
	TRAP_BEG; /* expect: removed-api */
	TRAP_END; /* expect: removed-api */
	return Qnil;
}
