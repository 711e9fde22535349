#include <ruby.h>

VALUE ext_release(VALUE self, VALUE n);

void Init_beta(void)
{
	rb_define_method(rb_cObject, "beta_run", ext_release, 1);
}
