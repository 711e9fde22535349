/* The shared and thread state gates record their evidence whatever the
 * site's flags: an unflagged twin of every offload-only positive must still
 * fail its gate (it blocks offload-candidate), while the rules stay silent
 * for it (the corpus checks that). Runs the analysis on corpus cases. */
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
#include "state_knowledge.h"

struct analysed {
	struct options o;
	struct run r;
};

static struct analysed *analyse(const char *rel)
{
	struct analysed *a = calloc(1, sizeof(*a));
	char *path = xasprintf("%s/%s", CORPUS_DIR, rel);
	char *argv[] = {"nogvl-lint", "--jobs", "1", path};
	options_init(&a->o);
	assert_int_equal(options_parse(&a->o, 4, argv, stderr), 0);
	FILE *devnull = fopen("/dev/null", "w");
	log_stream = devnull;
	assert_int_equal(run_analysis(&a->o, &a->r), 0);
	log_stream = NULL;
	fclose(devnull);
	free(path);
	return a;
}

static void analysed_free(struct analysed *a)
{
	run_free(&a->r);
	options_free(&a->o);
	free(a);
}

/* The gate state of `gate` at the release site in function `caller` whose
 * callback is `cb` (the n-th such site, from 0). */
static int gate_at(struct analysed *a, gate_checker check, int gate, const char *caller, const char *cb, int nth)
{
	const struct model *m = a->r.model;
	for (size_t i = 0; i < m->sites.n; i++) {
		const struct msite *s = &m->sites.v[i];
		if (s->is_template || strcmp(m->fns.v[s->fn].f->name, caller) != 0 || !s->cb.ntargets ||
		    strcmp(m->fns.v[s->cb.targets[0]].f->name, cb) != 0)
			continue;
		if (nth-- > 0)
			continue;
		struct reach_set rs;
		model_reach_from(m, &s->cb, (int32_t)i, &rs);
		struct gate_result g = {0};
		check(m, s, &rs, &g);
		int st = g.state[gate];
		gate_result_free(&g);
		reach_set_free(&rs);
		return st;
	}
	fail_msg("no site %s -> %s", caller, cb);
	return -1;
}

static void test_openssl_pattern(void **state)
{
	(void)state;
	struct analysed *a = analyse("thread-local-state/openssl_pattern.c");
	/* flagged and unflagged: the read after the call fails the gate */
	assert_int_equal(gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "kdf_offloaded", "kdf_nogvl", 0),
			 GATE_FAIL);
	assert_int_equal(
		gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "kdf_offloaded_direct", "kdf_nogvl", 0),
		GATE_FAIL);
	assert_int_equal(gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "kdf_plain", "kdf_nogvl", 0),
			 GATE_FAIL);
	assert_int_equal(gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "kdf_plain_direct", "kdf_nogvl", 0),
			 GATE_FAIL);
	/* the callback returns its own error code: passes */
	assert_int_equal(
		gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "kdf_offloaded_ok", "kdf_nogvl_err", 0),
		GATE_PASS);
	analysed_free(a);
}

static void test_error_channels(void **state)
{
	(void)state;
	struct analysed *a = analyse("thread-local-state/error_channels.c");
	assert_int_equal(gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "open_plain", "open_repo", 0),
			 GATE_FAIL);
	assert_int_equal(gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "open_plain", "load_lib", 0),
			 GATE_FAIL);
	/* errno after the call, and a read unrelated to the callback: pass */
	assert_int_equal(gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "read_flagged", "read_fd", 0),
			 GATE_PASS);
	assert_int_equal(gate_at(a, gate_check_error_channel, GATE_ERROR_CHANNEL, "read_then_err", "read_fd", 0),
			 GATE_PASS);
	analysed_free(a);
}

static void test_thread_state_twins(void **state)
{
	(void)state;
	struct analysed *a = analyse("thread-local-state/tls.c");
	const char *cbs[] = {"uses_tls", "uses_specific", "uses_identity", "uses_locale", "uses_sigmask"};
	for (size_t i = 0; i < sizeof(cbs) / sizeof(cbs[0]); i++) {
		assert_int_equal(gate_at(a, gate_check_thread_state, GATE_THREAD_STATE, "run_flagged", cbs[i], 0),
				 GATE_FAIL);
		assert_int_equal(gate_at(a, gate_check_thread_state, GATE_THREAD_STATE, "run_plain", cbs[i], 0),
				 GATE_FAIL);
	}
	/* seeds set and cleared inside the callback; scoped locale and mask */
	assert_int_equal(gate_at(a, gate_check_thread_state, GATE_THREAD_STATE, "run_flagged", "seeded", 0), GATE_PASS);
	assert_int_equal(gate_at(a, gate_check_thread_state, GATE_THREAD_STATE, "run_flagged", "seeded_specific", 0),
			 GATE_PASS);
	assert_int_equal(
		gate_at(a, gate_check_thread_state, GATE_THREAD_STATE, "run_flagged", "scoped_locale_and_mask", 0),
		GATE_PASS);
	analysed_free(a);
}

static void test_lock_twins(void **state)
{
	(void)state;
	struct analysed *a = analyse("lock-across-boundary/locks.c");
	const char *cbs[] = {"query_and_unlock", "lock_for_caller", "wait_ready", "drop_and_retake"};
	for (size_t i = 0; i < sizeof(cbs) / sizeof(cbs[0]); i++) {
		assert_int_equal(gate_at(a, gate_check_locks, GATE_LOCK, "flagged", cbs[i], 0), GATE_FAIL);
		assert_int_equal(gate_at(a, gate_check_locks, GATE_LOCK, "plain", cbs[i], 0), GATE_FAIL);
	}
	assert_int_equal(gate_at(a, gate_check_locks, GATE_LOCK, "flagged", "count", 0), GATE_PASS);
	assert_int_equal(gate_at(a, gate_check_locks, GATE_LOCK, "flagged", "count", 1), GATE_PASS);
	analysed_free(a);
	a = analyse("lock-across-boundary/two_callbacks.c");
	assert_int_equal(gate_at(a, gate_check_locks, GATE_LOCK, "run_txn", "begin_plain", 0), GATE_FAIL);
	assert_int_equal(gate_at(a, gate_check_locks, GATE_LOCK, "run_txn", "commit_plain", 0), GATE_FAIL);
	analysed_free(a);
}

static void test_shared_state(void **state)
{
	(void)state;
	struct analysed *a = analyse("shared-mutable-state/pointers.c");
	assert_int_equal(gate_at(a, gate_check_shared_state, GATE_SHARED_STATE, "rb_work", "work", 0), GATE_FAIL);
	assert_int_equal(gate_at(a, gate_check_shared_state, GATE_SHARED_STATE, "rb_work", "work_on", 0), GATE_FAIL);
	assert_int_equal(gate_at(a, gate_check_shared_state, GATE_SHARED_STATE, "rb_work", "work_on_local", 0),
			 GATE_PASS);
	analysed_free(a);
	/* mt-unsafe calls fail the same gate */
	a = analyse("mt-unsafe-call/libc.c");
	assert_int_equal(gate_at(a, gate_check_shared_state, GATE_SHARED_STATE, "rb_scan", "convert", 0), GATE_FAIL);
	analysed_free(a);
}

static void test_tables_sorted(void **state)
{
	(void)state;
	assert_null(state_knowledge_unsorted());
	assert_non_null(mt_unsafe_find("strtok"));
	assert_null(mt_unsafe_find("strtok_r"));
	assert_false(err_channel_find("__errno_location", NULL)); /* errno is carried back */
	assert_true(err_channel_find("ERR_get_error", NULL));
	assert_true(err_channel_producer(ERRCH_OPENSSL, "PKCS5_PBKDF2_HMAC", NULL));
	assert_true(err_channel_producer(ERRCH_OPENSSL, "foo", "/usr/include/openssl/evp.h"));
	assert_false(err_channel_producer(ERRCH_OPENSSL, "read", "/usr/include/unistd.h"));
	assert_int_equal(lock_fn_find("pthread_mutex_unlock")->op, LOCK_RELEASE);
	assert_null(lock_fn_find("sem_post"));
	/* a library's own mutex, from its model (sqlite.yml) */
	assert_int_equal(lock_fn_find("sqlite3_mutex_enter")->op, LOCK_ACQUIRE);
	assert_int_equal(lock_fn_find("sqlite3_mutex_leave")->op, LOCK_RELEASE);
	/* other libraries' mutex wrappers, by name and argument */
	struct lock_fn buf;
	const char *mu[] = {"&event_queue.mu"}, *fd[] = {"fd"}, *cv[] = {"&q->cv", "&q->mutex"};
	const struct lock_fn *lf = lock_fn_classify("gpr_mu_lock", mu, 1, &buf);
	assert_non_null(lf);
	assert_int_equal(lf->op, LOCK_ACQUIRE);
	lf = lock_fn_classify("uv_mutex_unlock", mu, 1, &buf);
	assert_non_null(lf);
	assert_int_equal(lf->op, LOCK_RELEASE);
	lf = lock_fn_classify("gpr_cv_wait", cv, 2, &buf);
	assert_non_null(lf);
	assert_int_equal(lf->op, LOCK_WAIT);
	assert_null(lock_fn_classify("flock", fd, 1, &buf));
	assert_null(lock_fn_classify("my_unlock", fd, 1, &buf));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_sorted),  cmocka_unit_test(test_openssl_pattern),
		cmocka_unit_test(test_error_channels), cmocka_unit_test(test_thread_state_twins),
		cmocka_unit_test(test_lock_twins),     cmocka_unit_test(test_shared_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
