/* RARRAY_AREF(ary, i) copies an element (a VALUE) out of the array: storing
 * it in the callback's data is no pointer into the array. RARRAY_PTR (and
 * RARRAY_CONST_PTR) are. */
#include <ruby.h>
#include <ruby/thread.h>

struct pick_args {
	VALUE first;
	const VALUE *all;
	long out;
};

long lib_tag(long v);

static void *pick_nogvl(void *p)
{
	struct pick_args *a = p;
	a->out = lib_tag((long)a->first);
	if (a->all)
		a->out += lib_tag((long)a->all[0]);
	return NULL;
}

static VALUE pick_first(VALUE self, VALUE ary)
{
	struct pick_args a = {Qnil, NULL, 0};
	a.first = RARRAY_AREF(ary, 0);
	rb_thread_call_without_gvl(pick_nogvl, &a, NULL, NULL);
	return LONG2NUM(a.out);
}

static VALUE pick_all(VALUE self, VALUE ary)
{
	struct pick_args a = {Qnil, NULL, 0};
	a.all = RARRAY_PTR(ary); /* expect: unfrozen-input */ /* expect-msg: pointer into array 'ary' */
	rb_thread_call_without_gvl(pick_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(ary);
	return LONG2NUM(a.out);
}

void Init_array_element(void)
{
	VALUE c = rb_define_class("Picker", rb_cObject);
	rb_define_method(c, "first", pick_first, 1);
	rb_define_method(c, "all", pick_all, 1);
}
