#include <ruby.h>

void *ext_helper(void *p)
{
	rb_gc(); /* expect: ruby-api-without-gvl */
	return p;
}
