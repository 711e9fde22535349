# Files are parsed in worker processes (by default; --tu-timeout sets the
# limit): a file that hangs or crashes the parser is reported as not analysed
# with its name and the reason, the other files keep their results, and the
# exit status says the analysis was incomplete (3) unless findings fail the
# run (1). The first hang and crash come from the worker's documented test
# hooks (NOGVL_LINT_TEST_HANG / NOGVL_LINT_TEST_CRASH, see src/frontend/isolate.h); then
# real ones: an include of a FIFO (libclang waits for a writer forever) and a
# 20,000-deep else-if chain (libclang's parser overflows its stack).
. "$(dirname "$0")/lib/common.sh"
# the test hooks are compiled in only with -DNOGVL_TEST_HOOKS=ON (scripts/setup)
if [ "${NOGVL_BUILT_WITH_TEST_HOOKS:-1}" != 1 ]; then
	echo "SKIP: built without the test hooks (NOGVL_TEST_HOOKS)"
	exit 77
fi
# time limits (NOGVL_TEST_TIME_SCALE scales them on a busy machine): the hang
# limit given to --tu-timeout, how long a run with it may take, the outer
# guard of every run
HANG_S=$(scale_time 6)
HANG_RUN_S=$(scale_time 40)
GUARD_S=$(scale_time 60)
FIFO_S=$(scale_time 10)

mkdir -p "$T/gem"
write_good_ext "$T/gem/a_good.c"
write_good_ext "$T/gem/b_hangs.c"
sed -i 's/good_run/hang_run/' "$T/gem/b_hangs.c"
write_bad_ext "$T/gem/c_bad.c"
cd "$T/gem" || exit 1

# the same results as in-process parsing
run --tu-timeout 0 a_good.c c_bad.c
cp "$OUT" "$T/threads.txt"
run --tu-timeout "$GUARD_S" a_good.c c_bad.c
expect_rc 1 "isolated run with an error finding"
cmp -s "$OUT" "$T/threads.txt" || { diff "$T/threads.txt" "$OUT"; fail "isolated parsing changed the results"; }

# a hang: stopped after the time limit, the rest analysed
start=$(date +%s)
rc=0
NOGVL_LINT_TEST_HANG=b_hangs timeout "$GUARD_S" "$BIN" --tu-timeout "$HANG_S" --jobs 2 a_good.c b_hangs.c >"$OUT" 2>"$ERR" || rc=$?
end=$(date +%s)
[ "$rc" != 124 ] || fail "the run itself hung"
expect_rc 3 "a file timed out, nothing else to report"
[ $((end - start)) -lt "$HANG_RUN_S" ] || fail "took $((end - start)) s with a $HANG_S s limit"
expect_err "^nogvl-lint: warning: b_hangs.c: not analysed: parsing took longer than $HANG_S s (--tu-timeout); stopped\$" "timeout message"
expect_out '^1 file analysed (0 with parse errors), 1 could not be analysed, 0 findings' "summary"

# the main process never loads libclang (src/clang/clang_api.h): while a parser
# process hangs, libclang is mapped in it and not in the main process
NOGVL_LINT_TEST_HANG=b_hangs "$BIN" --tu-timeout 20 --jobs 1 b_hangs.c >/dev/null 2>&1 &
main_pid=$!
worker_pid=""
i=0
while [ $i -lt 100 ] && [ -z "$worker_pid" ]; do
	sleep 0.1
	# (the parser process: other children come and go, such as the ruby
	# that names Ruby's header directories)
	for c in $(cat /proc/$main_pid/task/*/children 2>/dev/null); do
		tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | grep -q -- '--internal-parse-worker' && worker_pid=$c
	done
	i=$((i + 1))
done
[ -n "$worker_pid" ] || fail "no parser process started"
i=0
while [ $i -lt 100 ] && ! grep -q libclang "/proc/$worker_pid/maps" 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
grep -q libclang "/proc/$worker_pid/maps" || fail "the parser process has no libclang mapped"
grep -q libclang "/proc/$main_pid/maps" && fail "the main process loaded libclang"
kill "$main_pid" "$worker_pid" 2>/dev/null
wait "$main_pid" 2>/dev/null
# and the executable does not link it
if command -v readelf >/dev/null; then
	readelf -d "$BIN" | grep NEEDED | grep -q libclang && fail "nogvl-lint links libclang"
fi

# a crash: reported, the other files' findings kept
rc=0
NOGVL_LINT_TEST_CRASH=b_hangs timeout "$GUARD_S" "$BIN" --tu-timeout "$(scale_time 30)" --jobs 1 b_hangs.c c_bad.c a_good.c >"$OUT" 2>"$ERR" || rc=$?
expect_rc 1 "a crash and an error finding"
expect_err '^nogvl-lint: warning: b_hangs.c: not analysed: the parser crashed (signal 6)$' "crash message"
expect_out '^c_bad.c:6:2: error: .*\[ruby-api-without-gvl\]$' "the other file's finding"
expect_out '^2 files analysed (0 with parse errors), 1 could not be analysed, ' "summary after a crash"
# (only this run's workers: other tests may be running theirs; ours have the
# gem directory as their working directory)
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/cwd" 2>/dev/null)" = "$T/gem" ] || continue
	tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q -- '--internal-parse-worker' &&
		fail "a worker process was left behind: $p"
done

# the default (no option) isolates too
rc=0
NOGVL_LINT_TEST_CRASH=b_hangs timeout "$GUARD_S" "$BIN" --jobs 2 b_hangs.c c_bad.c >"$OUT" 2>"$ERR" || rc=$?
expect_rc 1 "default: a crash and an error finding"
expect_err '^nogvl-lint: warning: b_hangs.c: not analysed: the parser crashed' "default: crash message"
expect_out '^c_bad.c:6:2: error: .*\[ruby-api-without-gvl\]$' "default: the other file's finding"

# real libclang hangs and crashes
mkdir -p "$T/real" && cd "$T/real" || exit 1
write_bad_ext "$T/real/c_bad.c"
mkfifo fifo.h || fail "mkfifo"
# (named through a macro. A FIFO is refused before libclang can block on it,
# however its include is spelled (the open guard, tests/cli/untrusted.sh):
# the file is not analysed, at once, and the other file's results stay)
printf '#include <ruby.h>\n#define FIFO_H "fifo.h"\n#include FIFO_H\nint x;\n' >a_fifo.c
rc=0
timeout "$(scale_time 120)" "$BIN" --tu-timeout "$FIFO_S" --jobs 2 a_fifo.c c_bad.c >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" != 124 ] || fail "an include of a FIFO hung the run"
expect_rc 1 "FIFO include: the other file's error"
expect_err "^nogvl-lint: warning: a_fifo.c: not analysed: .*fifo.h', which is a FIFO: not opened" "FIFO include: refused"
expect_out '^c_bad.c:6:2: error: .*\[ruby-api-without-gvl\]$' "FIFO include: the other file's finding"
rm -f a_fifo.c fifo.h
# (not under the sanitizers: ASan would report the worker's stack overflow,
# which is the point of the worker, as a finding of its own)
if [ -z "${ASAN_OPTIONS:-}" ]; then
	{
		echo '#include <ruby.h>'
		echo 'int deep(int x) {'
		echo '	if (x == 0) return 0;'
		i=1
		while [ $i -lt 20000 ]; do
			echo "	else if (x == $i) return $i;"
			i=$((i + 1))
		done
		echo '	return -1;'
		echo '}'
	} >b_deep.c
	rc=0
	timeout "$(scale_time 120)" "$BIN" --jobs 2 b_deep.c c_bad.c >"$OUT" 2>"$ERR" || rc=$?
	expect_rc 1 "deep else-if: the other file's error"
	expect_err '^nogvl-lint: warning: b_deep.c: not analysed: the parser crashed' "deep else-if: crash reported"
	expect_out '^c_bad.c:6:2: error: .*\[ruby-api-without-gvl\]$' "deep else-if: the other file's finding"
	expect_out '^1 file analysed (0 with parse errors), 1 could not be analysed, ' "deep else-if: summary"
fi
exit 0
