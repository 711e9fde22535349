/* nogvl-lint-test: --enable debug-offload-verdict */
/* A gem helper takes the callback and its data as parameters, puts them in
 * a struct and releases the GVL inside an rb_protect body that reads them
 * back out of that struct (relay(fn, data): r.fn = fn; r.data = data;
 * rb_protect(body, (VALUE)&r, &state); body: rb_nogvl(r->fn, r->data ...)).
 * The helper also runs the body once with a callback of its own, so it is
 * not a release wrapper: the release is one site whose data is the r.data
 * of every body call, followed into the helper and from there into each of
 * its callers. Traps: a helper whose address is taken, a caller that
 * passes on data of its own caller that nobody lists, and a body also kept
 * in a variable, stay "cannot verify";
 * a method argument's bytes fail the inputs gate. */
#include <ruby.h>
#include <ruby/thread.h>

typedef void *(*job_fn)(void *);

struct relay_arg {
	job_fn fn;
	void *data;
};

struct tally_job {
	const char *p;
	long n;
	long out;
};

static void *clear_job(void *d)
{
	struct tally_job *j = d;
	j->out = 0;
	return NULL;
}

static void *tally_nogvl(void *d)
{
	struct tally_job *j = d;
	for (long i = 0; i < j->n; i++)
		j->out += (unsigned char)j->p[i] == ' ';
	return NULL;
}

/* every caller hands frozen bytes or a local: the flow ends in each */
static VALUE relay_body(VALUE arg)
{
	struct relay_arg *r = (struct relay_arg *)arg;
	return (VALUE)rb_nogvl(r->fn, r->data, NULL, NULL, 0); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
}

static VALUE relay(job_fn fn, void *data)
{
	struct relay_arg r;
	struct tally_job spare = {NULL, 0, 0};
	int state = 0;
	r.fn = clear_job;
	r.data = &spare;
	rb_protect(relay_body, (VALUE)&r, &state);
	if (state)
		rb_jump_tag(state);
	r.fn = fn;
	r.data = data;
	VALUE v = rb_protect(relay_body, (VALUE)&r, &state);
	if (state)
		rb_jump_tag(state);
	return v;
}

static VALUE m_tally(VALUE self, VALUE str)
{
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	relay(tally_nogvl, &j);
	RB_GC_GUARD(copy);
	return LONG2NUM(j.out);
}

/* one level further up: tally_twice hands on its own parameter */
static VALUE tally_twice(struct tally_job *j)
{
	j->out = 0;
	return relay(tally_nogvl, j);
}

static VALUE m_tally2(VALUE self, VALUE str)
{
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	tally_twice(&j);
	RB_GC_GUARD(copy);
	return LONG2NUM(j.out);
}

/* trap: one caller hands the method argument's own bytes */
static VALUE count_body(VALUE arg)
{
	struct relay_arg *r = (struct relay_arg *)arg;
	return (VALUE)rb_nogvl(r->fn, r->data, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'str' */
}

static VALUE count_relay(job_fn fn, void *data)
{
	struct relay_arg r;
	struct tally_job spare = {NULL, 0, 0};
	int state = 0;
	r.fn = clear_job;
	r.data = &spare;
	rb_protect(count_body, (VALUE)&r, &state);
	r.fn = fn;
	r.data = data;
	VALUE v = rb_protect(count_body, (VALUE)&r, &state);
	if (state)
		rb_jump_tag(state);
	return v;
}

static VALUE m_count_frozen(VALUE self, VALUE str)
{
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	count_relay(tally_nogvl, &j);
	RB_GC_GUARD(copy);
	return LONG2NUM(j.out);
}

static VALUE m_count(VALUE self, VALUE str)
{
	StringValue(str);
	struct tally_job j = {RSTRING_PTR(str), RSTRING_LEN(str), 0}; /* expect: unfrozen-input */
	count_relay(tally_nogvl, &j);
	RB_GC_GUARD(str);
	return LONG2NUM(j.out);
}

/* trap: the helper is also kept in a function pointer, so it has callers
 * nobody can list */
static VALUE kept_body(VALUE arg)
{
	struct relay_arg *r = (struct relay_arg *)arg;
	return (VALUE)rb_nogvl(r->fn, r->data, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('r'), which is not followed */
}

static VALUE kept_relay(job_fn fn, void *data)
{
	struct relay_arg r;
	struct tally_job spare = {NULL, 0, 0};
	int state = 0;
	r.fn = clear_job;
	r.data = &spare;
	rb_protect(kept_body, (VALUE)&r, &state);
	r.fn = fn;
	r.data = data;
	return rb_protect(kept_body, (VALUE)&r, &state);
}

VALUE (*kept_relay_hook)(job_fn, void *) = kept_relay;

static VALUE m_kept(VALUE self, VALUE str)
{
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	kept_relay(tally_nogvl, &j);
	RB_GC_GUARD(copy);
	return LONG2NUM(j.out);
}

/* trap: a caller passes on its own parameter, and is itself used through a
 * function pointer: the data it hands on comes from code nobody lists */
static VALUE far_body(VALUE arg)
{
	struct relay_arg *r = (struct relay_arg *)arg;
	return (VALUE)rb_nogvl(r->fn, r->data, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('r'), which is not followed */
}

static VALUE far_relay(job_fn fn, void *data)
{
	struct relay_arg r;
	struct tally_job spare = {NULL, 0, 0};
	int state = 0;
	r.fn = clear_job;
	r.data = &spare;
	rb_protect(far_body, (VALUE)&r, &state);
	r.fn = fn;
	r.data = data;
	return rb_protect(far_body, (VALUE)&r, &state);
}

static VALUE far_tally(void *job)
{
	return far_relay(tally_nogvl, job);
}

VALUE (*far_tally_hook)(void *) = far_tally;

/* trap: the body is also kept in a variable, so it may be run on data
 * nobody lists */
static VALUE stored_body(VALUE arg)
{
	struct relay_arg *r = (struct relay_arg *)arg;
	return (VALUE)rb_nogvl(r->fn, r->data, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('r'), which is not followed */
}

VALUE (*stored_body_hook)(VALUE);

static VALUE stored_relay(job_fn fn, void *data)
{
	struct relay_arg r;
	struct tally_job spare = {NULL, 0, 0};
	int state = 0;
	stored_body_hook = stored_body;
	r.fn = clear_job;
	r.data = &spare;
	rb_protect(stored_body, (VALUE)&r, &state);
	r.fn = fn;
	r.data = data;
	return rb_protect(stored_body, (VALUE)&r, &state);
}

static VALUE m_stored(VALUE self, VALUE str)
{
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	stored_relay(tally_nogvl, &j);
	RB_GC_GUARD(copy);
	return LONG2NUM(j.out);
}

void Init_protect_relay(void)
{
	rb_define_method(rb_cObject, "tally", m_tally, 1);
	rb_define_method(rb_cObject, "tally2", m_tally2, 1);
	rb_define_method(rb_cObject, "count_frozen", m_count_frozen, 1);
	rb_define_method(rb_cObject, "count_str", m_count, 1);
	rb_define_method(rb_cObject, "kept", m_kept, 1);
	rb_define_method(rb_cObject, "stored", m_stored, 1);
}
