# Text output: path:line:col: severity: message [slug], the source line with
# a caret, note: lines; paths relative to the current directory when below
# it; the summary line.
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/gem/ext/demo"
cp "$SRC"/corpus/examples/digest_ext/* "$T/gem/ext/demo/"
cd "$T/gem" || exit 1

run ext/demo
expect_rc 1 "example with errors"
# one finding, exactly: location, message, slug, source line, caret, notes
# (the example gains findings as rules are added: pick this one by its location)
grep -n -A4 '^ext/demo/digest_ext.c:48:17: ' "$OUT" | sed 's/^[0-9]*[-:]//' >"$T/first"
cat >"$T/want" <<'EOW'
ext/demo/digest_ext.c:48:17: error: 'RSTRING_LEN' reads a Ruby object's internals without the GVL; take the pointer or length before releasing the GVL [value-access-without-gvl]
 	return (size_t)RSTRING_LEN(s); /* expect: value-access-without-gvl */
 	               ^
ext/demo/digest_ext.c:54:10: note: 'input_length' called here from 'check_nogvl'
ext/demo/digest_ext.c:63:2: note: 'check_nogvl' passed to rb_thread_call_without_gvl here
EOW
diff "$T/want" "$T/first" >/dev/null || { diff "$T/want" "$T/first"; fail "first finding differs"; }
expect_out '^2 files analysed (0 with parse errors), [0-9]* findings ([0-9]* errors\?, [0-9]* warnings\?, [0-9]* notes\?)$' "summary line"
tail -n 1 "$OUT" | grep -q '^2 files analysed (0 with parse errors), [0-9]* findings' ||
	fail "the summary is not the last line"
grep -c 'analysed' "$OUT" | grep -qx 1 || fail "more than one summary line"

# the same run from elsewhere: relative to that directory, or absolute above it
cd ext || exit 1
run demo/digest_ext.c
expect_out '^demo/digest_ext.c:48:17: error: ' "path relative to a subdirectory"
mkdir "$T/elsewhere" && cd "$T/elsewhere" || exit 1
run "$T/gem/ext/demo"
expect_out "^$T/gem/ext/demo/digest_ext.c:48:17: error: " "absolute path when not below the cwd"
run ../gem/ext/demo
expect_out "^$T/gem/ext/demo/digest_ext.c:48:17: error: " "absolute path for a relative argument outside the cwd"
cd / || exit 1
run "$T/gem/ext/demo"
expect_out "^$T/gem/ext/demo/digest_ext.c:48:17: error: " "absolute path from /"
cd "$T/gem/ext/demo" || exit 1
run .
expect_out '^digest_ext.c:56:3: error: ' "path from the file's own directory"
run ../demo/./digest_ext.c
expect_out '^digest_ext.c:56:3: error: ' "path normalised"

# colour only when asked (or on a terminal)
run --color=always .
grep -q "$(printf '\033')" "$OUT" || fail "--color=always has no escape codes"
run .
! grep -q "$(printf '\033')" "$OUT" || fail "escape codes without a terminal"

# -o FILE: findings to the file, the summary to stderr
run -o "$T/report.txt" .
expect_rc 1 "-o"
grep -q '\[ruby-api-without-gvl\]' "$T/report.txt" || fail "-o file lacks the findings"
expect_err '^2 files analysed' "-o: summary on stderr"
exit 0
