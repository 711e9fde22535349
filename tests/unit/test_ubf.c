/* Unit tests for the UBF knowledge tables and the UBF offload gate. */
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
#include "log.h"
#include "run.h"
#include "ubf.h"

static void test_tables_sorted(void **state)
{
	(void)state;
	size_t n;
	const struct ubf_table *t = ubf_tables(&n);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 1; k < t[i].n; k++)
			if (strcmp(t[i].v[k - 1], t[i].v[k]) >= 0)
				fail_msg("table %s not sorted at '%s' / '%s'", t[i].name, t[i].v[k - 1], t[i].v[k]);
	assert_true(ubf_blocking_table_sorted());
}

static void test_classification(void **state)
{
	(void)state;
	const struct blocking_call *bc = ubf_blocking_call("poll");
	assert_non_null(bc);
	assert_int_equal(bc->bound, BOUND_NEG_TIMEOUT);
	assert_int_equal(bc->arg, 2);
	assert_int_equal(ubf_blocking_call("select")->bound, BOUND_NULL_TIMEOUT);
	assert_int_equal(ubf_blocking_call("waitpid")->wake, WAKE_SIGNAL_PROCESS);
	assert_int_equal(ubf_blocking_call("pthread_cond_wait")->bound, BOUND_NEVER);
	assert_int_equal(ubf_blocking_call("pthread_cond_timedwait")->bound, BOUND_ALWAYS);
	assert_null(ubf_blocking_call("pthread_mutex_lock"));
	assert_null(ubf_blocking_call("memcpy"));
	assert_true(ubf_cpu_call("memcpy"));
	assert_true(ubf_cpu_call("deflate"));
	assert_false(ubf_cpu_call("mysql_real_query"));
	/* POSIX.1-2017 list via signal-safety(7) */
	assert_true(ubf_async_signal_safe("write"));
	assert_true(ubf_async_signal_safe("pthread_kill"));
	assert_true(ubf_async_signal_safe("sem_post"));
	assert_true(ubf_async_signal_safe("eventfd_write"));
	assert_true(ubf_async_signal_safe("__atomic_store_n"));
	assert_false(ubf_async_signal_safe("pthread_cond_signal"));
	assert_false(ubf_async_signal_safe("pthread_mutex_lock"));
	assert_false(ubf_async_signal_safe("malloc"));
	assert_false(ubf_async_signal_safe("printf"));
	assert_false(ubf_async_signal_safe("snprintf"));
	assert_true(ubf_alloc_call("free"));
	assert_true(ubf_lock_call("pthread_mutex_lock"));
	assert_false(ubf_lock_call("pthread_mutex_trylock"));
	assert_true(ubf_stdio_call("fprintf"));
	assert_true(ubf_cond_signal_call("pthread_cond_broadcast"));
	assert_string_equal(ubf_libc_name("ruby_snprintf"), "snprintf");
	assert_string_equal(ubf_libc_name("ruby_nonempty_memcpy"), "memcpy");
	assert_null(ubf_libc_name("rb_funcall"));
}

static int gate_state_for(const struct model *m, const char *ubf_name)
{
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		const char *name = s->ubf_kind == UBF_FUNC ? cbres_name(m, &s->ubf)
				   : s->ubf_kind == UBF_NULL ? "NULL"
							     : ubf_kind_text(s->ubf_kind);
		if (strcmp(name, ubf_name) != 0)
			continue;
		struct reach_set rs;
		model_reach_from(m, &s->cb, (int32_t)s->id, &rs);
		struct gate_result g = {0};
		gate_check_ubf(m, s, &rs, &g);
		int st = g.state[GATE_UBF];
		for (size_t k = 0; k < g.ev.n; k++)
			assert_int_equal(g.ev.v[k].gate, GATE_UBF);
		gate_result_free(&g);
		reach_set_free(&rs);
		return st;
	}
	fail_msg("no site with UBF %s", ubf_name);
	return -1;
}

static void test_gate(void **state)
{
	(void)state;
	char *argv[] = {"nogvl-lint", "--jobs", "1", TEST_DATA_DIR "/ubf_gate.c"};
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
	assert_int_equal(gate_state_for(m, "NULL"), GATE_PASS);
	assert_int_equal(gate_state_for(m, "RUBY_UBF_IO"), GATE_PASS);
	assert_int_equal(gate_state_for(m, "ubf_flag_pipe"), GATE_PASS);
	assert_int_equal(gate_state_for(m, "ubf_kill_own"), GATE_PASS);
	assert_int_equal(gate_state_for(m, "ubf_kill_caller"), GATE_FAIL);
	assert_int_equal(gate_state_for(m, "ubf_self"), GATE_FAIL);
	assert_int_equal(gate_state_for(m, "ubf_ruby"), GATE_FAIL);
	assert_int_equal(gate_state_for(m, "ubf_cond"), GATE_UNKNOWN);
	assert_int_equal(gate_state_for(m, "ubf_lib"), GATE_UNKNOWN);
	assert_int_equal(gate_state_for(m, "ubf_tls"), GATE_FAIL);
	run_free(&r);
	options_free(&o);
	fclose(devnull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_sorted),
		cmocka_unit_test(test_classification),
		cmocka_unit_test(test_gate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
