/* nogvl-lint-test: --enable debug-offload-verdict */
/* The data of an rb_protect body is followed into the function that makes
 * the rb_protect call. When that function hands the data to one of the gem's
 * own functions first (fill_job(&j, str)), what the helper stores there is
 * not followed at that level, so the site cannot be verified. Before, nothing
 * was found there and the site was offered as a candidate although the
 * callback reads the method argument's own bytes. The trap: the same data
 * filled in the caller itself, from a frozen copy, is still a candidate. */
#include <ruby.h>
#include <ruby/thread.h>

struct tally_job {
	const char *p;
	long n;
	long out;
};

static void *tally_nogvl(void *d)
{
	struct tally_job *j = d;
	for (long i = 0; i < j->n; i++)
		j->out += (unsigned char)j->p[i] == ' ';
	return NULL;
}

static VALUE tally_body(VALUE arg)
{
	struct tally_job *j = (struct tally_job *)arg;
	rb_nogvl(tally_nogvl, j, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: 'm_tally' hands the callback's data to 'fill_job' before the call, and what 'fill_job' stores in it is not judged that far from the release */
	return Qnil;
}

static void fill_job(struct tally_job *j, VALUE str)
{
	j->p = RSTRING_PTR(str);
	j->n = RSTRING_LEN(str);
	j->out = 0;
}

static VALUE m_tally(VALUE self, VALUE str)
{
	struct tally_job j;
	int state = 0;
	StringValue(str);
	fill_job(&j, str);
	rb_protect(tally_body, (VALUE)&j, &state);
	RB_GC_GUARD(str);
	if (state)
		rb_jump_tag(state);
	return LONG2NUM(j.out);
}

/* trap: filled in the caller itself, from a frozen copy */
static void *count_nogvl(void *d)
{
	struct tally_job *j = d;
	for (long i = 0; i < j->n; i++)
		j->out += (unsigned char)j->p[i] == '\n';
	return NULL;
}

static VALUE count_body(VALUE arg)
{
	struct tally_job *j = (struct tally_job *)arg;
	rb_nogvl(count_nogvl, j, NULL, NULL, 0); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return Qnil;
}

static VALUE m_count(VALUE self, VALUE str)
{
	int state = 0;
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	rb_protect(count_body, (VALUE)&j, &state);
	RB_GC_GUARD(copy);
	if (state)
		rb_jump_tag(state);
	return LONG2NUM(j.out);
}

void Init_protect_caller_helper(void)
{
	rb_define_method(rb_cObject, "tally", m_tally, 1);
	rb_define_method(rb_cObject, "count_lines", m_count, 1);
}
