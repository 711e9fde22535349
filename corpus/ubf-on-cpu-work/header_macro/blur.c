/* A box blur released through the header's macro: CPU work, so
 * RUBY_UBF_PROCESS cannot interrupt it. */
#include <ruby.h>

#include "blur_gvl.h"

struct blur {
	unsigned char *px;
	size_t n;
};

static void *blur_nogvl(void *p)
{
	struct blur *b = p;
	for (size_t i = 1; i + 1 < b->n; i++)
		b->px[i] = (unsigned char)((b->px[i - 1] + b->px[i] + b->px[i + 1]) / 3);
	return NULL;
}

VALUE blur_apply(VALUE self, VALUE pixels)
{
	VALUE out = rb_str_new(RSTRING_PTR(pixels), RSTRING_LEN(pixels));
	struct blur b = {(unsigned char *)RSTRING_PTR(out), (size_t)RSTRING_LEN(out)};
	BLUR_NOGVL(blur_nogvl, &b); /* expect: offload-candidate, ubf-on-cpu-work */ /* expect-msg: RUBY_UBF_PROCESS cannot interrupt 'blur_nogvl' */
	return out;
}
