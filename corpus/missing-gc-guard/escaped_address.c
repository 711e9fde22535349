/* A VALUE whose address went to a Ruby function (StringValueCStr(x),
 * rb_scan_args(..., &x)) is still not kept alive across a later release
 * call: the address is only lent for that call. bcrypt-ruby (#270: frozen
 * copies stored back into the argument, then StringValueCStr on it) and
 * mysql2 (#1504: StringValueCStr on the method's arguments) were fixed with
 * RB_GC_GUARD on that very variable. A helper that converts its own
 * parameter (ruby-pg's #738 shape) lends the address of a slot that is gone
 * when it returns; a guard after the call is the fix in every case. */
#include <ruby.h>
#include <ruby/thread.h>

struct send_args {
	const char *text;
	long len;
};

long lib_send(const char *text, long len);

static void *send_nogvl(void *p)
{
	struct send_args *a = p;
	a->len = lib_send(a->text, a->len);
	return NULL;
}

/* a frozen copy stored back into the argument, its address lent to StringValueCStr */
static VALUE send_frozen(VALUE self, VALUE msg)
{
	struct send_args a;
	msg = rb_str_new_frozen(msg);
	a.text = StringValueCStr(msg); /* expect-note: only RB_GC_GUARD after the release call does */
	a.len = RSTRING_LEN(msg);
	rb_thread_call_without_gvl(send_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: RB_GC_GUARD(msg) */
	return LONG2NUM(a.len);
}

/* rb_scan_args writes the optional argument through its address */
static VALUE send_scanned(int argc, VALUE *argv, VALUE self)
{
	struct send_args a;
	VALUE msg, opts;
	rb_scan_args(argc, argv, "11", &msg, &opts);
	msg = rb_str_dup_frozen(msg);
	a.text = RSTRING_PTR(msg);
	a.len = RSTRING_LEN(msg);
	rb_thread_call_without_gvl(send_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: RB_GC_GUARD(msg) */
	return LONG2NUM(a.len);
}

/* the fixed shape: the guard after the call */
static VALUE send_guarded(VALUE self, VALUE msg)
{
	struct send_args a;
	msg = rb_str_new_frozen(msg);
	a.text = StringValueCStr(msg);
	a.len = RSTRING_LEN(msg);
	rb_thread_call_without_gvl(send_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(msg);
	return LONG2NUM(a.len);
}

void Init_escaped_address(void)
{
	VALUE c = rb_define_class("Sender", rb_cObject);
	rb_define_method(c, "send_frozen", send_frozen, 1);
	rb_define_method(c, "send_scanned", send_scanned, -1);
	rb_define_method(c, "send_guarded", send_guarded, 1);
}
