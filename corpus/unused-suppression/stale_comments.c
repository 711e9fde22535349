/* unused-suppression: ignore comments that no longer suppress anything are
 * reported on the comment's line; one that still suppresses a finding is not.
 * nogvl-lint-test: --report-unused-suppressions */
#include <ruby.h>
#include <ruby/thread.h>

struct job {
	VALUE str;
	long n;
};

static void *cb(void *p)
{
	struct job *j = p;
	j->n = RSTRING_LEN(j->str); // nogvl-lint: ignore[value-access-without-gvl] still needed
	j->n += 1; // nogvl-lint: ignore[value-access-without-gvl] the access moved away /* expect: unused-suppression */
	// nogvl-lint: ignore[ruby-api-without-gvl] covers the next line of code, which calls nothing /* expect: unused-suppression */
	j->n *= 2;
	return NULL;
}

static VALUE m(VALUE self, VALUE s)
{
	struct job j = {s, 0};
	rb_thread_call_without_gvl(cb, &j, RUBY_UBF_IO, NULL);
	return LONG2NUM(j.n);
}

void Init_stale_comments(void)
{
	rb_define_method(rb_cObject, "stale", m, 1);
}
