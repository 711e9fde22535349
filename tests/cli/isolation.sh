# --tu-timeout: each file is parsed in a worker process; a file that hangs or
# crashes the parser is reported as not analysed with its name and the
# reason, the other files keep their results, and the exit status says the
# analysis was incomplete (3) unless findings fail the run (1).
# The hang and the crash come from the worker's documented test hooks
# (NOGVL_LINT_TEST_HANG / NOGVL_LINT_TEST_CRASH, see src/isolate.h).
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/gem"
write_good_ext "$T/gem/a_good.c"
write_good_ext "$T/gem/b_hangs.c"
sed -i 's/good_run/hang_run/' "$T/gem/b_hangs.c"
write_bad_ext "$T/gem/c_bad.c"
cd "$T/gem" || exit 1

# the same results as in-process parsing
run a_good.c c_bad.c
cp "$OUT" "$T/threads.txt"
run --tu-timeout 60 a_good.c c_bad.c
expect_rc 1 "isolated run with an error finding"
cmp -s "$OUT" "$T/threads.txt" || { diff "$T/threads.txt" "$OUT"; fail "isolated parsing changed the results"; }

# a hang: stopped after the time limit, the rest analysed
start=$(date +%s)
rc=0
NOGVL_LINT_TEST_HANG=b_hangs timeout 60 "$BIN" --tu-timeout 2 --jobs 2 a_good.c b_hangs.c >"$OUT" 2>"$ERR" || rc=$?
end=$(date +%s)
[ "$rc" != 124 ] || fail "the run itself hung"
expect_rc 3 "a file timed out, nothing else to report"
[ $((end - start)) -lt 30 ] || fail "took $((end - start)) s with a 2 s limit"
expect_err '^nogvl-lint: warning: b_hangs.c: not analysed: parsing took longer than 2 s (--tu-timeout); stopped$' "timeout message"
expect_out '^1 file analysed (0 with parse errors), 1 could not be analysed, 0 findings' "summary"

# a crash: reported, the other files' findings kept
rc=0
NOGVL_LINT_TEST_CRASH=b_hangs timeout 60 "$BIN" --tu-timeout 30 --jobs 1 b_hangs.c c_bad.c a_good.c >"$OUT" 2>"$ERR" || rc=$?
expect_rc 1 "a crash and an error finding"
expect_err '^nogvl-lint: warning: b_hangs.c: not analysed: the parser crashed (signal 6)$' "crash message"
expect_out '^c_bad.c:6:2: error: .*\[ruby-api-without-gvl\]$' "the other file's finding"
expect_out '^2 files analysed (0 with parse errors), 1 could not be analysed, ' "summary after a crash"
ps -eo args | grep -q '[-]-internal-parse-worker' && fail "a worker process was left behind"
exit 0
