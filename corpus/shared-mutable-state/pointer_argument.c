/* A global or static pointer handed to a helper: the helper's parameter is a
 * copy of the one pointer every thread reads, so the helper's writes through
 * it are writes to the one shared object, as if the callback wrote
 * g->field itself. Not reported: the same helper given a local, a
 * thread-local pointer, or a pointer to an object the callback allocates. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>

struct counter {
	long hits;
	long misses;
};

static struct counter *shared_counter;
static __thread struct counter *thread_counter;

static void bump(struct counter *c)
{
	c->hits++; /* expect: shared-mutable-state */ /* expect-msg: 'bump' writes */
}

static void *count_shared(void *p)
{
	bump(shared_counter);
	return p;
}

static void tally(struct counter *c)
{
	c->misses++;
}

static void *count_private(void *p)
{
	struct counter mine = {0, 0};
	struct counter *fresh = malloc(sizeof(*fresh));
	tally(&mine);
	tally(thread_counter);
	if (fresh) {
		fresh->misses = 0;
		tally(fresh);
		free(fresh);
	}
	return p;
}

VALUE count_all(VALUE self)
{
	char buf[64];
	rb_thread_call_without_gvl(count_shared, buf, NULL, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(count_private, buf, NULL, NULL);
	return self;
}
