/* nogvl-lint-test: --enable debug-offload-verdict */
/* A helper builds a C array of (pointer, length) pairs, one per element of a
 * Ruby array argument, and returns it; the method stores the array in the
 * callback's data. The element pointers point into the caller's strings:
 * inputs of the callback like any RSTRING_PTR stored in the struct itself. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

#ifndef RB_NOGVL_INTR_FAIL
#define RB_NOGVL_INTR_FAIL 0
#endif

struct piece {
	const char *bytes;
	size_t n;
};

struct merge_args {
	const struct piece *pieces;
	size_t count;
	size_t total;
};

static size_t weigh(const char *p, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += (unsigned char)p[i];
	return w;
}

static void *merge_nogvl(void *p)
{
	struct merge_args *a = p;
	a->total = 0;
	for (size_t i = 0; i < a->count; i++)
		a->total += weigh(a->pieces[i].bytes, a->pieces[i].n);
	return NULL;
}

static struct piece *collect(VALUE list, size_t *count)
{
	size_t n = (size_t)RARRAY_LEN(list);
	struct piece *all = malloc(sizeof(*all) * (n ? n : 1));
	if (!all)
		rb_raise(rb_eNoMemError, "out of memory");
	for (size_t i = 0; i < n; i++) {
		VALUE item = rb_ary_entry(list, (long)i);
		struct piece *one = &all[i];
		one->bytes = RSTRING_PTR(item); /* expect: unfrozen-input */ /* expect-msg: a pointer into string 'item', which is not frozen */
		one->n = (size_t)RSTRING_LEN(item);
	}
	*count = n;
	return all;
}

static VALUE merge_shared(VALUE self, VALUE list)
{
	size_t count;
	struct piece *pieces = collect(list, &count);
	struct merge_args a = {.pieces = pieces, .count = count, .total = 0};
	rb_nogvl(merge_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 'item' */
	free(pieces);
	RB_GC_GUARD(list);
	return SIZET2NUM(a.total);
}

/* Trap: the helper copies the bytes into memory of its own. */
static struct piece *collect_copy(VALUE list, size_t *count)
{
	size_t n = (size_t)RARRAY_LEN(list);
	struct piece *all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		rb_raise(rb_eNoMemError, "out of memory");
	for (size_t i = 0; i < n; i++) {
		VALUE item = rb_ary_entry(list, (long)i);
		size_t len = (size_t)RSTRING_LEN(item);
		char *copy = malloc(len ? len : 1);
		if (!copy)
			rb_raise(rb_eNoMemError, "out of memory");
		memcpy(copy, RSTRING_PTR(item), len);
		all[i].bytes = copy;
		all[i].n = len;
	}
	*count = n;
	return all;
}

static VALUE merge_copied(VALUE self, VALUE list)
{
	size_t count;
	struct piece *pieces = collect_copy(list, &count);
	struct merge_args a = {.pieces = pieces, .count = count, .total = 0};
	rb_nogvl(merge_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: candidate (withheld: cleanup-not-ensured */
	for (size_t i = 0; i < count; i++)
		free((void *)pieces[i].bytes);
	free(pieces);
	return SIZET2NUM(a.total);
}

/* Trap: one element, from a frozen copy the method keeps alive. */
static struct piece *collect_one(VALUE str)
{
	struct piece *one = malloc(sizeof(*one));
	if (!one)
		rb_raise(rb_eNoMemError, "out of memory");
	one->bytes = RSTRING_PTR(str);
	one->n = (size_t)RSTRING_LEN(str);
	return one;
}

static VALUE merge_frozen(VALUE self, VALUE str)
{
	VALUE fz = rb_str_new_frozen(str);
	struct piece *pieces = collect_one(fz);
	struct merge_args a = {.pieces = pieces, .count = 1, .total = 0};
	rb_nogvl(merge_nogvl, &a, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: candidate (withheld: cleanup-not-ensured */
	free(pieces);
	RB_GC_GUARD(fz);
	return SIZET2NUM(a.total);
}

void Init_returned_elements(void)
{
	VALUE c = rb_define_class("Merger", rb_cObject);
	rb_define_method(c, "shared", merge_shared, 1);
	rb_define_method(c, "copied", merge_copied, 1);
	rb_define_method(c, "frozen", merge_frozen, 1);
}
