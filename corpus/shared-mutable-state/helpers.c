/* A helper that writes a static is a finding only when something reaches it
 * without the GVL. The same helper called with the GVL held elsewhere is
 * reported once, at the write, with the chain from the release site. */
#include <ruby.h>
#include <ruby/thread.h>

static unsigned long seen;
static unsigned long gvl_only_count;
static unsigned long guarded_count;
static unsigned long with_gvl_count;

/* called from the callback and from a method: reached without the GVL */
static void note_seen(unsigned long n)
{
	seen += n; /* expect: shared-mutable-state */ /* expect-msg: 'note_seen' writes static 'seen' */
}

/* only ever called with the GVL held */
static void count_gvl_only(void)
{
	static int depth;
	depth++;
	gvl_only_count++;
}

/* called from the callback only when it holds the GVL */
static void count_guarded(void)
{
	guarded_count++;
}

/* run by rb_thread_call_with_gvl: the GVL is held again */
static void *count_with_gvl(void *p)
{
	(void)p;
	with_gvl_count++;
	return NULL;
}

static void *work(void *p)
{
	unsigned long *n = p;
	note_seen(*n);
	if (ruby_thread_has_gvl_p())
		count_guarded();
	rb_thread_call_with_gvl(count_with_gvl, NULL);
	return NULL;
}

static VALUE
rb_work(VALUE self, VALUE v)
{
	unsigned long n = NUM2ULONG(v);
	count_gvl_only();
	note_seen(1);
	rb_thread_call_without_gvl(work, &n, NULL, NULL); /* expect: small-work-nogvl */
	return Qnil;
}

void Init_helpers(void)
{
	rb_define_method(rb_cObject, "work", rb_work, 1);
}
