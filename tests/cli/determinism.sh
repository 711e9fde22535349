# The output does not depend on the number of parser threads, on the order
# of the arguments, or on the run: byte-identical for --jobs 1 and --jobs 2.
. "$(dirname "$0")/lib/common.sh"

cd "$SRC" || exit 1
for args in "corpus/examples" "--enable debug-release-site,debug-no-gvl corpus/engine corpus/examples"; do
	# shellcheck disable=SC2086
	"$BIN" --jobs 1 $args >"$T/j1" 2>"$T/j1.err"
	# shellcheck disable=SC2086
	"$BIN" --jobs 2 $args >"$T/j2" 2>"$T/j2.err"
	# shellcheck disable=SC2086
	"$BIN" --jobs 2 $args >"$T/j2b" 2>"$T/j2b.err"
	[ -s "$T/j1" ] || fail "no output for $args"
	cmp -s "$T/j1" "$T/j2" || { diff "$T/j1" "$T/j2"; fail "--jobs 1 and --jobs 2 differ for $args"; }
	cmp -s "$T/j2" "$T/j2b" || fail "two runs with --jobs 2 differ for $args"
	cmp -s "$T/j1.err" "$T/j2.err" || fail "stderr differs for $args"
done
# the order of the paths does not matter either
"$BIN" --jobs 2 corpus/examples/digest_ext/hash_core.c corpus/examples/digest_ext/digest_ext.c >"$T/a" 2>&1
"$BIN" --jobs 2 corpus/examples/digest_ext/digest_ext.c corpus/examples/digest_ext/hash_core.c >"$T/b" 2>&1
cmp -s "$T/a" "$T/b" || fail "argument order changes the output"
exit 0
