# cmake --install under any prefix: the binary and the man page (generated
# from --help and the rule pages); the installed binary runs from elsewhere.
. "$(dirname "$0")/lib/common.sh"
build=$(dirname "$BIN")
[ -f "$build/cmake_install.cmake" ] || { echo "SKIP: $BIN is not in a CMake build directory"; exit 77; }
cmake --install "$build" --prefix "$T/prefix with space" >"$T/install.log" 2>&1 || { cat "$T/install.log"; fail "cmake --install"; }
P="$T/prefix with space"
[ -x "$P/bin/nogvl-lint" ] || fail "no bin/nogvl-lint"
man=$(find "$P" -name 'nogvl-lint.1*' | head -n 1)
[ -n "$man" ] || fail "no man page installed"
# the man page has every option of --help and every rule page
"$BIN" --help | grep -o -- '--[a-z][a-z-]*' | sort -u >"$T/opts"
while read -r opt; do
	grep -qF -- "$(printf '%s' "$opt" | sed 's/-/\\-/g')" "$man" || fail "man page lacks $opt"
done <"$T/opts"
for page in "$SRC"/rules/docs/*.md; do
	slug=$(basename "$page" .md)
	grep -qxF ".SS $(printf '%s' "$slug" | sed 's/-/\\-/g')" "$man" || fail "man page lacks the rule $slug"
done
grep -q '^\.TH NOGVL-LINT 1' "$man" || fail "man page header"
if command -v groff >/dev/null 2>&1; then
	groff -man -Tutf8 -ww "$man" >"$T/man.txt" 2>"$T/man.err" || fail "groff failed"
	[ ! -s "$T/man.err" ] || { cat "$T/man.err"; fail "groff warnings"; }
fi
# runs from another directory, on the bundled example
mkdir "$T/elsewhere"
cd "$T/elsewhere" || exit 1
"$P/bin/nogvl-lint" --version >"$OUT" 2>"$ERR" || fail "installed --version"
expect_out "(libclang: " "installed --version names libclang"
rc=0
"$P/bin/nogvl-lint" "$SRC/corpus/examples/digest_ext" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 1 "installed binary on the example"
expect_out "2 files analysed (0 with parse errors), 6 findings" "installed binary: findings"
echo ok
