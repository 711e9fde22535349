# Exit status: 0 clean or notes only, 1 findings at or above --fail-level
# (default warning), with --fail-level error/note/none.
. "$(dirname "$0")/lib/common.sh"

write_good_ext "$T/good.c"
write_bad_ext "$T/bad.c"
cd "$T" || exit 1

run good.c
expect_rc 0 "clean file"
expect_out '^1 file analysed (0 with parse errors), 0 findings (0 errors, 0 warnings, 0 notes)$' "clean summary"
[ ! -s "$ERR" ] || fail "clean file: stderr is not empty"

run bad.c
expect_rc 1 "file with an error finding"
expect_out '^bad.c:6:2: error: .* \[ruby-api-without-gvl\]$' "finding line"

# notes only (the debug rule reports notes): 0, unless --fail-level note
run --enable debug-release-site good.c
expect_rc 0 "notes only"
expect_out '^good.c:16:2: note: release site: ' "the note is shown"
expect_out ', 1 finding (0 errors, 0 warnings, 1 note)$' "notes summary"
run --enable debug-release-site --fail-level note good.c
expect_rc 1 "notes with --fail-level note"

run --fail-level error bad.c
expect_rc 1 "error finding with --fail-level error"
run --fail-level=none bad.c
expect_rc 0 "--fail-level none"
expect_out '\[ruby-api-without-gvl\]' "findings still shown with --fail-level none"
run --fail-level warning good.c bad.c
expect_rc 1 "two files, one bad"
expect_out '^2 files analysed (0 with parse errors), 1 finding (1 error, 0 warnings, 0 notes)$' "two-file summary"

# a disabled rule does not count
run --disable ruby-api-without-gvl bad.c
expect_rc 0 "rule disabled"
exit 0
