/* State kept in a Ruby object's C struct that every method serialises
 * (gvl-semantics.md 2.9): the object-state gate passes it, so the unflagged
 * calls below are offered RB_NOGVL_OFFLOAD_SAFE. Each object is guarded in a
 * different way: an in-progress flag every method checks, a mutex every
 * method takes, and an object still being created (initialize, the
 * allocator), which no other fiber can reach yet. The traps (one unguarded
 * method each) are in corpus/offload-unsafe/object_state_traps.c. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

/* ---- an in-progress flag: set before the call, cleared after, checked by every method ---- */

struct sieve {
	unsigned char *bits;
	long nbits;
	int busy;
};

static void sieve_free(void *p)
{
	struct sieve *s = p;
	free(s->bits);
	free(s);
}

static const rb_data_type_t sieve_type = {"sieve", {NULL, sieve_free, NULL}, NULL, NULL, 0};

static void *sieve_nogvl(void *p)
{
	struct sieve *s = p;
	for (long i = 2; i < s->nbits; i++)
		if (!s->bits[i])
			for (long j = i * 2; j < s->nbits; j += i)
				s->bits[j] = 1;
	return NULL;
}

static VALUE sieve_run(VALUE self)
{
	struct sieve *s;
	TypedData_Get_Struct(self, struct sieve, &sieve_type, s);
	if (s->busy)
		rb_raise(rb_eRuntimeError, "sieve in use");
	s->busy = 1;
	rb_nogvl(sieve_nogvl, s, NULL, NULL, 0); /* expect: offload-candidate */
	s->busy = 0;
	return self;
}

static VALUE sieve_resize(VALUE self, VALUE n)
{
	struct sieve *s;
	long len = NUM2LONG(n);
	TypedData_Get_Struct(self, struct sieve, &sieve_type, s);
	if (s->busy)
		rb_raise(rb_eRuntimeError, "sieve in use");
	unsigned char *b = calloc((size_t)len, 1);
	if (!b)
		rb_raise(rb_eNoMemError, "sieve");
	free(s->bits);
	s->bits = b;
	s->nbits = len;
	return self;
}

static VALUE sieve_close(VALUE self)
{
	struct sieve *s;
	TypedData_Get_Struct(self, struct sieve, &sieve_type, s);
	if (s->busy)
		rb_raise(rb_eRuntimeError, "sieve in use");
	free(s->bits);
	s->bits = NULL;
	s->nbits = 0;
	return Qnil;
}

/* ---- a mutex every method takes (rb_mutex_lock/unlock, rb_mutex_synchronize) ---- */

struct table {
	long *cells;
	long ncells;
	VALUE lock;
};

static const rb_data_type_t table_type = {"table", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *table_nogvl(void *p)
{
	struct table *t = p;
	for (long i = 1; i < t->ncells; i++)
		t->cells[i] += t->cells[i - 1];
	return NULL;
}

static VALUE table_scan(VALUE self)
{
	struct table *t;
	TypedData_Get_Struct(self, struct table, &table_type, t);
	rb_mutex_lock(t->lock);
	rb_nogvl(table_nogvl, t, NULL, NULL, 0); /* expect: offload-candidate */
	rb_mutex_unlock(t->lock);
	return self;
}

static VALUE table_clear_locked(VALUE arg)
{
	struct table *t = (struct table *)arg;
	free(t->cells);
	t->cells = NULL;
	t->ncells = 0;
	return Qnil;
}

static VALUE table_clear(VALUE self)
{
	struct table *t;
	TypedData_Get_Struct(self, struct table, &table_type, t);
	return rb_mutex_synchronize(t->lock, table_clear_locked, (VALUE)t);
}

/* ---- an object still being created: initialize's call is private ---- */

struct seed {
	unsigned char *pool;
	long size;
};

static void seed_free(void *p)
{
	struct seed *s = p;
	free(s->pool);
	free(s);
}

static const rb_data_type_t seed_type = {"seed", {NULL, seed_free, NULL}, NULL, NULL, 0};

static void *seed_fill_nogvl(void *p)
{
	struct seed *s = p;
	for (long i = 0; i < s->size; i++)
		s->pool[i] = (unsigned char)(i * 31 + 7);
	return NULL;
}

static VALUE seed_alloc(VALUE klass)
{
	struct seed *s;
	return TypedData_Make_Struct(klass, struct seed, &seed_type, s);
}

static VALUE seed_initialize(VALUE self, VALUE n)
{
	struct seed *s;
	long len = NUM2LONG(n);
	TypedData_Get_Struct(self, struct seed, &seed_type, s);
	s->pool = calloc((size_t)len, 1);
	if (!s->pool)
		rb_raise(rb_eNoMemError, "seed");
	s->size = len;
	/* nobody else has the object yet: no other fiber can call #reseed on it */
	rb_nogvl(seed_fill_nogvl, s, NULL, NULL, 0); /* expect: offload-candidate */
	return self;
}

static VALUE seed_reseed(VALUE self)
{
	struct seed *s;
	TypedData_Get_Struct(self, struct seed, &seed_type, s);
	memset(s->pool, 0, (size_t)s->size);
	return self;
}

void Init_object_guarded(void)
{
	VALUE k = rb_define_class("Sieve", rb_cObject);
	rb_define_method(k, "run", sieve_run, 0);
	rb_define_method(k, "resize", sieve_resize, 1);
	rb_define_method(k, "close", sieve_close, 0);
	VALUE t = rb_define_class("Table", rb_cObject);
	rb_define_method(t, "scan", table_scan, 0);
	rb_define_method(t, "clear", table_clear, 0);
	VALUE s = rb_define_class("Seed", rb_cObject);
	rb_define_alloc_func(s, seed_alloc);
	rb_define_method(s, "initialize", seed_initialize, 1);
	rb_define_method(s, "reseed", seed_reseed, 0);
}
