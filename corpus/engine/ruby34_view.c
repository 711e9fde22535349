/* nogvl-lint-test: --enable debug-release-site --disable small-work-nogvl */
/* The Ruby 3.4 view: with Ruby headers older than 3.4, code under
 * #ifdef RB_NOGVL_OFFLOAD_SAFE is analysed as a 3.4+ build compiles it (the
 * flag is 0x4), and the gem's own fallback definition stays inactive. The
 * mkmf HAVE_* defines of a modern Ruby are set in buildless mode. */
#include <ruby.h>
#include <ruby/thread.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

static void *work(void *p)
{
	return p;
}

VALUE view_run(VALUE self)
{
#ifdef RB_NOGVL_OFFLOAD_SAFE
	rb_nogvl(work, NULL, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: debug-release-site */ /* expect-msg: flags RB_NOGVL_OFFLOAD_SAFE */
#else
	rb_thread_call_without_gvl(work, NULL, NULL, NULL); /* not compiled on 3.4+ */
#endif
#if RB_NOGVL_OFFLOAD_SAFE == 0
	rb_thread_call_without_gvl(work, NULL, RUBY_UBF_IO, NULL); /* the fallback is inactive */
#endif
#if RB_NOGVL_OFFLOAD_SAFE == 0x4
	rb_nogvl(work, NULL, RUBY_UBF_IO, NULL, RB_NOGVL_OFFLOAD_SAFE | RB_NOGVL_INTR_FAIL); /* expect: debug-release-site */
#endif
#ifdef HAVE_RB_NOGVL
	rb_nogvl(work, NULL, NULL, NULL, 0); /* expect: debug-release-site */ /* expect-msg: rb_nogvl, callback 'work' (direct), ubf NULL, flags 0 */
#else
	rb_thread_call_without_gvl(work, NULL, NULL, NULL);
#endif
#if defined(HAVE_RUBY_THREAD_H) && defined(HAVE_RB_THREAD_CALL_WITHOUT_GVL)
	rb_thread_call_without_gvl(work, NULL, RUBY_UBF_PROCESS, NULL); /* expect: debug-release-site */
#endif
	return self;
}
