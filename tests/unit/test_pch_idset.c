/* test_pch_idset.c: the preamble's identifier sets (pch_idset.h): what was
 * added is found, what was not is not, repeats are kept once, and the set
 * shrinks to its names when sealed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "helpers.h"
#include "pch_idset.h"

static void add(struct idset *s, const char *name)
{
	idset_add(s, name, strlen(name));
}

static void test_idset__members_and_strangers(void **state)
{
	(void)state;
	struct idset s = {0};
	add(&s, "RUBY_EXPORT");
	add(&s, "rb_thread_call_without_gvl");
	/* a name given with its length, inside a longer text */
	const char *line = "#define HAVE_RUBY_THREAD_H 1";
	idset_add(&s, line + 8, 18);
	idset_seal(&s);
	assert_true(idset_has(&s, "RUBY_EXPORT"));
	assert_true(idset_has(&s, "rb_thread_call_without_gvl"));
	assert_true(idset_has(&s, "HAVE_RUBY_THREAD_H"));
	assert_false(idset_has(&s, "HAVE_RUBY_THREAD"));
	assert_false(idset_has(&s, "RUBY_EXPORTS"));
	assert_false(idset_has(&s, ""));
	idset_free(&s);
	assert_null(s.v);
	assert_false(idset_has(&s, "RUBY_EXPORT"));
}

/* headers spell the same names again and again: each is kept once, across
 * the growth of the array, and sealing leaves no spare room */
static void test_idset__repeats_kept_once(void **state)
{
	(void)state;
	struct idset s = {0};
	char name[32];
	for (int round = 0; round < 50; round++)
		for (int i = 0; i < 3000; i++) {
			snprintf(name, sizeof(name), "name_%d", i);
			add(&s, name);
		}
	idset_seal(&s);
	assert_int_equal(s.n, 3000);
	assert_int_equal(s.cap, 3000);
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "name_%d", i);
		assert_true(idset_has(&s, name));
	}
	for (int i = 3000; i < 6000; i++) {
		snprintf(name, sizeof(name), "name_%d", i);
		assert_false(idset_has(&s, name));
	}
	idset_free(&s);
}

static void test_idset__empty(void **state)
{
	(void)state;
	struct idset s = {0};
	idset_seal(&s);
	assert_int_equal(s.n, 0);
	assert_false(idset_has(&s, "ruby_xmalloc"));
	idset_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idset__members_and_strangers),
		cmocka_unit_test(test_idset__repeats_kept_once),
		cmocka_unit_test(test_idset__empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
