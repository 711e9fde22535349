/* Library models (src/model/libmodel.h): the built-in models load, carry a
 * source per entry and answer queries; bad model files are errors with
 * path:line:col, bounded in size and depth; user models override built-ins
 * and are marked as user models. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "knowledge.h"
#include "libmodel.h"
#include "state_knowledge.h"
#include "ubf.h"
#include "util.h"

static int reset(void **state)
{
	(void)state;
	models_reset();
	return 0;
}

static void builtins_load(void **state)
{
	(void)state;
	char *err = NULL;
	int rc = models_init(&err);
	if (rc)
		fprintf(stderr, "%s\n", err);
	assert_int_equal(rc, 0);
	size_t n = 0;
	const struct lib_model *const *all = models_all(&n);
	assert_true(n > 600);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(all[i]->source);
		assert_true(strlen(all[i]->source) > 5);
		assert_false(all[i]->user);
	}
	/* every library the issue lists has a model file */
	static const char *const libs[] = {"posix",    "linux",    "pthread", "intrinsics", "zlib",       "zstd",
					   "lz4",      "brotli",   "bzip2",   "liblzma",    "openssl",    "libpq",
					   "mysql",    "sqlite",   "libcurl", "libgit2",    "libxml2",    "libyaml",
					   "libmagic", "liburing", "libev",   "hiredis",    "magickcore", "magickwand",
					   "libvips",  "freetds",  "duckdb",  "lmdb",       "libsodium",  "libffi"};
	for (size_t k = 0; k < ARRAY_SIZE(libs); k++) {
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = str_eq(all[i]->library, libs[k]);
		if (!found)
			fprintf(stderr, "no model for %s\n", libs[k]);
		assert_true(found);
	}
}

static void queries(void **state)
{
	(void)state;
	const struct lib_model *lm = model_find("deflate");
	assert_non_null(lm);
	assert_int_equal(lm->thread_safe, LM_TS_PER_HANDLE);
	assert_string_equal(lm->library, "zlib");
	assert_string_equal(lm->file, "rules/models/zlib.yml");
	/* prefixes: the longest wins, an exact entry beats them */
	lm = model_find("__builtin_memcpy");
	assert_string_equal(lm->name, "__builtin_memcpy");
	assert_int_equal(lm->size_arg, 2);
	lm = model_find("__builtin_expect");
	assert_string_equal(lm->name, "__builtin_*");
	assert_null(model_find("no_such_function"));
	assert_null(model_find(NULL));
	/* the properties, one each */
	assert_int_equal(model_find("strlen")->pure == 1 || model_find("strlen")->thread_safe == LM_TS_ALWAYS, 1);
	assert_int_equal(model_find("PQexec")->blocks, LM_BLOCKS_RETRIES_EINTR);
	assert_int_equal(model_find("epoll_wait")->blocks, LM_BLOCKS_INTERRUPTIBLE);
	assert_true(model_find("chdir")->process_state & LM_PS_CWD);
	assert_int_equal(model_find("chdir")->thread_safe, LM_TS_UNKNOWN);
	assert_true(model_find("fprintf")->process_state & LM_PS_STDIO);
	assert_true(model_find("umask")->process_state & LM_PS_UMASK);
	assert_true(model_find("sigaction")->process_state & LM_PS_SIGNALS);
	assert_true(model_find("close")->process_state & LM_PS_FD_TABLE);
	assert_non_null(model_find("sqlite3_backup_step")->registered_by);
	assert_string_equal(model_find("sqlite3_backup_step")->registered_by[0], "sqlite3_busy_handler");
	assert_null(model_find("sqlite3_backup_step")->registered_by[1]);
	/* ImageMagick: an operation is per image and may run the progress
	 * monitor and the memory handlers the gem registered */
	const struct lib_model *rz = model_find("ResizeImage");
	assert_int_equal(rz->thread_safe, LM_TS_PER_HANDLE);
	assert_int_equal(rz->handle_arg, 0);
	assert_string_equal(rz->library, "magickcore");
	bool monitor = false, memory = false;
	for (const char *const *r = rz->registered_by; r && *r; r++) {
		monitor = monitor || str_eq(*r, "SetImageProgressMonitor");
		memory = memory || str_eq(*r, "SetMagickMemoryMethods");
	}
	assert_true(monitor && memory);
	assert_int_equal(model_find("SetImageProgressMonitor")->registers_handler, 1);
	assert_int_equal(model_find("SetMagickMemoryMethods")->registers_handler, 0);
	assert_int_equal(model_find("ImageToBlob")->handle_arg, 1);
	assert_int_equal(model_find("ReadImage")->blocks, LM_BLOCKS_UNINTERRUPTIBLE);
	assert_int_equal(model_find("MagickResizeImage")->thread_safe, LM_TS_PER_HANDLE);
	assert_int_equal(model_find("ERR_get_error")->err_use, LM_ERR_READS);
	assert_int_equal(model_find("PKCS5_PBKDF2_HMAC")->err_use, LM_ERR_PRODUCES);
	assert_string_equal(model_find("PKCS5_PBKDF2_HMAC")->err_read_with, "ERR_get_error");
	assert_int_equal(model_find("write")->async_signal_safe, 1);
	assert_int_equal(model_find("strtok")->thread_safe, LM_TS_NEVER);
	assert_string_equal(model_find("strtok")->instead, "strtok_r");
	assert_int_equal(model_find("ctermid")->null_arg, 0);
	/* the old C interfaces answer from the models */
	assert_true(known_safe_call("memcpy"));
	assert_false(known_safe_call("strtok"));
	assert_false(known_safe_call("chdir"));
	assert_true(cheap_call("memcpy"));
	assert_int_equal(cheap_call_size_arg("memcpy"), 2);
	assert_non_null(mt_unsafe_find("localtime"));
	assert_true(ubf_async_signal_safe("sem_post"));
	assert_true(err_channel_producer(ERRCH_OPENSSL, "PKCS5_PBKDF2_HMAC", NULL));
}

static char *load(const char *text)
{
	char *err = NULL;
	if (models_load_text("/u/m.yml", text, strlen(text), true, &err) == 0)
		return NULL;
	return err;
}

#define EXPECT_ERR(text, what)                                                                                         \
	do {                                                                                                           \
		char *e_ = load(text);                                                                                 \
		assert_non_null(e_);                                                                                   \
		if (!strstr(e_, what))                                                                                 \
			fprintf(stderr, "got: %s\n", e_);                                                              \
		assert_non_null(strstr(e_, what));                                                                     \
		free(e_);                                                                                              \
	} while (0)

static void bad_files(void **state)
{
	(void)state;
	char *e = NULL;
	assert_int_equal(models_init(&e), 0);
	EXPECT_ERR("library: x\nfunctions:\n  f: {thread_safe: always, sauce: y, source: s}\n",
		   "/u/m.yml:3:28: unknown key 'sauce'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {thread_safe: maybe, source: s}\n",
		   "/u/m.yml:3:20: 'thread_safe' must be");
	EXPECT_ERR("library: x\nfunctions:\n  f: {pure: 3, source: s}\n", "'pure' must be true or false");
	EXPECT_ERR("library: x\nfunctions:\n  f: {pure: [a], source: s}\n", "'pure' must be a scalar");
	EXPECT_ERR("library: x\nfunctions:\n  f: {pure: true}\n", "has no 'source'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {source: a}\n  f: {source: b}\n",
		   "/u/m.yml:4:3: 'f' is modelled twice");
	EXPECT_ERR("library: x\nfunctions:\n  f: {thread_safe: never, source: a}\n", "says not 'why'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {process_state: [moon], source: a}\n", "unknown process state 'moon'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {calls_back: g, source: a}\n", "'calls_back' must be a mapping");
	EXPECT_ERR("library: x\nfunctions:\n  f: {handle_arg: 1, source: a}\n",
		   "only meaningful with thread_safe: per_handle");
	EXPECT_ERR("library: x\nfunctions:\n  \"f g\": {source: a}\n", "is not a C function name");
	EXPECT_ERR("functions:\n  f: {source: a}\n", "needs 'library");
	EXPECT_ERR("library: x\n", "needs 'functions:'");
	EXPECT_ERR("library: x\nfunctions: [a]\n", "'functions' must be a mapping");
	EXPECT_ERR("library: x\nextra: 1\nfunctions: {}\n", "unknown key 'extra'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {source: [unclosed\n", "YAML syntax error");
	EXPECT_ERR("- a\n", "must be a mapping");
	EXPECT_ERR("library: x\nfunctions: {}\n---\nlibrary: y\n", "a second YAML document");
	/* a YAML bomb: anchors and aliases are refused before anything expands */
	EXPECT_ERR("library: x\nfunctions:\n  f: &a {source: s}\n  g: *a\n", "anchors are not allowed");
	EXPECT_ERR("a: &a [1, 2]\nb: [*a, *a, *a]\n", "anchors are not allowed");
	/* deep nesting */
	struct strbuf sb = {0};
	for (int i = 0; i < 200; i++)
		sb_puts(&sb, "[");
	for (int i = 0; i < 200; i++)
		sb_puts(&sb, "]");
	EXPECT_ERR(sb_str(&sb), "nested more than 64 levels");
	sb_free(&sb);
	/* a huge file */
	size_t big = MODEL_MAX_BYTES + 10;
	char *huge = malloc(big + 1);
	memset(huge, '#', big);
	huge[big] = 0;
	EXPECT_ERR(huge, "larger than");
	free(huge);
	/* a bomb of many small nodes within the size limit */
	struct strbuf nodes = {0};
	sb_puts(&nodes, "library: x\nfunctions: {}\nabout: [");
	for (int i = 0; i < MODEL_MAX_NODES + 10; i++)
		sb_puts(&nodes, "1,");
	sb_puts(&nodes, "1]\n");
	assert_true(nodes.len <= MODEL_MAX_BYTES);
	EXPECT_ERR(sb_str(&nodes), "more than 20000 YAML nodes");
	sb_free(&nodes);
	/* registers_handler: an argument index */
	EXPECT_ERR("library: x\nfunctions:\n  f: {registers_handler: -1, source: a}\n",
		   "/u/m.yml:3:26: 'registers_handler' must be an argument index");
	EXPECT_ERR("library: x\nfunctions:\n  f: {registers_handler: [1], source: a}\n",
		   "'registers_handler' must be a scalar");
	/* the UBF and thread-state properties */
	EXPECT_ERR("library: x\nfunctions:\n  f: {blocking: {bound: sometimes}, source: a}\n",
		   "/u/m.yml:3:25: 'bound' must be one of always, never, fd");
	EXPECT_ERR("library: x\nfunctions:\n  f: {blocking: {arg: 1}, source: a}\n", "'blocking' needs 'bound'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {blocking: {bound: neg_timeout}, source: a}\n",
		   "'blocking' with bound: neg_timeout needs 'arg'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {blocking: {bound: flag_clear, arg: 1, flag: O_MAGIC}, source: a}\n",
		   "unknown flag 'O_MAGIC'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {blocking: {bound: fd, timeout: 3}, source: a}\n",
		   "/u/m.yml:3:29: unknown key 'timeout' in blocking");
	EXPECT_ERR("library: x\nfunctions:\n  f: {blocking: fd, source: a}\n", "'blocking' must be a mapping");
	EXPECT_ERR("library: x\nfunctions:\n  f: {blocking: {bound: fd, bound: never}, source: a}\n",
		   "/u/m.yml:3:29: 'bound' given twice in blocking");
	EXPECT_ERR("library: x\nfunctions:\n  f: {kinds: [cpu, magic], source: a}\n",
		   "/u/m.yml:3:20: unknown kind 'magic'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {same_as: \"a b\", source: a}\n", "'same_as' must name a C function");
	EXPECT_ERR("library: x\nfunctions:\n  f: {thread_state: {kind: tls}, source: a}\n",
		   "a 'key_arg' exactly when kind is tls");
	EXPECT_ERR("library: x\nfunctions:\n  f: {thread_state: {key_arg: 0}, source: a}\n",
		   "'thread_state' needs 'kind'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {lock: {op: grab}, source: a}\n", "'op' must be one of acquire");
	EXPECT_ERR("library: x\nfunctions:\n  f: {lock: [acquire], source: a}\n", "'lock' must be a mapping");
	EXPECT_ERR("library: x\nfunctions:\n  f: {writes_arg: true, source: a}\n",
		   "'writes_arg' must be an argument index");
	EXPECT_ERR("library: x\nfunctions:\n  f: {process_change: {when: std_fd, what: w}, source: a}\n",
		   "an 'arg' exactly when 'when' is not always");
	EXPECT_ERR("library: x\nfunctions:\n  f: {process_change: {when: always}, source: a}\n",
		   "'process_change' needs 'what'");
	EXPECT_ERR("library: x\nfunctions:\n  f: {process_change: {when: sometimes, what: w}, source: a}\n",
		   "'when' must be one of always, std_fd, std_stream, arg_not_null");
	/* a file too large to read: refused before libyaml, with path:1:1 */
	char tmp[] = "/tmp/test_libmodel_XXXXXX";
	int fd = mkstemp(tmp);
	assert_true(fd >= 0);
	FILE *fp = fdopen(fd, "w");
	for (size_t i = 0; i < MODEL_MAX_BYTES + 100; i++)
		fputc('#', fp);
	fclose(fp);
	char *fe = NULL;
	assert_int_equal(models_load_file(tmp, &fe), -1);
	char *want = xasprintf("%s:1:1: larger than 64 KiB: not a model file", tmp);
	assert_string_equal(fe, want);
	free(want);
	free(fe);
	unlink(tmp);
	/* nothing of a bad file is kept */
	assert_null(model_find("f"));
	assert_int_equal(models_user_count(), 0);
}

static void user_models(void **state)
{
	(void)state;
	char *e = NULL;
	assert_int_equal(models_init(&e), 0);
	/* a user model may mark a known-unsafe function safe: allowed, and marked */
	assert_null(load("library: mine\nfunctions:\n  strtok: {thread_safe: always, source: \"my audit\"}\n"
			 "  my_lib_run: {thread_safe: always, blocks: no, source: \"mylib docs\"}\n"));
	const struct lib_model *lm = model_find("strtok");
	assert_true(lm->user);
	assert_true(lm->overrides);
	assert_int_equal(lm->thread_safe, LM_TS_ALWAYS);
	assert_null(mt_unsafe_find("strtok"));
	/* the SQLite handler registrations the linker follows */
	assert_int_equal(model_find("sqlite3_busy_handler")->registers_handler, 1);
	assert_int_equal(model_find("sqlite3_progress_handler")->registers_handler, 2);
	assert_int_equal(model_find("sqlite3_step")->registers_handler, -1);
	/* the tables that were in C, as model properties */
	assert_int_equal(model_find("pthread_setspecific")->thread_state->kind, TS_TLS_API);
	assert_true(model_find("pthread_setspecific")->thread_state->sets);
	assert_int_equal(model_find("pthread_cond_wait")->lock->op, LOCK_WAIT);
	assert_int_equal(model_find("pthread_cond_wait")->lock->arg, 1);
	assert_int_equal(model_find("inet_ntop")->writer->arg, 2);
	assert_string_equal(model_find("ruby_snprintf")->same_as, "snprintf");
	assert_true(model_find("fprintf")->kinds & LM_KIND_STDIO);
	assert_non_null(model_find("fprintf")->blocking);
	assert_int_equal(model_find("dup2")->process_change->when, LM_CHANGE_STD_FD);
	assert_int_equal(model_find("dup2")->process_change->arg, 1);
	assert_null(model_find("dup")->process_change);
	assert_true(model_find("my_lib_run")->user);
	assert_false(model_find("my_lib_run")->overrides);
	assert_int_equal(models_user_count(), 2);
	/* two user files may not both define one function */
	EXPECT_ERR("library: other\nfunctions:\n  my_lib_run: {source: x}\n", "already modelled at /u/m.yml:4");
	/* a missing file */
	assert_int_equal(models_load_file("/nonexistent/models.yml", &e), -1);
	assert_non_null(strstr(e, "cannot read"));
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(builtins_load, reset),
		cmocka_unit_test_setup(queries, reset),
		cmocka_unit_test_setup(bad_files, reset),
		cmocka_unit_test_setup(user_models, reset),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	models_reset();
	return rc;
}
