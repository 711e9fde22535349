/* Several cleanups skipped by one release call that can raise: one finding at
 * the wipe of the secret key (the worst of them), the rest as notes. A wipe
 * after a call that cannot raise is fine. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

struct kp {
	unsigned char sk[64];
	unsigned char pk[32];
	unsigned char *scratch;
	int rc;
};

static void secure_wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;
	while (n--)
		*v++ = 0;
}

static void *keygen_nogvl(void *p)
{
	struct kp *k = p;
	for (int i = 0; i < 64; i++)
		k->sk[i] = (unsigned char)(k->scratch[i] ^ i);
	for (int i = 0; i < 32; i++)
		k->pk[i] = (unsigned char)(k->sk[i] + k->sk[i + 32]);
	k->rc = 0;
	return NULL;
}

VALUE keygen(VALUE self)
{
	struct kp k;
	k.scratch = malloc(4096);
	rb_thread_call_without_gvl(keygen_nogvl, &k, NULL, NULL); /* no offload-candidate: withheld until the cleanup below is ensured */
	VALUE pk = rb_str_new((const char *)k.pk, sizeof(k.pk));
	free(k.scratch);                 /* a note: skipped by the same call */
	secure_wipe(k.sk, sizeof(k.sk)); /* expect: cleanup-not-ensured */ /* expect-msg: the secret stays in memory */
	explicit_bzero(k.pk, sizeof(k.pk)); /* a note, said to be a wipe */
	return pk;
}

VALUE keygen2(VALUE self)
{
	struct kp k = {{0}};
	k.scratch = malloc(4096);
	rb_thread_call_without_gvl2(keygen_nogvl, &k, NULL, NULL); /* returns instead of raising: no cleanup-not-ensured; offloaded it could raise, so no offload-candidate (withheld) */
	VALUE pk = rb_str_new((const char *)k.pk, sizeof(k.pk));
	free(k.scratch);
	secure_wipe(k.sk, sizeof(k.sk));
	return pk;
}
