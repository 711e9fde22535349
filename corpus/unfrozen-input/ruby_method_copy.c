/* A copy made by a Ruby String method called through rb_funcall (strip,
 * downcase ...) is a new string only this frame holds, like rb_str_new: not
 * the caller's argument (extralite's sql = rb_funcall(sql, ID_strip, 0)).
 * Methods that may return the receiver itself (to_s, to_str) are not copies,
 * Ruby's dup is an ordinary unfrozen copy like rb_str_dup, and an ID that is
 * not always the same method proves nothing. */
#include <ruby.h>
#include <ruby/thread.h>

struct run_args {
	const char *sql;
	long len;
};

long lib_run(const char *sql, long len);

static void *run_nogvl(void *p)
{
	struct run_args *a = p;
	a->len = lib_run(a->sql, a->len);
	return NULL;
}

static ID id_strip;
static ID id_either;

static VALUE run_on(VALUE sql)
{
	struct run_args a;
	a.sql = RSTRING_PTR(sql); /* expect: unfrozen-input */ /* expect-msg: 'sql' */
	a.len = RSTRING_LEN(sql);
	rb_thread_call_without_gvl(run_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(sql);
	return LONG2NUM(a.len);
}

static VALUE exec_stripped(VALUE self, VALUE sql)
{
	struct run_args a;
	VALUE s = rb_funcall(sql, id_strip, 0);
	a.sql = RSTRING_PTR(s);
	a.len = RSTRING_LEN(s);
	rb_thread_call_without_gvl(run_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(s);
	return LONG2NUM(a.len);
}

static VALUE exec_downcased(VALUE self, VALUE sql)
{
	struct run_args a;
	VALUE s = rb_funcall(sql, rb_intern("downcase"), 0);
	a.sql = RSTRING_PTR(s);
	a.len = RSTRING_LEN(s);
	rb_thread_call_without_gvl(run_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(s);
	return LONG2NUM(a.len);
}

static VALUE exec_to_s(VALUE self, VALUE sql)
{
	struct run_args a;
	VALUE s = rb_funcall(sql, rb_intern("to_s"), 0);
	a.sql = RSTRING_PTR(s); /* expect: unfrozen-input */ /* expect-msg: 's' */
	a.len = RSTRING_LEN(s);
	rb_thread_call_without_gvl(run_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(s);
	return LONG2NUM(a.len);
}

static VALUE exec_dup(VALUE self, VALUE sql)
{
	struct run_args a;
	VALUE s = rb_funcall(sql, rb_intern("dup"), 0);
	a.sql = RSTRING_PTR(s); /* expect: unfrozen-input */ /* expect-msg: 's' */ /* expect-note: is a copy made by 'dup' */
	a.len = RSTRING_LEN(s);
	rb_thread_call_without_gvl(run_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(s);
	return LONG2NUM(a.len);
}

static VALUE exec_either(VALUE self, VALUE sql)
{
	return run_on(rb_funcall(sql, id_either, 0));
}

void Init_ruby_method_copy(void)
{
	VALUE c = rb_define_class("Runner", rb_cObject);
	id_strip = rb_intern("strip");
	id_either = rb_intern("strip");
	if (getenv("RAW"))
		id_either = rb_intern("itself");
	rb_define_method(c, "stripped", exec_stripped, 1);
	rb_define_method(c, "downcased", exec_downcased, 1);
	rb_define_method(c, "to_s_of", exec_to_s, 1);
	rb_define_method(c, "dup_of", exec_dup, 1);
	rb_define_method(c, "either", exec_either, 1);
}
