/* nogvl-lint-test: --enable debug-offload-verdict */
/* A buffer pointer read out of a Ruby object's C struct into the callback's
 * data (out.dst = pk->rest). Member types are not in the facts: the field
 * counts as a pointer because the gem stores a pointer variable into it
 * (pk->rest = buf). Unguarded, another fiber's #reserve or #close can free
 * the buffer while the worker writes it: not offload-safe. A field only ever
 * set from a number cast of a pointer stays "cannot verify". */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdint.h>
#include <stdlib.h>

struct packer {
	char *rest;
	long rest_len;
	uintptr_t mark;
};

static void packer_free(void *p)
{
	struct packer *pk = p;
	free(pk->rest);
	free(pk);
}

static const rb_data_type_t packer_type = {"packer", {NULL, packer_free, NULL}, NULL, NULL, 0};

struct out_buf {
	char *dst;
	long size;
};

struct fill_args {
	struct out_buf *out;
	long done;
};

static void *fill_nogvl(void *d)
{
	struct fill_args *a = d;
	for (long i = 0; i < a->out->size; i++)
		a->out->dst[i] = (char)i;
	a->done = a->out->size;
	return NULL;
}

static VALUE packer_reserve(VALUE self, VALUE len)
{
	struct packer *pk;
	TypedData_Get_Struct(self, struct packer, &packer_type, pk);
	long n = NUM2LONG(len);
	char *buf = malloc((size_t)n);
	if (!buf)
		rb_raise(rb_eNoMemError, "reserve");
	free(pk->rest);
	pk->rest = buf;
	pk->rest_len = n;
	return self;
}

static VALUE packer_fill(VALUE self)
{
	struct packer *pk;
	TypedData_Get_Struct(self, struct packer, &packer_type, pk);
	struct out_buf out = {.dst = pk->rest, .size = pk->rest_len};
	struct fill_args a = {.out = &out, .done = 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'fill_nogvl' uses 'pk->rest' of struct packer, a Ruby object's C struct, with no in-progress flag or mutex held across the call */
	return LONG2NUM(a.done);
}

/* trap: a field only ever set from a pointer cast to a number */
struct mark_args {
	uintptr_t mark;
	long n;
	unsigned long sum;
};

static void *mark_nogvl(void *d)
{
	struct mark_args *a = d;
	for (long i = 0; i < a->n; i++)
		a->sum += (unsigned long)(a->mark >> (i & 7));
	return NULL;
}

static VALUE packer_mark(VALUE self)
{
	struct packer *pk;
	TypedData_Get_Struct(self, struct packer, &packer_type, pk);
	char *here = malloc(1);
	pk->mark = (uintptr_t)here;
	free(here);
	struct mark_args a = {pk->mark, pk->rest_len, 0};
	rb_thread_call_without_gvl(mark_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: 'pk->mark' is state kept in a Ruby object's C struct */
	return ULONG2NUM(a.sum);
}

void Init_object_buffer_field(void)
{
	VALUE c = rb_define_class("Packer", rb_cObject);
	rb_define_method(c, "reserve", packer_reserve, 1);
	rb_define_method(c, "fill", packer_fill, 0);
	rb_define_method(c, "mark", packer_mark, 0);
}
