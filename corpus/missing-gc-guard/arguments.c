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
	a.user = NIL_P(user) ? NULL : StringValueCStr(user); /* expect: unfrozen-input */
	a.port = NIL_P(port) ? 0 : NUM2INT(port);
	if (rb_thread_call_without_gvl(connect_nogvl, &a, NULL, NULL) == NULL) /* expect: missing-gc-guard, missing-gc-guard */ /* expect-msg: 'host' */ /* expect-msg: 'user' */
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

void Init_arguments(void)
{
	VALUE c = rb_define_class("DB", rb_cObject);
	rb_define_method(c, "connect", db_connect, 3);
	rb_define_method(c, "connect_fixed", db_connect_fixed, 3);
}
