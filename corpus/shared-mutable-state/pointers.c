/* Writes through a pointer that can only point at a static (a local pointer
 * set from one, a parameter every caller passes a static to, the callback's
 * data1 when it is a static) are writes to that static. A pointer that may
 * also point at per-call memory, or a static pointer whose target is not
 * known, is not reported. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct counters {
	long reads, writes;
	char name[32];
};

static struct counters global_counters;
static struct counters other_counters;
static char shared_buf[256];
static char other_buf[16];
static struct counters *current; /* points who knows where */

/* every caller passes a static */
static void bump(struct counters *c)
{
	c->reads++; /* expect: shared-mutable-state */ /* expect-msg: writes static 'global_counters' through 'c' */
}

/* called with a static and with per-call memory: not provably shared */
static void bump_any(struct counters *c)
{
	c->writes++;
}

/* one finding per function: each kind of write in its own helper */
static void fill_shared(void)
{
	char *out = shared_buf;
	out[0] = 'a'; /* expect: shared-mutable-state */ /* expect-msg: writes static 'shared_buf' through 'out' */
	strcpy(out + 1, "bc");                /* the same static again: a note on the write above */
}

static void clear_other(void)
{
	memset(other_buf, 0, 8); /* expect: shared-mutable-state */ /* expect-msg: writes static 'other_buf' with 'memset' */
}

static void *work(void *p)
{
	struct counters mine = {0};
	struct counters *g = &global_counters;
	g->writes = 1; /* expect: shared-mutable-state */ /* expect-msg: writes static 'global_counters' through 'g' */
	fill_shared();
	clear_other();
	bump(&global_counters);
	bump_any(&global_counters);
	bump_any(&mine);
	current->reads++;                     /* static pointer, target unknown: cannot verify, no finding */
	(void)p;
	return NULL;
}

/* data1 is a static: the callback's parameter only points at it */
static void *work_on(void *p)
{
	struct counters *c = p;
	c->reads = 0; /* expect: shared-mutable-state */ /* expect-msg: writes static 'other_counters' through 'c' */
	return NULL;
}

/* data1 is per-call memory */
static void *work_on_local(void *p)
{
	struct counters *c = p;
	c->reads = 0;
	return NULL;
}

static VALUE
rb_work(VALUE self)
{
	struct counters local = {0};
	rb_thread_call_without_gvl(work, NULL, NULL, NULL);
	rb_thread_call_without_gvl(work_on, &other_counters, NULL, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(work_on_local, &local, NULL, NULL); /* expect: small-work-nogvl */
	return LONG2NUM(local.reads);
}

void Init_pointers(void)
{
	rb_define_method(rb_cObject, "work", rb_work, 0);
}
