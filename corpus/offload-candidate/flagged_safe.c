/* Already flagged, and every gate holds: nothing to say. */
#include <ruby.h>
#include <ruby/thread.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct crc_args {
	const unsigned char *p;
	size_t n;
	unsigned long crc;
};

static void *crc_nogvl(void *p)
{
	struct crc_args *a = p;
	unsigned long c = 0xffffffffUL;
	for (size_t i = 0; i < a->n; i++) {
		c ^= a->p[i];
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320UL & (0UL - (c & 1)));
	}
	a->crc = c ^ 0xffffffffUL;
	return NULL;
}

VALUE crc(VALUE self, VALUE str)
{
	VALUE s = rb_str_new_frozen(str);
	struct crc_args a = {(const unsigned char *)RSTRING_PTR(s), (size_t)RSTRING_LEN(s), 0};
	rb_nogvl(crc_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	RB_GC_GUARD(s);
	return ULONG2NUM(a.crc);
}
