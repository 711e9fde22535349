#!/bin/sh
# The test hooks (NOGVL_LINT_TEST_HANG, NOGVL_LINT_TEST_CRASH,
# NOGVL_LINT_FIX_DELAY_MS, NOGVL_LINT_FIX_RENAME_DELAY_MS) are compiled in
# only with -DNOGVL_TEST_HOOKS=ON (scripts/setup's build/ and build-asan/,
# where the tests that use them run). A build without them (a release or an
# installed build) must ignore the variables: an environment that sets them
# cannot make a CI run crash, hang or stall. ctest passes the build's setting
# in NOGVL_BUILT_WITH_TEST_HOOKS (tests/CMakeLists.txt).
. "$(dirname "$0")/lib/common.sh"

hooks=${NOGVL_BUILT_WITH_TEST_HOOKS:?run through ctest (NOGVL_BUILT_WITH_TEST_HOOKS says how the binary was built)}
mkdir -p "$T/p/.git" && cd "$T/p" || exit 1
write_bad_ext crash_me.c
write_good_ext ok.c
if [ "$hooks" = 1 ]; then
	# the hooks work where the tests need them
	NOGVL_LINT_TEST_CRASH=crash_me "$BIN" --no-progress crash_me.c ok.c >"$OUT" 2>"$ERR" && rc=0 || rc=$?
	expect_rc 3 "NOGVL_LINT_TEST_CRASH with the hooks compiled in"
	expect_err "crash_me.c: not analysed: the parser crashed" "the crash hook"
	grep -q NOGVL_LINT_TEST_CRASH "$BIN" || fail "the binary built with the hooks does not name them"
else
	# a build without hooks: the variables change nothing, and are not even in the binary
	NOGVL_LINT_TEST_CRASH=crash_me NOGVL_LINT_TEST_HANG=crash_me NOGVL_LINT_FIX_DELAY_MS=60000 \
		NOGVL_LINT_FIX_RENAME_DELAY_MS=60000 timeout 60 "$BIN" --no-progress crash_me.c ok.c >"$OUT" 2>"$ERR" && rc=0 || rc=$?
	expect_rc 1 "the hook variables are ignored (the file analysed, its finding fails the run)"
	expect_out "crash_me.c:6:2: error" "the file's finding"
	for v in NOGVL_LINT_TEST_CRASH NOGVL_LINT_TEST_HANG NOGVL_LINT_FIX_DELAY_MS NOGVL_LINT_FIX_RENAME_DELAY_MS; do
		! grep -q "$v" "$BIN" || fail "$v is in a binary built without the test hooks"
	done
fi
echo "ok: test hooks $( [ "$hooks" = 1 ] && echo "compiled in and working" || echo "absent and ignored")"
