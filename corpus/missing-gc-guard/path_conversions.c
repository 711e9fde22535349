/* FilePathValue (rb_get_path: #to_path, then #to_str) and SockAddrStringValue
 * (an Addrinfo's packed sockaddr) convert in place like StringValue: the
 * method's frame holds the original argument, and the converted String
 * lives only in the C local. A Check_Type before the conversion, or a
 * guard after the call, keeps the local's value alive. */
#include <ruby.h>
#include <ruby/thread.h>
/* after ruby.h, as an extension does: ruby.h's config defines _GNU_SOURCE,
 * which changes connect()'s parameter type in glibc */
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

/* ext/socket's rubysocket.h spells it so */
VALUE rsock_sockaddr_string_value(volatile VALUE *v);
#define SockAddrStringValue(v) rsock_sockaddr_string_value(&(v))

struct open_args {
	const char *path;
	int fd;
};

static void *open_nogvl(void *p)
{
	struct open_args *a = p;
	a->fd = open(a->path, O_RDONLY);
	return NULL;
}

static VALUE open_path(VALUE self, VALUE path)
{
	struct open_args a;
	FilePathValue(path);
	a.path = RSTRING_PTR(path); /* expect: unfrozen-input */
	rb_thread_call_without_gvl(open_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: missing-gc-guard */ /* expect-msg: nothing keeps 'path' alive past this call when it is not a String */
	return INT2NUM(a.fd);
}

/* trap: guarded after the call */
static VALUE open_path_guarded(VALUE self, VALUE path)
{
	struct open_args a;
	FilePathValue(path);
	a.path = RSTRING_PTR(path); /* expect: unfrozen-input */
	rb_thread_call_without_gvl(open_nogvl, &a, RUBY_UBF_IO, NULL);
	RB_GC_GUARD(path);
	return INT2NUM(a.fd);
}

/* trap: a String checked before; nothing converts it */
static VALUE open_checked(VALUE self, VALUE path)
{
	struct open_args a;
	Check_Type(path, T_STRING);
	a.path = RSTRING_PTR(path); /* expect: unfrozen-input */
	rb_thread_call_without_gvl(open_nogvl, &a, RUBY_UBF_IO, NULL);
	return INT2NUM(a.fd);
}

struct connect_args {
	int fd;
	const struct sockaddr *to;
	socklen_t len;
	int ret;
};

static void *connect_nogvl(void *p)
{
	struct connect_args *c = p;
	c->ret = connect(c->fd, c->to, c->len);
	return NULL;
}

static VALUE connect_to(VALUE self, VALUE fd, VALUE to)
{
	struct connect_args c;
	c.fd = NUM2INT(fd);
	SockAddrStringValue(to);
	c.to = (const struct sockaddr *)RSTRING_PTR(to); /* expect: unfrozen-input */
	c.len = (socklen_t)RSTRING_LEN(to);
	rb_thread_call_without_gvl(connect_nogvl, &c, RUBY_UBF_IO, NULL); /* expect: missing-gc-guard */ /* expect-msg: nothing keeps 'to' alive past this call when it is not a String */
	return INT2NUM(c.ret);
}

void Init_path_conversions(void)
{
	rb_define_method(rb_cObject, "open_path", open_path, 1);
	rb_define_method(rb_cObject, "open_path_guarded", open_path_guarded, 1);
	rb_define_method(rb_cObject, "open_checked", open_checked, 1);
	rb_define_method(rb_cObject, "connect_to", connect_to, 2);
}
