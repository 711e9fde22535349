/* A helper that calls the function its caller passes: only what the callers
 * reached without the GVL pass counts. `each` is used by a method with the
 * GVL (to build Ruby objects) and by a callback without it (to sum). */
#include <ruby.h>
#include <ruby/thread.h>

struct list {
	long v[8];
	int n;
	VALUE out;
	long sum;
};

static void each(struct list *l, void (*fn)(struct list *, long))
{
	for (int i = 0; i < l->n; i++)
		fn(l, l->v[i]);
}

static void to_ruby(struct list *l, long v)
{
	rb_ary_push(l->out, LONG2NUM(v)); /* only passed to each() with the GVL held */
}

static void add_up(struct list *l, long v)
{
	l->sum += v;
}

static void push_bad(struct list *l, long v)
{
	rb_ary_push(l->out, LONG2NUM(v)); /* expect: ruby-api-without-gvl */
}

static void *sum_nogvl(void *p)
{
	each(p, add_up);
	return NULL;
}

static void *bad_nogvl(void *p)
{
	each(p, push_bad);
	return NULL;
}

VALUE list_to_a(VALUE self)
{
	struct list l = {{1, 2, 3}, 3, rb_ary_new(), 0};
	each(&l, to_ruby);
	rb_thread_call_without_gvl(sum_nogvl, &l, NULL, NULL); /* expect: offload-candidate */ /* each() reaches only add_up here */
	rb_thread_call_without_gvl(bad_nogvl, &l, NULL, NULL);
	return l.out;
}
