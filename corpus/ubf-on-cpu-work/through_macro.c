/* A release macro that hard-codes RUBY_UBF_PROCESS, used for image-processing
 * style CPU work: reported at each use of the macro. */
#include <ruby.h>
#include <ruby/thread.h>

#define CALL_NOGVL(fn, args) rb_thread_call_without_gvl((fn), (args), RUBY_UBF_PROCESS, NULL)

struct img {
	unsigned char *px;
	size_t n;
};

static void *invert_nogvl(void *p)
{
	struct img *im = p;
	for (size_t i = 0; i < im->n; i++)
		im->px[i] = (unsigned char)(255 - im->px[i]);
	return NULL;
}

VALUE img_invert(VALUE self, VALUE pixels)
{
	struct img im;
	VALUE copy = rb_str_new(RSTRING_PTR(pixels), RSTRING_LEN(pixels));
	im.px = (unsigned char *)RSTRING_PTR(copy);
	im.n = (size_t)RSTRING_LEN(copy);
	CALL_NOGVL(invert_nogvl, &im); /* expect: offload-candidate, ubf-on-cpu-work */
	return copy;
}
