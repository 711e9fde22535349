/* A read into a caller-supplied buffer, or into a fresh string when the
 * caller gives none (IO#read(len, buf) style): the fresh string is made on
 * one branch only, so on the other the callback writes into the caller's
 * String, which another thread can resize or free meanwhile (io.c locks it
 * with rb_str_locktmp_ensure). Not an offload candidate. Traps: every path
 * assigns a fresh string; the buffer locked for the call; a frozen copy made
 * only when the argument is not frozen already. */
#include <ruby.h>
#include <ruby/thread.h>
#include <unistd.h>

struct rd {
	char *p;
	size_t n;
	ssize_t got;
	int fd;
};

static void *rd_nogvl(void *d)
{
	struct rd *r = d;
	r->got = read(r->fd, r->p, r->n);
	return NULL;
}

static VALUE rd_read(int argc, VALUE *argv, VALUE self)
{
	struct rd r = {NULL, 0, 0, 0};
	VALUE len, buf;
	rb_scan_args(argc, argv, "11", &len, &buf);
	r.n = NUM2SIZET(len);
	if (NIL_P(buf)) {
		buf = rb_str_new(NULL, (long)r.n);
	} else {
		StringValue(buf);
		rb_str_modify(buf);
		rb_str_resize(buf, (long)r.n);
	}
	r.p = RSTRING_PTR(buf); /* expect: unfrozen-input */ /* expect-msg: 'buf' is an argument of 'rd_read' */
	rb_thread_call_without_gvl(rd_nogvl, &r, RUBY_UBF_IO, NULL);
	rb_str_set_len(buf, r.got > 0 ? r.got : 0);
	return buf;
}

/* The same with the buffer as a plain parameter. */
static VALUE rd_read_into(VALUE self, VALUE len, VALUE buf)
{
	struct rd r = {NULL, 0, 0, 0};
	r.n = NUM2SIZET(len);
	if (NIL_P(buf))
		buf = rb_str_new(NULL, (long)r.n);
	else
		rb_str_resize(buf, (long)r.n);
	r.p = RSTRING_PTR(buf); /* expect: unfrozen-input */
	rb_thread_call_without_gvl(rd_nogvl, &r, RUBY_UBF_IO, NULL);
	rb_str_set_len(buf, r.got > 0 ? r.got : 0);
	return buf;
}

/* Trap: a fresh string on every path. */
static VALUE rd_read_fresh(VALUE self, VALUE len, VALUE small)
{
	struct rd r = {NULL, 0, 0, 0};
	VALUE buf;
	r.n = NUM2SIZET(len);
	if (RTEST(small))
		buf = rb_str_new(NULL, 16);
	else
		buf = rb_str_new(NULL, (long)r.n);
	r.p = RSTRING_PTR(buf);
	r.n = (size_t)RSTRING_LEN(buf);
	rb_thread_call_without_gvl(rd_nogvl, &r, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	rb_str_set_len(buf, r.got > 0 ? r.got : 0);
	return buf;
}

/* Trap: the caller's buffer locked for the call (unlocked right after; the
 * ensure is cleanup-not-ensured's business, not this rule's). */
static VALUE rd_read_locked(VALUE self, VALUE len, VALUE buf)
{
	struct rd r = {NULL, 0, 0, 0};
	r.n = NUM2SIZET(len);
	if (NIL_P(buf))
		buf = rb_str_new(NULL, (long)r.n);
	else
		rb_str_resize(buf, (long)r.n);
	rb_str_locktmp(buf);
	r.p = RSTRING_PTR(buf);
	rb_thread_call_without_gvl(rd_nogvl, &r, RUBY_UBF_IO, NULL);
	rb_str_unlocktmp(buf); /* expect: cleanup-not-ensured */
	rb_str_set_len(buf, r.got > 0 ? r.got : 0);
	return buf;
}

static void *wr_nogvl(void *d)
{
	struct rd *r = d;
	r->got = write(r->fd, r->p, r->n);
	return NULL;
}

/* Trap: copied only when not frozen; on the other path it is frozen. */
static VALUE rd_write_frozen(VALUE self, VALUE s)
{
	struct rd r = {NULL, 0, 0, 1};
	StringValue(s);
	if (!OBJ_FROZEN(s))
		s = rb_str_new_frozen(s);
	r.p = RSTRING_PTR(s);
	r.n = (size_t)RSTRING_LEN(s);
	rb_thread_call_without_gvl(wr_nogvl, &r, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	RB_GC_GUARD(s);
	return LONG2NUM((long)r.got);
}

void Init_branch_argument_or_fresh(void)
{
	VALUE c = rb_define_class("Rd", rb_cObject);
	rb_define_method(c, "read", rd_read, -1);
	rb_define_method(c, "read_into", rd_read_into, 2);
	rb_define_method(c, "read_fresh", rd_read_fresh, 2);
	rb_define_method(c, "read_locked", rd_read_locked, 2);
	rb_define_method(c, "write_frozen", rd_write_frozen, 1);
}
