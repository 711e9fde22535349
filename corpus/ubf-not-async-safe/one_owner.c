/* A line is reported once: a Ruby API call in a function used both as a
 * callback and as an unblocking function belongs to ruby-api-without-gvl; in
 * a function used only as a UBF it belongs to ubf-not-async-safe. */
#include <ruby.h>
#include <ruby/thread.h>

struct st {
	volatile int stop;
	VALUE obj;
	long n;
};

static void *poke(void *p)
{
	struct st *s = p;
	s->stop = 1;
	rb_ivar_set(s->obj, rb_intern("@poked"), Qtrue); /* expect: ruby-api-without-gvl */
	return NULL;
}

static void poke_ubf(void *p)
{
	poke(p);
}

static void only_ubf(void *p)
{
	struct st *s = p;
	s->stop = 1;
	rb_gc_register_address(&s->obj); /* expect: ubf-not-async-safe */
}

static void *count_nogvl(void *p)
{
	struct st *s = p;
	while (!s->stop && s->n < 1000000)
		s->n++;
	return NULL;
}

VALUE one_owner_sites(VALUE self)
{
	struct st s = {0};
	s.obj = self;
	rb_thread_call_without_gvl(poke, &s, NULL, NULL);
	rb_thread_call_without_gvl(count_nogvl, &s, poke_ubf, &s);
	rb_thread_call_without_gvl(count_nogvl, &s, only_ubf, &s);
	return LONG2NUM(s.n);
}
