# The output does not depend on the number of parser threads, on the order
# of the arguments, or on the run: every format (text, json, sarif, github,
# written in one run) is byte-identical for --jobs 1, 2 and 8, and across
# repeated runs (but for the JSON summary's phase timings), over the whole corpus analysed as one program (with the debug
# rules on, and the same function names in many cases, which the linker must
# resolve the same way every time). stderr too.
. "$(dirname "$0")/lib/common.sh"
command -v jq >/dev/null 2>&1 || { echo "SKIP: jq is not installed (scripts/setup --test-tools installs it)"; exit 77; }

cd "$SRC" || exit 1
FORMATS="text json sarif github"
debug=$("$BIN" --list-rules | awk '/\(debug;/ { printf "%s%s", (n++ ? "," : ""), $1 }')
[ -n "$debug" ] || fail "no debug rules listed"

# run NAME JOBS ARGS...: every format of one run into $T/NAME.<format>
run_all() {
	name=$1
	jobs=$2
	shift 2
	set -- --jobs "$jobs" --enable "$debug" "$@"
	for f in $FORMATS; do
		set -- "$@" --format "$f" -o "$T/$name.$f"
	done
	"$BIN" "$@" >"$T/$name.stdout" 2>"$T/$name.stderr"
	echo $? >"$T/$name.rc"
	# the phase timings (and the thread count) are the JSON's only
	# intentionally run-dependent part
	jq 'del(.summary.timing)' "$T/$name.json" >"$T/$name.json.x" && mv "$T/$name.json.x" "$T/$name.json"
}
same() { # same A B: every output of runs A and B identical
	for x in $FORMATS stdout stderr rc; do
		cmp -s "$T/$1.$x" "$T/$2.$x" || { diff "$T/$1.$x" "$T/$2.$x" | head -20; fail "$x differs between $1 and $2"; }
	done
}

# shellcheck disable=SC2046
run_all j1 1 $(ls -d corpus/*/)
for f in $FORMATS; do
	[ -s "$T/j1.$f" ] || fail "no $f output"
done
grep -q '"findings"' "$T/j1.json" || fail "the JSON output has no findings list"
# shellcheck disable=SC2046
run_all j2 2 $(ls -d corpus/*/)
# shellcheck disable=SC2046
run_all j8 8 $(ls -d corpus/*/)
# shellcheck disable=SC2046
run_all j8b 8 $(ls -d corpus/*/)
# shellcheck disable=SC2046
run_all j2rev 2 $(ls -d corpus/*/ | sort -r)
same j1 j2
same j1 j8
same j8 j8b
# in the reversed order only the JSON's echo of the command line differs
jq 'del(.inputs.paths)' "$T/j1.json" >"$T/j1.json.x" && mv "$T/j1.json.x" "$T/j1.json"
jq 'del(.inputs.paths)' "$T/j2rev.json" >"$T/j2rev.json.x" && mv "$T/j2rev.json.x" "$T/j2rev.json"
same j1 j2rev

# the order of files given one by one does not matter either
"$BIN" --jobs 2 corpus/examples/digest_ext/hash_core.c corpus/examples/digest_ext/digest_ext.c >"$T/a" 2>&1
"$BIN" --jobs 2 corpus/examples/digest_ext/digest_ext.c corpus/examples/digest_ext/hash_core.c >"$T/b" 2>&1
cmp -s "$T/a" "$T/b" || fail "argument order changes the output"
exit 0
