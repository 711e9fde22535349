/* nogvl-lint-test: --enable debug-offload-verdict */
/* The release runs in the body rb_mutex_synchronize calls, on the data
 * argument the method passes (cast back from VALUE): that argument is
 * followed into the method, as for rb_ensure bodies. A frozen copy's bytes
 * are safe; the method argument's own bytes are not. */
#include <ruby.h>
#include <ruby/thread.h>

struct crc_job {
	const char *p;
	long n;
	unsigned long out;
};

static VALUE crc_lock;

static void *crc_nogvl(void *d)
{
	struct crc_job *j = d;
	unsigned long h = 5381;
	for (long i = 0; i < j->n; i++)
		h = h * 33 + (unsigned char)j->p[i];
	j->out = h;
	return NULL;
}

static VALUE crc_locked(VALUE arg)
{
	struct crc_job *j = (struct crc_job *)arg;
	rb_nogvl(crc_nogvl, j, NULL, NULL, 0); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	return Qnil;
}

static VALUE m_crc(VALUE self, VALUE str)
{
	(void)self;
	StringValue(str);
	VALUE copy = rb_str_new_frozen(str);
	struct crc_job j = {RSTRING_PTR(copy), RSTRING_LEN(copy), 0};
	rb_mutex_synchronize(crc_lock, crc_locked, (VALUE)&j);
	RB_GC_GUARD(copy);
	return ULONG2NUM(j.out);
}

/* trap: the method argument's bytes, which another fiber may change */
static void *sum_nogvl(void *d)
{
	struct crc_job *j = d;
	unsigned long h = 0;
	for (long i = 0; i < j->n; i++)
		h += (unsigned char)j->p[i];
	j->out = h;
	return NULL;
}

static VALUE sum_locked(VALUE arg)
{
	struct crc_job *j = (struct crc_job *)arg;
	rb_nogvl(sum_nogvl, j, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'str' */
	return Qnil;
}

static VALUE m_sum(VALUE self, VALUE str)
{
	(void)self;
	StringValue(str);
	struct crc_job j = {RSTRING_PTR(str), RSTRING_LEN(str), 0}; /* expect: unfrozen-input */
	rb_mutex_synchronize(crc_lock, sum_locked, (VALUE)&j);
	RB_GC_GUARD(str);
	return ULONG2NUM(j.out);
}

void Init_mutex_body(void)
{
	crc_lock = rb_mutex_new();
	rb_gc_register_address(&crc_lock);
	rb_define_method(rb_cObject, "crc", m_crc, 1);
	rb_define_method(rb_cObject, "sum", m_sum, 1);
}
