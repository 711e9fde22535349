# --cache DIR: a second run reuses every file's facts; changing one file
# re-parses only it; changing a header re-parses the files that include it; a
# corrupt entry is a miss, not an error; results never differ from a fresh run;
# a header with a neutralised `__debug` pragma does not make every run a miss.
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/gem/ext"
cp "$SRC"/corpus/examples/digest_ext/* "$T/gem/ext/"
cd "$T/gem" || exit 1

count() { # count WHAT: the number from "cache DIR: N reused, N parsed, N stored"
	sed -n "s/.*cache .*: \([0-9]*\) reused, \([0-9]*\) parsed, \([0-9]*\) stored.*/\1 \2 \3/p" "$ERR"
}

run --fail-level none ext
cp "$OUT" "$T/fresh.txt"

run -v --fail-level none --cache "$T/cache" ext
[ "$(count)" = "0 2 2" ] || fail "cold run: '$(count)', expected '0 2 2'"
cmp -s "$OUT" "$T/fresh.txt" || fail "cold cached run differs from a run without cache"

run -v --fail-level none --cache "$T/cache" ext
[ "$(count)" = "2 0 0" ] || fail "warm run: '$(count)', expected '2 0 0'"
cmp -s "$OUT" "$T/fresh.txt" || { diff "$T/fresh.txt" "$OUT"; fail "warm run differs from a fresh run"; }

# one file changed: only that one is parsed
printf '\n/* an edit */\n' >>ext/digest_ext.c
run -v --fail-level none --cache "$T/cache" ext
[ "$(count)" = "1 1 1" ] || fail "one file changed: '$(count)', expected '1 1 1'"

# a header both files include changed: both are parsed
printf '\n/* a header edit */\n' >>ext/hash_core.h
run -v --fail-level none --cache "$T/cache" ext
[ "$(count)" = "0 2 2" ] || fail "header changed: '$(count)', expected '0 2 2'"

# a corrupt entry is a miss
for f in "$T"/cache/*.facts; do printf 'garbage' >"$f"; done
run -v --fail-level none --cache "$T/cache" ext
expect_rc 0 "corrupt cache entries"
[ "$(count)" = "0 2 2" ] || fail "corrupt entries: '$(count)', expected '0 2 2'"
run --fail-level none ext
cp "$OUT" "$T/fresh2.txt"
run --fail-level none --cache "$T/cache" ext
cmp -s "$OUT" "$T/fresh2.txt" || fail "results after the edits differ from a fresh run"

# a header whose `#pragma clang __debug` is neutralised before parsing is
# still current on the next run (its hash is of what the parse read)
printf '#pragma clang __debug dump hash_core_marker\n' >>ext/hash_core.h
run -v --fail-level none --cache "$T/cache" ext
[ "$(count)" = "0 2 2" ] || fail "debug pragma in a header, cold: '$(count)', expected '0 2 2'"
run -v --fail-level none --cache "$T/cache" ext
[ "$(count)" = "2 0 0" ] || fail "debug pragma in a header, warm: '$(count)', expected '2 0 0'"
printf '\n/* edited again */\n' >>ext/hash_core.h
run -v --fail-level none --cache "$T/cache" ext
[ "$(count)" = "0 2 2" ] || fail "debug pragma header edited: '$(count)', expected '0 2 2'"

# a cache directory that cannot be created is a usage error
run --cache /proc/nogvl-lint-cache ext
expect_rc 2 "uncreatable cache dir"
exit 0
