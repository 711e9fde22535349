/* Releasing the GVL around tiny work, and the versions that are fine. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct pair {
	unsigned char key[16];
	unsigned char out[16];
	const unsigned char *big;
	size_t len;
	unsigned long sum;
};

static void *copy16_nogvl(void *p)
{
	struct pair *a = p;
	memcpy(a->out, a->key, 16); /* fixed 16 bytes */
	return NULL;
}

static void *sum_nogvl(void *p)
{
	struct pair *a = p;
	for (size_t i = 0; i < a->len; i++) /* work grows with the input */
		a->sum += a->big[i];
	return NULL;
}

static void *copy_nogvl(void *p)
{
	struct pair *a = p;
	memcpy(a->out, a->big, a->len); /* size known only at run time */
	return NULL;
}

VALUE work(VALUE self)
{
	struct pair a = {{0}, {0}, NULL, 0, 0};
	rb_thread_call_without_gvl(copy16_nogvl, &a, NULL, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL); /* expect: offload-candidate */
	if (a.len >= 1024 * 1024) /* IO::Buffer-style threshold */
		rb_thread_call_without_gvl(copy16_nogvl, &a, NULL, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(copy_nogvl, &a, NULL, NULL); /* expect: offload-candidate */
	return ULONG2NUM(a.sum);
}
