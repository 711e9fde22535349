/* nogvl-lint-test: --enable debug-release-site */
/* Release sites: direct, cast, local function pointer, rb_nogvl with flags,
 * ..._gvl2, and a call written through a macro. */
#include <ruby.h>
#include <ruby/thread.h>

struct job {
	const char *in;
	long len;
	long out;
};

static void *work(void *p)
{
	struct job *j = p;
	j->out = j->len * 2;
	return NULL;
}

static void *(*global_fp)(void *) = work;

#define RELEASE(fn, arg) rb_thread_call_without_gvl((fn), (arg), NULL, NULL)

VALUE run_all(VALUE self)
{
	struct job j = {0};
	void *(*fp)(void *) = work;
	rb_thread_call_without_gvl(work, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'work' (direct), ubf NULL, flags 0 */
	rb_thread_call_without_gvl((void *(*)(void *))work, &j, RUBY_UBF_IO, NULL); /* expect: debug-release-site */ /* expect-msg: 'work' (cast), ubf RUBY_UBF_IO */
	rb_thread_call_without_gvl(fp, &j, RUBY_UBF_PROCESS, NULL); /* expect: debug-release-site */ /* expect-msg: 'work' (local function pointer), ubf RUBY_UBF_PROCESS */
	rb_thread_call_without_gvl2(global_fp, &j, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: 'work' (global function pointer), ubf NULL, flags RB_NOGVL_INTR_FAIL */
	rb_nogvl(work, &j, NULL, NULL, RB_NOGVL_INTR_FAIL | RB_NOGVL_UBF_ASYNC_SAFE); /* expect: debug-release-site */ /* expect-msg: flags RB_NOGVL_INTR_FAIL | RB_NOGVL_UBF_ASYNC_SAFE */
	RELEASE(work, &j); /* expect: debug-release-site */
	return LONG2NUM(j.out);
}
