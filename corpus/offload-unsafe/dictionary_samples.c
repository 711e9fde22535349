/* nogvl-lint-test: --enable debug-offload-verdict */
/* Dictionary training over samples a helper collects from a Ruby array: the
 * helper stores a pointer into each string in a malloc'd array, the method
 * stores that array in the callback's data. Every library call is modelled
 * (rules/models/zstd.yml: ZDICT_trainFromBuffer, ZDICT_isError,
 * ZSTD_getErrorCode), so only the inputs decide: the strings are method
 * arguments, neither frozen, copied nor locked. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

#ifndef RB_NOGVL_INTR_FAIL
#define RB_NOGVL_INTR_FAIL 0
#endif

size_t ZDICT_trainFromBuffer(void *dict, size_t cap, const void *samples, const size_t *sizes, unsigned n);
unsigned ZDICT_isError(size_t code);
int ZSTD_getErrorCode(size_t result);

struct sample {
	const char *ptr;
	size_t len;
};

struct train_job {
	const struct sample *samples;
	size_t count;
	char *dict;
	size_t cap;
	size_t result;
	int error;
};

static void *train_nogvl(void *p)
{
	struct train_job *j = p;
	size_t total = 0;
	for (size_t i = 0; i < j->count; i++)
		total += j->samples[i].len;
	char *flat = malloc(total ? total : 1);
	size_t *sizes = malloc(sizeof(*sizes) * (j->count ? j->count : 1));
	if (!flat || !sizes) {
		free(flat);
		free(sizes);
		j->error = -1;
		return NULL;
	}
	size_t at = 0;
	for (size_t i = 0; i < j->count; i++) {
		memcpy(flat + at, j->samples[i].ptr, j->samples[i].len);
		at += j->samples[i].len;
		sizes[i] = j->samples[i].len;
	}
	j->result = ZDICT_trainFromBuffer(j->dict, j->cap, flat, sizes, (unsigned)j->count);
	free(flat);
	free(sizes);
	j->error = ZDICT_isError(j->result) ? ZSTD_getErrorCode(j->result) : 0;
	return NULL;
}

static struct sample *gather(VALUE list, size_t *count)
{
	size_t n = (size_t)RARRAY_LEN(list);
	struct sample *all = malloc(sizeof(*all) * (n ? n : 1));
	if (!all)
		rb_raise(rb_eNoMemError, "out of memory");
	for (size_t i = 0; i < n; i++) {
		VALUE s = rb_ary_entry(list, (long)i);
		all[i].ptr = RSTRING_PTR(s); /* expect: unfrozen-input */ /* expect-msg: a pointer into string 's', which is not frozen */
		all[i].len = (size_t)RSTRING_LEN(s);
	}
	*count = n;
	return all;
}

static VALUE train_shared(VALUE self, VALUE list)
{
	size_t count;
	struct sample *samples = gather(list, &count);
	VALUE dict = rb_str_buf_new(4096);
	struct train_job j = {samples, count, RSTRING_PTR(dict), 4096, 0, 0};
	rb_nogvl(train_nogvl, &j, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'RSTRING_PTR' hands the callback a pointer into string 's' */
	free(samples);
	RB_GC_GUARD(list);
	RB_GC_GUARD(dict);
	return j.error ? Qnil : rb_str_resize(dict, (long)j.result);
}

/* Trap: the helper copies each sample into memory it owns. */
static struct sample *gather_copy(VALUE list, size_t *count)
{
	size_t n = (size_t)RARRAY_LEN(list);
	struct sample *all = calloc(n ? n : 1, sizeof(*all));
	if (!all)
		rb_raise(rb_eNoMemError, "out of memory");
	for (size_t i = 0; i < n; i++) {
		VALUE s = rb_ary_entry(list, (long)i);
		size_t len = (size_t)RSTRING_LEN(s);
		char *copy = malloc(len ? len : 1);
		if (!copy)
			rb_raise(rb_eNoMemError, "out of memory");
		memcpy(copy, RSTRING_PTR(s), len);
		all[i].ptr = copy;
		all[i].len = len;
	}
	*count = n;
	return all;
}

static VALUE train_copied(VALUE self, VALUE list)
{
	size_t count;
	struct sample *samples = gather_copy(list, &count);
	VALUE dict = rb_str_buf_new(4096);
	struct train_job j = {samples, count, RSTRING_PTR(dict), 4096, 0, 0};
	rb_nogvl(train_nogvl, &j, NULL, NULL, RB_NOGVL_INTR_FAIL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	for (size_t i = 0; i < count; i++)
		free((void *)samples[i].ptr);
	free(samples);
	RB_GC_GUARD(dict);
	return j.error ? Qnil : rb_str_resize(dict, (long)j.result);
}

void Init_dictionary_samples(void)
{
	VALUE c = rb_define_class("Trainer", rb_cObject);
	rb_define_method(c, "train", train_shared, 1);
	rb_define_method(c, "train_copied", train_copied, 1);
}
