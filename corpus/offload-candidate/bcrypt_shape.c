/* The bcrypt shape: frozen copies of the inputs kept alive with RB_GC_GUARD,
 * a per-call output buffer, no Ruby API and no thread state in the callback:
 * a candidate for RB_NOGVL_OFFLOAD_SAFE. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct hash_args {
	const char *key;
	size_t key_len;
	const char *salt;
	size_t salt_len;
	char *out;      /* the fresh result string's buffer */
	size_t out_len;
	unsigned cost;
};

static void *hash_nogvl(void *p)
{
	struct hash_args *a = p;
	unsigned long h = 5381;
	for (unsigned round = 0; round < (1u << a->cost); round++) {
		for (size_t i = 0; i < a->key_len; i++)
			h = h * 33 + (unsigned char)a->key[i];
		for (size_t i = 0; i < a->salt_len; i++)
			h = h * 33 + (unsigned char)a->salt[i];
	}
	for (size_t i = 0; i < a->out_len; i++)
		a->out[i] = (char)('a' + (h >> (i % 32)) % 26);
	return NULL;
}

VALUE bc_hash(VALUE self, VALUE key, VALUE salt, VALUE cost)
{
	struct hash_args a;
	VALUE k = rb_str_new_frozen(key);
	VALUE s = rb_str_new_frozen(salt);
	VALUE out = rb_str_new(NULL, 32);
	a.key = RSTRING_PTR(k);
	a.key_len = (size_t)RSTRING_LEN(k);
	a.salt = RSTRING_PTR(s);
	a.salt_len = (size_t)RSTRING_LEN(s);
	a.out = RSTRING_PTR(out);
	a.out_len = 32;
	a.cost = NUM2UINT(cost);
	rb_thread_call_without_gvl(hash_nogvl, &a, NULL, NULL); /* expect: offload-candidate:note */ /* expect-msg: 'hash_nogvl' can take RB_NOGVL_OFFLOAD_SAFE */
	RB_GC_GUARD(k);
	RB_GC_GUARD(s);
	return out;
}
