/* The verdict data (src/model/verdict.h): gate names and safety from GATE_LIST,
 * the three end states, and the choice of the one missing fact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

static void gates_have_names_and_safety(void **state)
{
	(void)state;
	assert_string_equal(gate_name(GATE_RUBY_API), "Ruby API");
	assert_string_equal(gate_name(GATE_OPAQUE), "opaque callees");
	assert_string_equal(gate_name(GATE_WORK_SIZE), "work size");
	assert_string_equal(gate_name(GATE_COUNT), "?");
	for (int g = 0; g < GATE_COUNT; g++) {
		assert_string_not_equal(gate_name(g), "?");
		for (int h = 0; h < g; h++)
			assert_string_not_equal(gate_name(g), gate_name(h));
		assert_int_equal(gate_is_safety(g), g != GATE_WORK_SIZE);
	}
}

static void three_end_states(void **state)
{
	(void)state;
	assert_string_equal(verdict_state_name(OV_CANDIDATE), "safe");
	assert_string_equal(verdict_state_name(OV_FLAGGED_SAFE), "safe");
	assert_string_equal(verdict_state_name(OV_NOT_SAFE), "unsafe");
	assert_string_equal(verdict_state_name(OV_FLAGGED_UNSAFE), "unsafe");
	assert_string_equal(verdict_state_name(OV_CANNOT_VERIFY), "cannot verify");
	assert_string_equal(verdict_state_name(OV_FLAGGED_CANNOT_VERIFY), "cannot verify");
	assert_null(verdict_state_name(OV_NOT_APPLICABLE));
	assert_null(verdict_state_name(OV_NOT_EVALUATED));
}

/* The most decisive fact wins, the first of its kind; only "cannot verify"
 * evidence of a gate that is not failed counts. */
static void the_missing_fact_is_the_most_decisive(void **state)
{
	(void)state;
	struct loc l = {.file = "x.c", .line = 3, .col = 1};
	struct gate_result g = {0};
	struct missing_fact mf;
	gate_add(&g, GATE_INPUTS, GATE_UNKNOWN, &l, -1, "data from the caller");
	gate_fact(gate_add(&g, GATE_OPAQUE, GATE_UNKNOWN, &l, -1, "calls 'deflate'"), FACT_MODEL, "deflate");
	gate_fact(gate_add(&g, GATE_OPAQUE, GATE_UNKNOWN, &l, -1, "calls 'inflate'"), FACT_MODEL, "inflate");
	missing_fact_choose(&g, &mf);
	assert_int_equal(mf.kind, FACT_MODEL);
	assert_string_equal(mf.name, "deflate");
	assert_int_equal(mf.gate, GATE_OPAQUE);
	assert_int_equal(mf.others, 2);
	char *t = missing_fact_text(&mf);
	assert_non_null(strstr(t, "add a library model for 'deflate'"));
	assert_non_null(strstr(t, "2 more cannot-verify items"));
	free(t);
	gate_fact(gate_add(&g, GATE_OPAQUE, GATE_UNKNOWN, &l, -1, "did not parse"), FACT_HEADER, "zlib.h");
	missing_fact_choose(&g, &mf);
	assert_int_equal(mf.kind, FACT_HEADER);
	assert_string_equal(mf.name, "zlib.h");
	/* a gate that fails decides by itself: its unknowns are no missing fact */
	struct gate_result f = {0};
	gate_fact(gate_add(&f, GATE_OPAQUE, GATE_UNKNOWN, &l, -1, "calls 'x'"), FACT_MODEL, "x");
	gate_add(&f, GATE_OPAQUE, GATE_FAIL, &l, -1, "fails");
	gate_add(&f, GATE_INPUTS, GATE_UNKNOWN, &l, -1, "receiver memory");
	missing_fact_choose(&f, &mf);
	assert_int_equal(mf.kind, FACT_DATA);
	assert_null(mf.name);
	assert_int_equal(mf.others, 0);
	/* evidence of no other kind: the function it names, else the gate */
	struct gate_result o = {0};
	gate_add(&o, GATE_UBF, GATE_UNKNOWN, &l, -1, "the UBF calls 'lock'");
	missing_fact_choose(&o, &mf);
	assert_int_equal(mf.kind, FACT_OTHER);
	assert_string_equal(mf.name, "unblocking function");
	gate_result_free(&o);
	o = (struct gate_result){0};
	gate_fact(gate_add(&o, GATE_UBF, GATE_UNKNOWN, &l, -1, "the UBF calls 'gpr_mu_lock'"), FACT_OTHER,
		  "gpr_mu_lock");
	missing_fact_choose(&o, &mf);
	assert_string_equal(mf.name, "gpr_mu_lock");
	t = missing_fact_text(&mf);
	assert_non_null(strstr(t, "decide the unblocking function gate: the UBF calls 'gpr_mu_lock'"));
	free(t);
	gate_result_free(&o);
	/* the work-size gate decides no safety */
	struct gate_result w = {0};
	gate_add(&w, GATE_WORK_SIZE, GATE_UNKNOWN, &l, -1, "small?");
	missing_fact_choose(&w, &mf);
	assert_int_equal(mf.kind, FACT_NONE);
	gate_result_free(&g);
	gate_result_free(&f);
	gate_result_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(gates_have_names_and_safety),
		cmocka_unit_test(three_end_states),
		cmocka_unit_test(the_missing_fact_is_the_most_decisive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
