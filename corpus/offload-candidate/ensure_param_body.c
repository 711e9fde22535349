/* nogvl-lint-test: --enable debug-offload-verdict */
/* The release runs in a body that the method does not hand to rb_ensure
 * itself: it passes the body and its data to the gem's own locking helper,
 * which runs rb_ensure(fn, (VALUE)data, ...) on its two parameters. The data
 * argument of each call of the helper is followed into the method, as for a
 * body given to rb_ensure directly. A frozen copy's bytes are safe; the
 * method argument's own bytes are not; a helper that keeps the function
 * pointer, or hands rb_ensure data of its own, has callers (or data) nobody
 * can list. */
#include <ruby.h>
#include <ruby/thread.h>

struct tally_job {
	const char *p;
	long n;
	long out;
};

static VALUE unlock_self(VALUE self)
{
	(void)self;
	return Qnil;
}

/* runs fn(data) under rb_ensure: fn and data are used nowhere else */
static VALUE with_lock(VALUE self, VALUE (*fn)(VALUE), void *data)
{
	return rb_ensure(fn, (VALUE)data, unlock_self, self);
}

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
	rb_nogvl(tally_nogvl, j, NULL, NULL, 0); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return Qnil;
}

static VALUE m_tally(VALUE self, VALUE str)
{
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	with_lock(self, tally_body, &j);
	RB_GC_GUARD(copy);
	return LONG2NUM(j.out);
}

/* trap: the method argument's bytes, which another fiber may change */
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
	rb_nogvl(count_nogvl, j, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'str' */
	return Qnil;
}

static VALUE m_count(VALUE self, VALUE str)
{
	StringValue(str);
	struct tally_job j = {RSTRING_PTR(str), RSTRING_LEN(str), 0}; /* expect: unfrozen-input */
	with_lock(self, count_body, &j);
	RB_GC_GUARD(str);
	return LONG2NUM(j.out);
}

/* trap: the helper also keeps the function pointer, so the body may run
 * later from anywhere, on data nobody can list */
static VALUE (*last_fn)(VALUE);

static VALUE with_lock_kept(VALUE self, VALUE (*fn)(VALUE), void *data)
{
	last_fn = fn;
	return rb_ensure(fn, (VALUE)data, unlock_self, self);
}

static void *kept_nogvl(void *d)
{
	struct tally_job *j = d;
	for (long i = 0; i < j->n; i++)
		j->out += (unsigned char)j->p[i] == '\t';
	return NULL;
}

static VALUE kept_body(VALUE arg)
{
	struct tally_job *j = (struct tally_job *)arg;
	rb_nogvl(kept_nogvl, j, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('arg'), which is not followed */
	return Qnil;
}

static VALUE m_kept(VALUE self, VALUE str)
{
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	with_lock_kept(self, kept_body, &j);
	RB_GC_GUARD(copy);
	return LONG2NUM(j.out);
}

/* trap: the helper hands rb_ensure data of its own, not its parameter */
static struct tally_job shared_job;

static VALUE with_own_data(VALUE self, VALUE (*fn)(VALUE), void *data)
{
	(void)data;
	return rb_ensure(fn, (VALUE)&shared_job, unlock_self, self);
}

static void *own_nogvl(void *d)
{
	struct tally_job *j = d;
	for (long i = 0; i < j->n; i++)
		j->out += (unsigned char)j->p[i] == ',';
	return NULL;
}

static VALUE own_body(VALUE arg)
{
	struct tally_job *j = (struct tally_job *)arg;
	rb_nogvl(own_nogvl, j, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data comes from the caller ('arg'), which is not followed */
	return Qnil;
}

static VALUE m_own(VALUE self, VALUE str)
{
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct tally_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	with_own_data(self, own_body, &j);
	RB_GC_GUARD(copy);
	return LONG2NUM(j.out);
}

void Init_ensure_param_body(void)
{
	rb_define_method(rb_cObject, "tally", m_tally, 1);
	rb_define_method(rb_cObject, "count_lines", m_count, 1);
	rb_define_method(rb_cObject, "kept", m_kept, 1);
	rb_define_method(rb_cObject, "own", m_own, 1);
}
