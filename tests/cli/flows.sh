# The flows around a run: every usage error is exit status 2 and one line;
# files named by options (--baseline, --config, -o, --write-baseline) are
# checked before the analysis starts; a misspelt rule gets "did you mean"
# (options, .nogvl-lint.yml, suppressions); `--fail-level info` is `note`;
# SARIF names the tool's home and each rule's page.
. "$(dirname "$0")/lib/common.sh"
mkdir -p "$T/gem/ext"
cp "$SRC"/corpus/examples/digest_ext/* "$T/gem/ext/"
mkdir "$T/gem/.git"
cd "$T/gem" || exit 1

# did you mean: options
run --enable ruby-api-without-gl ext
expect_rc 2 "--enable typo"
expect_one_line_error
expect_err "--enable: no rule 'ruby-api-without-gl'; did you mean 'ruby-api-without-gvl'?" "--enable suggestion"
run --disable unfrozen-imput ext
expect_rc 2 "--disable typo"
expect_err "did you mean 'unfrozen-input'?" "--disable suggestion"
run --disable al ext
expect_err "did you mean 'all'?" "--disable all suggestion"
run --explain ofload-candidate
expect_rc 2 "--explain typo"
expect_err "did you mean 'offload-candidate'?" "--explain suggestion"
run --enable completely-different-name ext
expect_rc 2 "--enable unknown"
expect_no_err "did you mean" "no suggestion for a name close to nothing"
# did you mean: configuration
printf 'rules:\n  missing-gc-gaurd: false\n' >.nogvl-lint.yml
run ext
expect_rc 2 "config typo"
expect_one_line_error
expect_err ".nogvl-lint.yml:2:3: unknown rule 'missing-gc-gaurd'; did you mean 'missing-gc-guard'?" "config suggestion"
rm .nogvl-lint.yml
# did you mean: suppressions (a warning; the run goes on)
sed -i '56s|$| // nogvl-lint: ignore[ruby-api-without-gv] raise|' ext/digest_ext.c
run ext
expect_rc 1 "suppression typo"
expect_err "unknown rule 'ruby-api-without-gv' in a suppression; did you mean 'ruby-api-without-gvl'?" "suppression suggestion"
cp "$SRC"/corpus/examples/digest_ext/digest_ext.c ext/

# checked before the analysis: with a parser process that would hang (the
# test hook), each of these returns at once with one line
early() { # early WHAT ARGS...
	what=$1
	shift
	rc=0
	NOGVL_LINT_TEST_HANG=digest_ext timeout 20 "$BIN" --tu-timeout 60 "$@" >"$OUT" 2>"$ERR" || rc=$?
	expect_rc 2 "$what"
	expect_one_line_error
}
printf 'not json' >bad-baseline.json
early "bad --baseline" --baseline bad-baseline.json ext
expect_err "bad-baseline.json" "bad --baseline named"
early "missing --baseline" --baseline no-such.json ext
early "missing --config" --config no-such.yml ext
printf 'rules: [\n' >bad.yml
early "bad --config" --config bad.yml ext
early "-o in a missing directory" --format json -o no/such/dir/out.json ext
expect_err "^nogvl-lint: error: -o no/such/dir/out.json: its directory does not exist$" "-o reason"
mkdir adir
early "-o a directory" -o adir ext
expect_err "is a directory" "-o a directory: reason"
early "--write-baseline in a missing directory" --write-baseline no/such/b.json ext
early "--changed-lines outside git" --changed-lines HEAD ext
# and a valid run still writes them
run --format json -o out/../report.json ext
expect_rc 2 "-o through a missing directory"
run --format json -o report.json ext
expect_rc 1 "-o written"
jq -e '.findings | length == 6' report.json >/dev/null || fail "report.json"

# --fail-level info is note: the offload-candidate note fails the run
run --fail-level info --disable ruby-api-without-gvl,value-access-without-gvl,unfrozen-input,missing-gc-guard,ubf-on-cpu-work ext
expect_rc 1 "--fail-level info"
run --fail-level warning --disable ruby-api-without-gvl,value-access-without-gvl,unfrozen-input,missing-gc-guard,ubf-on-cpu-work ext
expect_rc 0 "--fail-level warning with only a note"
run --fail-level informational ext
expect_rc 2 "--fail-level unknown"

# SARIF: informationUri and a helpUri per rule
run --format sarif -o r.sarif ext
jq -e '.runs[0].tool.driver.informationUri | startswith("https://")' r.sarif >/dev/null || fail "no informationUri"
jq -e '[.runs[0].tool.driver.rules[] | .helpUri | startswith("https://")] | all' r.sarif >/dev/null || fail "a rule without helpUri"
jq -e '.runs[0].tool.driver.rules[] | select(.id == "unfrozen-input") | .helpUri | endswith("/rules/docs/unfrozen-input.md")' r.sarif >/dev/null || fail "helpUri names the rule's page"

# a compile database entry for assembler: skipped, and -v says so
printf '.globl f\nf: ret\n' >ext/asm.S
cat >cc.json <<JEOF
[{"directory": "$T/gem/ext", "file": "asm.S", "arguments": ["cc", "-c", "asm.S"]},
 {"directory": "$T/gem/ext", "file": "digest_ext.c", "arguments": ["cc", "-c", "digest_ext.c"]}]
JEOF
run -v --compile-commands cc.json
expect_rc 1 ".S entry"
expect_err "ext/asm.S: not a C or C++ source (.S); skipped" "-v names the skipped .S entry"
expect_out "^1 file analysed" ".S entry not analysed"
echo ok
