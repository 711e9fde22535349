/* Unit tests for the inputs analysis (rules/analysis/inputs_*.c): its tables, the
 * inputs/outputs offload gates, and the doc pages of the input/output rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli.h"
#include "gates.h"
#include "inputs_flow.h"
#include "log.h"
#include "rule.h"
#include "run.h"

static void test_tables_sorted(void **state)
{
	(void)state;
	assert_true(io_tables_sorted());
}

struct states {
	int in, out;
};

static struct states gate_states(const struct model *m, const char *fn)
{
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		uint32_t dfn, ev;
		if (!io_release_event(m, s, &dfn, &ev))
			continue;
		/* the function whose data it is, or the caller of a helper that releases */
		const char *name = m->fns.v[s->fn].f->name;
		if (strcmp(name, fn) != 0)
			continue;
		struct gate_result g = {0};
		gate_check_inputs(m, s, NULL, &g);
		gate_check_outputs(m, s, NULL, &g);
		for (size_t k = 0; k < g.ev.n; k++)
			assert_true(g.ev.v[k].gate == GATE_INPUTS || g.ev.v[k].gate == GATE_OUTPUTS);
		struct states st = {g.state[GATE_INPUTS], g.state[GATE_OUTPUTS]};
		gate_result_free(&g);
		return st;
	}
	fail_msg("no site in %s", fn);
	return (struct states){-1, -1};
}

static void test_gates(void **state)
{
	(void)state;
	char *argv[] = {"nogvl-lint", "--jobs", "1", TEST_DATA_DIR "/inputs_gate.c"};
	struct options o;
	options_init(&o);
	assert_int_equal(options_parse(&o, 4, argv, stderr), 0);
	FILE *devnull = fopen("/dev/null", "w");
	log_stream = devnull;
	struct run r;
	assert_int_equal(run_analysis(&o, &r), 0);
	log_stream = NULL;
	const struct model *m = r.model;
	assert_non_null(m);
	struct states st;
	st = gate_states(m, "inputs_pass_frozen");
	assert_int_equal(st.in, GATE_PASS);
	assert_int_equal(st.out, GATE_PASS);
	assert_int_equal(gate_states(m, "inputs_fail_shared").in, GATE_FAIL);
	assert_int_equal(gate_states(m, "inputs_fail_unguarded").in, GATE_FAIL);
	assert_int_equal(gate_states(m, "inputs_unknown_receiver").in, GATE_UNKNOWN);
	assert_int_equal(gate_states(m, "run_from_caller").in, GATE_PASS); /* its one caller is followed */
	assert_int_equal(gate_states(m, "run_opaque").in, GATE_UNKNOWN);
	assert_int_equal(gate_states(m, "run_stub").in, GATE_FAIL);
	assert_int_equal(gate_states(m, "outputs_pass_static_mutex").out, GATE_PASS);
	st = gate_states(m, "outputs_fail_static");
	assert_int_equal(st.in, GATE_PASS);
	assert_int_equal(st.out, GATE_FAIL);
	assert_int_equal(gate_states(m, "inputs_pass_no_data").in, GATE_PASS);
	assert_int_equal(gate_states(m, "inputs_unknown_object_state").in, GATE_UNKNOWN);
	run_free(&r);
	options_free(&o);
	fclose(devnull);
}

/* rules/docs/<slug>.md: heading, severity and category, summary verbatim, sections. */
static void check_doc(const char *slug)
{
	const struct rule_desc *rd = rule_find(slug);
	assert_non_null(rd);
	char *path = xasprintf("%s/../rules/docs/%s.md", CORPUS_DIR, slug);
	size_t len = 0;
	char *text = read_file(path, &len, 1u << 20);
	if (!text)
		fail_msg("cannot read %s", path);
	char *want = xasprintf("# %s\n\n**Severity:** %s · **Category:** %s\n\n%s\n\n## Why\n", slug,
			       severity_name(rd->severity), rd->category, rd->summary);
	if (strncmp(text, want, strlen(want)) != 0)
		fail_msg("%s does not start with:\n%s", path, want);
	const char *sections[] = {"\n## How to fix\n", "\n## Examples\n", "\n### Bad\n", "\n### Good\n",
				  "\n## Known limits\n"};
	const char *at = text;
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++) {
		const char *p = strstr(at, sections[i]);
		if (!p)
			fail_msg("%s: missing or out of order: %s", path, sections[i] + 1);
		at = p + 1;
	}
	free(want);
	free(text);
	free(path);
}

static void test_docs(void **state)
{
	(void)state;
	check_doc("unfrozen-input");
	check_doc("missing-gc-guard");
	check_doc("unset-result");
	check_doc("cleanup-not-ensured");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_sorted),
		cmocka_unit_test(test_gates),
		cmocka_unit_test(test_docs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
