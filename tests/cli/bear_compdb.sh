# A real compile database, made the way a gem author would: `ruby extconf.rb
# && bear -- make` over the bundled example extension. nogvl-lint -p on it
# must report exactly what buildless mode reports.
. "$(dirname "$0")/lib/common.sh"

if ! command -v bear >/dev/null 2>&1; then
	echo "SKIP: bear is not installed (scripts/setup installs it)"
	exit 0
fi
command -v make >/dev/null 2>&1 || fail "make is not installed (scripts/setup installs it)"

mkdir "$T/digest_ext"
cp "$SRC"/corpus/examples/digest_ext/*.c "$SRC"/corpus/examples/digest_ext/*.h \
	"$SRC"/corpus/examples/digest_ext/extconf.rb "$T/digest_ext/"
cd "$T/digest_ext" || exit 1
# the compiler and bear run without our sanitizer settings
env -u LD_PRELOAD ASAN_OPTIONS= UBSAN_OPTIONS= ruby extconf.rb >"$T/extconf.log" 2>&1 ||
	{ cat "$T/extconf.log"; fail "ruby extconf.rb failed"; }
env -u LD_PRELOAD ASAN_OPTIONS= UBSAN_OPTIONS= bear -- make >"$T/make.log" 2>&1 ||
	{ cat "$T/make.log"; fail "bear -- make failed"; }
[ -s compile_commands.json ] || fail "bear wrote no compile_commands.json"
grep -q '"digest_ext.c"\|/digest_ext.c"' compile_commands.json || fail "digest_ext.c is not in the database"
grep -q 'hash_core.c' compile_commands.json || fail "hash_core.c is not in the database"

run -p .
expect_rc 1 "-p on the bear database"
cp "$OUT" "$T/db.out"
run .
expect_rc 1 "buildless"
cmp -s "$T/db.out" "$OUT" || { diff "$OUT" "$T/db.out"; fail "-p and buildless output differ"; }
expect_out '^2 files analysed (0 with parse errors), [0-9]* findings' "summary"
expect_out '^digest_ext.c:48:17: error: .*\[value-access-without-gvl\]$' "first finding"
expect_out '^digest_ext.c:56:3: error: .*\[ruby-api-without-gvl\]$' "second finding"

# the same database from another directory: -p DIR finds the file there
cd "$T" || exit 1
run -p digest_ext
expect_rc 1 "-p from another directory"
expect_out '^digest_ext/digest_ext.c:48:17: error: ' "paths relative to the current directory"
run --compile-commands digest_ext/compile_commands.json -v
expect_rc 1 "--compile-commands FILE"
expect_no_err "warning" "no warnings on a real database"
exit 0
