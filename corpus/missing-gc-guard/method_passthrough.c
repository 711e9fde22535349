/* Method arguments handed on by C callers. A method that calls another
 * method's function with its own untouched argument passes what the VM frame
 * of the outer method holds: no guard is needed for that (the rmagick
 * Image#profile! -> Image_delete_profile shape). A StringValueCStr conversion
 * still may replace the argument with the result of #to_str, which only the C
 * local holds: that is reported, saying so. A C caller that passes a
 * temporary is reported, naming that call. */
#include <ruby.h>
#include <ruby/thread.h>

struct prof_args {
	const char *name;
	long len;
};

int lib_remove_profile(const char *name, long len);

static void *remove_nogvl(void *p)
{
	struct prof_args *a = p;
	return (void *)(long)lib_remove_profile(a->name, a->len);
}

/* The type is checked: the argument stays what the caller passed. Its callers
 * pass their own arguments. */
static VALUE img_delete_checked(VALUE self, VALUE name)
{
	struct prof_args a;
	Check_Type(name, T_STRING);
	a.name = RSTRING_PTR(name); /* expect: unfrozen-input */
	a.len = RSTRING_LEN(name);
	rb_thread_call_without_gvl(remove_nogvl, &a, NULL, NULL);
	return self;
}

static VALUE img_profile_bang_checked(VALUE self, VALUE name, VALUE profile)
{
	if (NIL_P(profile))
		return img_delete_checked(self, name);
	return self;
}

static VALUE img_strip_checked(VALUE self, VALUE name)
{
	return img_profile_bang_checked(self, name, Qnil);
}

/* StringValueCStr: a non-String argument is replaced by #to_str's result. */
static VALUE img_delete(VALUE self, VALUE name)
{
	struct prof_args a;
	a.name = StringValueCStr(name); /* expect: unfrozen-input */ /* expect-note: may replace it with the result of #to_str */
	a.len = 0;
	rb_thread_call_without_gvl(remove_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: nothing keeps 'name' alive past this call when it is not a String */
	return self;
}

static VALUE img_profile_bang(VALUE self, VALUE name, VALUE profile)
{
	if (NIL_P(profile))
		return img_delete(self, name);
	return self;
}

/* A C caller passing a temporary: only the callee's frame holds it. */
static VALUE img_delete_temp(VALUE self, VALUE name)
{
	struct prof_args a;
	Check_Type(name, T_STRING);
	a.name = RSTRING_PTR(name); /* expect: unfrozen-input */
	a.len = RSTRING_LEN(name);
	rb_thread_call_without_gvl(remove_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */
	return self;
}

static VALUE img_reset(VALUE self)
{
	return img_delete_temp(self, rb_str_new_cstr("*")); /* expect-note: which 'img_reset' calls here with 'rb_str_new_cstr("*")' */
}

/* A caller that reassigns its own argument before passing it on. */
static VALUE img_delete_reassigned(VALUE self, VALUE name)
{
	struct prof_args a;
	Check_Type(name, T_STRING);
	a.name = RSTRING_PTR(name); /* expect: unfrozen-input */
	a.len = RSTRING_LEN(name);
	rb_thread_call_without_gvl(remove_nogvl, &a, NULL, NULL); /* expect: missing-gc-guard */
	return self;
}

static VALUE img_delete_upcase(VALUE self, VALUE name)
{
	name = rb_funcall(name, rb_intern("upcase"), 0);
	return img_delete_reassigned(self, name); /* expect-note: which 'img_delete_upcase' calls here with 'name' */
}

void Init_method_passthrough(void)
{
	VALUE c = rb_define_class("Img", rb_cObject);
	rb_define_method(c, "delete_checked", img_delete_checked, 1);
	rb_define_method(c, "profile_checked!", img_profile_bang_checked, 2);
	rb_define_method(c, "strip_checked", img_strip_checked, 1);
	rb_define_method(c, "delete", img_delete, 1);
	rb_define_method(c, "profile!", img_profile_bang, 2);
	rb_define_method(c, "delete_temp", img_delete_temp, 1);
	rb_define_method(c, "reset", img_reset, 0);
	rb_define_method(c, "delete_reassigned", img_delete_reassigned, 1);
	rb_define_method(c, "delete_upcase", img_delete_upcase, 1);
}
