/* Method arguments converted with StringValueCStr (which may replace the
 * VALUE with the result of #to_str) and used only through their C pointers:
 * the mysql2 PR #1504 shape. Both review points apply. */
#include <ruby.h>
#include <ruby/thread.h>

struct connect_args {
	const char *host;
	const char *user;
	int port;
};

int lib_connect(const char *host, const char *user, int port);

static void *connect_nogvl(void *p)
{
	struct connect_args *a = p;
	return (void *)(long)lib_connect(a->host, a->user, a->port);
}

static VALUE db_connect(VALUE self, VALUE host, VALUE user, VALUE port)
{
	struct connect_args a;
	a.host = NIL_P(host) ? NULL : StringValueCStr(host); /* expect: unfrozen-input */
	a.user = NIL_P(user) ? NULL : StringValueCStr(user); /* expect: unfrozen-input */ /* expect-note: the pointer into 'user' is taken here */
	a.port = NIL_P(port) ? 0 : NUM2INT(port);
	if (rb_thread_call_without_gvl(connect_nogvl, &a, NULL, NULL) == NULL) /* expect: missing-gc-guard */ /* expect-msg: nothing keeps 'host' and 'user' alive */
		rb_raise(rb_eIOError, "connect failed");
	return self;
}

/* The fixed version: frozen copies and guards after the call. */
static VALUE db_connect_fixed(VALUE self, VALUE host, VALUE user, VALUE port)
{
	struct connect_args a;
	host = NIL_P(host) ? Qnil : rb_str_new_frozen(host);
	user = NIL_P(user) ? Qnil : rb_str_new_frozen(user);
	a.host = NIL_P(host) ? NULL : StringValueCStr(host);
	a.user = NIL_P(user) ? NULL : StringValueCStr(user);
	a.port = NIL_P(port) ? 0 : NUM2INT(port);
	if (rb_thread_call_without_gvl(connect_nogvl, &a, NULL, NULL) == NULL)
		rb_raise(rb_eIOError, "connect failed");
	RB_GC_GUARD(host);
	RB_GC_GUARD(user);
	return self;
}

/* The method's frame holds its arguments for the whole call (like self,
 * design.md): RSTRING_PTR of an argument Ruby passed, or of one whose type was
 * checked before StringValueCStr, needs no guard. Still unfrozen. */
static VALUE db_connect_checked(VALUE self, VALUE host, VALUE user)
{
	struct connect_args a;
	Check_Type(host, T_STRING);
	a.host = StringValueCStr(host); /* expect: unfrozen-input */
	a.user = RSTRING_PTR(user); /* expect: unfrozen-input */
	a.port = 0;
	rb_thread_call_without_gvl(connect_nogvl, &a, NULL, NULL);
	return self;
}

/* rb_scan_args hands out the same arguments; a StringValueCStr without a type
 * check may replace one with the result of #to_str. */
static VALUE db_connect_argv(int argc, VALUE *argv, VALUE self)
{
	struct connect_args a;
	VALUE host, user;
	rb_scan_args(argc, argv, "2", &host, &user);
	Check_Type(host, T_STRING);
	a.host = StringValueCStr(host); /* expect: unfrozen-input */ /* expect-msg: 'host' is an argument of 'db_connect_argv' */
	a.user = StringValueCStr(user); /* expect: unfrozen-input */
	a.port = 0;
	rb_thread_call_without_gvl(connect_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: RB_GC_GUARD(user) */
	return self;
}

/* StringValue itself may replace the argument with the result of #to_str. */
static VALUE db_connect_converted(VALUE self, VALUE host)
{
	struct connect_args a;
	StringValue(host);
	a.host = RSTRING_PTR(host); /* expect: unfrozen-input */
	a.user = NULL;
	a.port = 0;
	rb_thread_call_without_gvl(connect_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */
	return self;
}

void Init_arguments(void)
{
	VALUE c = rb_define_class("DB", rb_cObject);
	rb_define_method(c, "connect", db_connect, 3);
	rb_define_method(c, "connect_fixed", db_connect_fixed, 3);
	rb_define_method(c, "connect_checked", db_connect_checked, 2);
	rb_define_method(c, "connect_argv", db_connect_argv, -1);
	rb_define_method(c, "connect_converted", db_connect_converted, 1);
}
