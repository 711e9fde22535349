/* A helper of the gem converts its own parameter with StringValueCStr and
 * returns the pointer (ruby-pg's pg_cstr_enc, ged/ruby-pg #738): when the
 * caller's argument is not a String, the #to_str result lives only in the
 * helper's parameter, gone when it returns. Guarding the caller's variable
 * does not help; converting it in the caller does. A method that hands its own
 * argv on to another method's function passes what the VM frame holds. */
#include <ruby.h>
#include <ruby/thread.h>

struct exec_args {
	const char *sql;
	int ret;
};

int lib_exec(const char *sql);

static void *exec_nogvl(void *p)
{
	struct exec_args *a = p;
	a->ret = lib_exec(a->sql);
	return NULL;
}

static const char *sql_cstr(VALUE str)
{
	return StringValueCStr(str); /* expect-note: 'sql_cstr' converts its parameter here */
}

static VALUE conn_exec_params(int argc, VALUE *argv, VALUE self);

static VALUE conn_exec(int argc, VALUE *argv, VALUE self)
{
	struct exec_args a = {NULL, 0};
	VALUE query = argv[0];
	if (argc > 1)
		return conn_exec_params(argc, argv, self);
	a.sql = sql_cstr(query); /* expect: unfrozen-input */
	rb_thread_call_without_gvl(exec_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: nothing keeps 'query' alive past this call when it is not a String */
	return INT2NUM(a.ret);
}

/* Checked to be a String first: nothing to convert. Hands its argv on. */
static VALUE conn_exec_params(int argc, VALUE *argv, VALUE self)
{
	struct exec_args a = {NULL, 0};
	VALUE query = argv[0];
	if (argc == 1)
		return conn_exec(1, argv, self);
	Check_Type(query, T_STRING);
	a.sql = sql_cstr(query); /* expect: unfrozen-input */
	rb_thread_call_without_gvl(exec_nogvl, &a, NULL, NULL);
	return INT2NUM(a.ret);
}

/* Converted in the method itself, guarded after the call: the fix. */
static VALUE conn_exec_fixed(VALUE self, VALUE query)
{
	struct exec_args a = {NULL, 0};
	StringValue(query);
	a.sql = sql_cstr(query); /* expect: unfrozen-input */
	rb_thread_call_without_gvl(exec_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(query);
	return INT2NUM(a.ret);
}

void Init_helper_conversion(void)
{
	VALUE c = rb_define_class("Conn", rb_cObject);
	rb_define_method(c, "exec", conn_exec, -1);
	rb_define_method(c, "exec_params", conn_exec_params, -1);
	rb_define_method(c, "exec_fixed", conn_exec_fixed, 1);
}
