/* Unit tests for the UBF knowledge tables and the UBF offload gate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"
#include "gates.h"
#include "log.h"
#include "run.h"
#include "io_fd.h"
#include "ubf.h"

/* The blocking models carry the system-header flag values the bound rules
 * compare with, and the descriptor waits io-fd-without-io-region uses. */
static void test_blocking_models(void **state)
{
	(void)state;
	const struct blocking_call *bc = ubf_blocking_call("flock");
	assert_non_null(bc);
	assert_int_equal(bc->bound, BOUND_FLAG_CLEAR);
	assert_int_equal(bc->arg, 1);
	assert_int_equal(bc->flag, LOCK_NB);
	assert_int_equal(bc->flag2, LOCK_UN);
	assert_int_equal(ubf_blocking_call("waitpid")->flag, WNOHANG);
	assert_int_equal(ubf_blocking_call("msgrcv")->flag, IPC_NOWAIT);
	assert_int_equal(ubf_blocking_call("fcntl")->flag, F_SETLKW);
	assert_int_equal(ubf_blocking_call("lockf")->flag, F_LOCK);
	assert_true(ubf_blocking_call("read")->fd_wait);
	assert_false(ubf_blocking_call("write")->fd_wait);
	assert_true(io_fd_blocking_call("recv"));
	assert_true(io_fd_blocking_call("connect"));
	assert_false(io_fd_blocking_call("nanosleep"));
	assert_false(io_fd_blocking_call("memcpy"));
	/* a prefix entry never stands for an exact table entry */
	assert_null(ubf_blocking_call("__builtin_read"));
	assert_true(ubf_builtin("__builtin_expect"));
	assert_true(ubf_builtin("atomic_thread_fence"));
	assert_false(ubf_builtin("memcpy"));
	assert_true(ubf_thread_id_call("gettid"));
	assert_true(ubf_thread_signal_call("pthread_kill"));
	assert_true(ubf_pipe_write_call("eventfd_write"));
	assert_true(ubf_polls_interrupts("rb_thread_check_ints"));
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
		const char *name = s->ubf_kind == UBF_FUNC   ? cbres_name(m, &s->ubf)
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
		cmocka_unit_test(test_blocking_models),
		cmocka_unit_test(test_classification),
		cmocka_unit_test(test_gate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
