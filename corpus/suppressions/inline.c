/* Inline suppressions (src/suppress.h): each suppressed line must stay
 * silent (without the comments each of them is a finding); the one finding
 * whose comment names another rule still fires. */
#include <ruby.h>
#include <ruby/thread.h>

/* nogvl-lint: ignore[ruby-api-without-gvl] only expanded on error paths that re-take the GVL */
#define FAIL_ON_EMPTY(n) do { if (!(n)) rb_raise(rb_eArgError, "empty"); } while (0)

#define FAIL_TWICE(n) \
	do { \
		/* nogvl-lint: ignore[ruby-api-without-gvl] inside a multi-line macro */ \
		if (!(n)) rb_raise(rb_eArgError, "empty"); \
	} while (0)

struct job {
	VALUE str;
	long n;
};

static void *cb(void *p)
{
	struct job *j = p;
	j->n = RSTRING_LEN(j->str); // nogvl-lint: ignore[value-access-without-gvl] frozen and guarded by the caller
	// nogvl-lint: ignore[ruby-api-without-gvl] the comment stands alone: it covers the next line of code

	rb_raise(rb_eArgError, "line after");
	FAIL_ON_EMPTY(j->n);
	FAIL_TWICE(j->n);
	// nogvl-lint: ignore-begin[ruby-api-without-gvl,value-access-without-gvl] legacy block
	rb_raise(rb_eArgError, "in block");
	j->n += RSTRING_LEN(j->str);
	// nogvl-lint: ignore-end
	rb_raise(rb_eArgError, "other rule named"); /* nogvl-lint: ignore[value-access-without-gvl] */ /* expect: ruby-api-without-gvl */
	return NULL;
}

static VALUE m(VALUE self, VALUE s)
{
	struct job j = {s, 0};
	rb_thread_call_without_gvl(cb, &j, RUBY_UBF_IO, NULL);
	return Qnil;
}

void Init_inline(void)
{
	rb_define_method(rb_cObject, "m", m, 1);
}
