# --help, --version, --list-rules: output on stdout, exit status 0.
. "$(dirname "$0")/lib/common.sh"

run --help
expect_rc 0 "--help"
expect_out '^usage: nogvl-lint \[options\] PATH\.\.\.$' "usage line"
for opt in --compile-commands --ruby-include --jobs --fail-level --list-rules --version --no-offload-view; do
	expect_out "$opt" "--help mentions $opt"
done
expect_out "Exit status: 0 clean" "exit codes in --help"
[ ! -s "$ERR" ] || fail "--help wrote to stderr"
run -h
expect_rc 0 "-h"

run --version
expect_rc 0 "--version"
expect_out '^nogvl-lint [0-9][0-9.]* (libclang: .*clang version [0-9][0-9]*\.[0-9]' "version with libclang's version"
[ "$(wc -l <"$OUT")" -eq 1 ] || fail "--version: not one line"

run --list-rules
expect_rc 0 "--list-rules"
expect_out '^ruby-api-without-gvl  *error  *A Ruby C API function' "a rule with severity and summary"
expect_out '^debug-release-site  *note .*(debug; off unless --enable)$' "debug rules marked"
# one line per descriptor in rules/*.c, sorted by slug
want=$(cat "$SRC"/rules/*.c | grep -c '^const struct rule_desc rule_')
got=$(wc -l <"$OUT")
[ "$got" -eq "$want" ] || fail "--list-rules: $got lines, $want rule descriptors in rules/"
cut -d' ' -f1 "$OUT" >"$T/slugs"
sort -c "$T/slugs" || fail "--list-rules: not sorted by slug"

run --explain ruby-api-without-gvl
expect_rc 0 "--explain"
expect_out '^# ruby-api-without-gvl$' "--explain heading"
exit 0
