/* nogvl-lint-test: --enable debug-release-site */
/* Two extensions in one tree that define the same non-static functions
 * (ext_release, ext_work, ext_helper): each definition is its own function,
 * and a call reaches the one in the caller's own file, else its directory. */
#include <ruby.h>

VALUE ext_release(VALUE self, VALUE n);
void *ext_helper(void *p);

void Init_alpha(void)
{
	ext_helper(NULL); /* with the GVL: alpha's helper never runs without it */
	rb_define_method(rb_cObject, "alpha_run", ext_release, 1);
}
