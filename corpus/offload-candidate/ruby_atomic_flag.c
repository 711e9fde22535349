/* A long computation whose unblocking function raises a cancel flag with
 * Ruby's own atomics (RUBY_ATOMIC_SET, an inline wrapper of the compiler's
 * __atomic_store_n) and the loop polls it: a flag write,
 * which does not depend on the thread that runs the UBF, so the release is an
 * offload candidate, as with a plain or __atomic flag. */
#include <ruby.h>
#include <ruby/atomic.h>
#include <ruby/thread.h>

struct score_job {
	const float *frames;
	long nframes;
	double score;
	volatile rb_atomic_t cancelled;
};

struct score_cancel {
	struct score_job *job;
};

static void score_ubf(void *p)
{
	struct score_cancel *c = p;
	RUBY_ATOMIC_SET(c->job->cancelled, 1);
}

static void *score_nogvl(void *p)
{
	struct score_job *j = p;
	for (long i = 0; i < j->nframes; i++) {
		if (j->cancelled)
			break;
		j->score += j->frames[i] * j->frames[i];
	}
	return NULL;
}

VALUE score_frames(VALUE self, VALUE ary)
{
	long n = RARRAY_LEN(ary);
	VALUE tmp;
	float *frames = ALLOCV_N(float, tmp, n); /* a copy the call owns */
	for (long i = 0; i < n; i++)
		frames[i] = (float)NUM2DBL(RARRAY_AREF(ary, i));
	struct score_job job = {frames, n, 0.0, 0};
	struct score_cancel cancel = {&job};
	rb_thread_call_without_gvl(score_nogvl, &job, score_ubf, &cancel); /* expect: offload-candidate */
	ALLOCV_END(tmp);
	return DBL2NUM(job.score);
}
