/* nogvl-lint-test: --enable debug-offload-verdict */
/* A helper returns a pointer into the string it is given; the method hands
 * that pointer to a stub that releases the GVL with it in its data. The
 * string is the helper's argument: judged in the method, at the call. */
#include <ruby.h>
#include <ruby/thread.h>

#ifndef RB_NOGVL_INTR_FAIL
#define RB_NOGVL_INTR_FAIL 0
#endif

struct scan_args {
	const char *text;
	long hits;
};

static void *scan_nogvl(void *p)
{
	struct scan_args *a = p;
	a->hits = 0;
	for (const char *c = a->text; *c; c++)
		a->hits += *c == ',';
	return NULL;
}

static long scan_stub(const char *text)
{
	struct scan_args a = {text, 0};
	rb_nogvl(scan_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'text_of' hands the callback a pointer into string 'str' */
	return a.hits;
}

static const char *text_of(VALUE str)
{
	return StringValueCStr(str);
}

static VALUE scan_shared(VALUE self, VALUE str)
{
	const char *text = text_of(str); /* expect: unfrozen-input */ /* expect-msg: 'text_of' gives the callback of rb_nogvl (through 'scan_stub') a pointer into string 'str' */
	long n = scan_stub(text);
	RB_GC_GUARD(str);
	return LONG2NUM(n);
}

static VALUE scan_direct(VALUE self, VALUE line)
{
	long n = scan_stub(text_of(line)); /* expect: unfrozen-input */ /* expect-msg: a pointer into string 'line' */
	RB_GC_GUARD(line);
	return LONG2NUM(n);
}

/* Trap: a frozen copy, kept alive past the call. */
static VALUE scan_frozen(VALUE self, VALUE str)
{
	VALUE fz = rb_str_new_frozen(str);
	long n = scan_stub(text_of(fz));
	RB_GC_GUARD(fz);
	return LONG2NUM(n);
}

/* The helper both fills the struct it is given and returns the pointer the
 * method stores in it: followed through its argument and through its result. */
static const char *prepare(struct scan_args *a, VALUE str)
{
	a->hits = 0;
	return StringValueCStr(str);
}

static VALUE scan_both(VALUE self, VALUE str)
{
	struct scan_args a;
	a.text = prepare(&a, str); /* expect: unfrozen-input */ /* expect-msg: 'prepare' gives the callback of rb_nogvl a pointer into string 'str' */
	rb_nogvl(scan_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'prepare' hands the callback a pointer into string 'str' */
	RB_GC_GUARD(str);
	return LONG2NUM(a.hits);
}

/* Trap for the other side: a pointer returned from below the last helper
 * level followed (three) is not followed, so the site is "cannot verify",
 * never a candidate, even for a frozen string. */
static const char *deep4(VALUE s)
{
	return StringValueCStr(s);
}
static const char *deep3(VALUE s)
{
	return deep4(s);
}
static const char *deep2(VALUE s)
{
	return deep3(s);
}
static const char *deep1(VALUE s)
{
	return deep2(s);
}

static VALUE scan_deep(VALUE self, VALUE str)
{
	VALUE fz = rb_str_new_frozen(str);
	struct scan_args a = {NULL, 0};
	a.text = deep1(fz);
	rb_nogvl(scan_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: 'deep4' is a pointer a helper returns from below the last level followed */
	RB_GC_GUARD(fz);
	return LONG2NUM(a.hits);
}

void Init_returned_pointer(void)
{
	VALUE c = rb_define_class("Scanner", rb_cObject);
	rb_define_method(c, "shared", scan_shared, 1);
	rb_define_method(c, "direct", scan_direct, 1);
	rb_define_method(c, "frozen", scan_frozen, 1);
	rb_define_method(c, "both", scan_both, 1);
	rb_define_method(c, "deep", scan_deep, 1);
}
