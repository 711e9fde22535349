/* A stub that releases the GVL around one library call with its arguments
 * copied into its own struct (ruby-pg's gvl_PQexec(conn, query) shape, here
 * written out by hand). The callers' pointers are followed one hop up. */
#include <ruby.h>
#include <ruby/thread.h>

struct conn;
int lib_exec(struct conn *c, const char *query);

struct exec_params {
	struct conn *c;
	const char *query;
	int ret;
};

static void *exec_skeleton(void *p)
{
	struct exec_params *e = p;
	e->ret = lib_exec(e->c, e->query);
	return NULL;
}

static int gvl_exec(struct conn *c, const char *query)
{
	struct exec_params params = {c, query, 0};
	rb_thread_call_without_gvl(exec_skeleton, &params, NULL, NULL);
	return params.ret;
}

struct conn *get_conn(VALUE self);

/* The argument's buffer, and nothing keeps it alive (ged/ruby-pg #738, #721). */
static VALUE conn_exec(VALUE self, VALUE query)
{
	int r = gvl_exec(get_conn(self), StringValueCStr(query)); /* expect: unfrozen-input, missing-gc-guard */ /* expect-msg: (through 'gvl_exec') */ /* expect-msg: (to 'gvl_exec', which releases the GVL) */
	return INT2NUM(r);
}

/* Fixed: a frozen copy, guarded after the call. */
static VALUE conn_exec_fixed(VALUE self, VALUE query)
{
	VALUE q = rb_str_new_frozen(query);
	int r = gvl_exec(get_conn(self), StringValueCStr(q));
	RB_GC_GUARD(q);
	return INT2NUM(r);
}

/* A C string literal is no Ruby object. */
static VALUE conn_reset(VALUE self)
{
	return INT2NUM(gvl_exec(get_conn(self), "DISCARD ALL"));
}

void Init_stub_wrapper(void)
{
	VALUE c = rb_define_class("Conn", rb_cObject);
	rb_define_method(c, "exec", conn_exec, 1);
	rb_define_method(c, "exec_fixed", conn_exec_fixed, 1);
	rb_define_method(c, "reset", conn_reset, 0);
}
