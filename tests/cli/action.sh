# The GitHub Action (action.yml): its shell steps run here, taken from
# action.yml, with the runner's variables (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
# RUNNER_TEMP, GITHUB_ACTION_PATH) pointing into a temporary directory and the
# built nogvl-lint first on PATH: annotations in the log, SARIF (validated),
# the step summary table, the outputs and the final exit status, for each
# input. The action and the workflows name no host but github.com's actions.
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/sarif.sh"
command -v ruby >/dev/null 2>&1 || { echo "SKIP: no ruby"; exit 77; }
command -v jq >/dev/null 2>&1 || { echo "SKIP: no jq"; exit 77; }
STEPS="ruby $SRC/tests/cli/action_steps.rb $SRC/action.yml"
$STEPS --check >"$OUT" 2>"$ERR" || fail "action.yml: $(cat "$ERR")"

# hosts: only github.com (actions are fetched from there), no other URL
for f in "$SRC/action.yml" "$SRC"/.github/workflows/*.yml; do
	if grep -o 'https\?://[^/ ]*' "$f" | grep -v '^https://github.com$' | grep -q .; then
		fail "$f names another host"
	fi
	grep -h '^ *\(- \)\?uses:' "$f" | grep -v 'uses: \(\./\|actions/[a-z-]*@v[0-9]*\|github/codeql-action/[a-z-]*@v[0-9]*\)$' |
		grep -q . && fail "$f uses an action from elsewhere"
done

mkdir -p "$T/bin" "$T/repo/ext"
ln -s "$BIN" "$T/bin/nogvl-lint"
cp "$SRC"/corpus/examples/digest_ext/* "$T/repo/ext/"
mkdir "$T/repo/.git"
cd "$T/repo" || exit 1
export GITHUB_ACTION_PATH="$SRC"

# step STEP_ID: runs that step like the runner (sh -e), stdout to $OUT
step() {
	$STEPS "$1" >"$T/step.sh" 2>"$ERR" || fail "step $1: $(cat "$ERR")"
	rc=0
	PATH="$T/bin:$PATH" sh -e "$T/step.sh" >"$OUT" 2>"$ERR" || rc=$?
}
# fresh RUNNER_TEMP and files for one run of the action
fresh() {
	rm -rf "$T/runner"
	mkdir -p "$T/runner/temp"
	export RUNNER_TEMP="$T/runner/temp" GITHUB_OUTPUT="$T/runner/output" GITHUB_STEP_SUMMARY="$T/runner/summary.md"
	: >"$GITHUB_OUTPUT"
	: >"$GITHUB_STEP_SUMMARY"
}
output() { sed -n "s/^$1=//p" "$GITHUB_OUTPUT" | tail -n 1; }

# defaults (path: ext, annotations and SARIF on)
fresh
step lint
expect_rc 0 "lint step always succeeds"
expect_out "^::error file=ext/digest_ext.c,line=48,col=17,title=value-access-without-gvl::" "annotation of an error"
expect_out "^::warning file=ext/digest_ext.c,line=35,.*title=unfrozen-input::" "annotation of a warning"
expect_out "^::notice file=ext/digest_ext.c,line=91,.*title=offload-candidate::" "annotation of a note"
[ "$(output exit-code)" = 1 ] || fail "exit-code output: $(cat "$GITHUB_OUTPUT")"
[ "$(output findings)" = 6 ] || fail "findings output"
sarif=$(output sarif-file)
[ "$sarif" = "$RUNNER_TEMP/nogvl-lint/nogvl-lint.sarif" ] || fail "sarif-file output: $sarif"
[ "$(jq '.runs[0].results | length' "$sarif")" = 6 ] || fail "SARIF results"
if sarif_validator_found; then
	sarif_validate "$sarif" || fail "SARIF does not validate"
else
	echo "note: SARIF validator not installed (scripts/setup --test-tools); schema check skipped"
fi
grep -qx '### nogvl-lint' "$GITHUB_STEP_SUMMARY" || fail "summary heading"
grep -q '^6 findings (2 errors, 3 warnings, 1 notes) in 2 files; 5 at or above the fail level$' "$GITHUB_STEP_SUMMARY" || fail "summary line: $(cat "$GITHUB_STEP_SUMMARY")"
grep -qx '| Rule | Severity | Findings |' "$GITHUB_STEP_SUMMARY" || fail "summary table header"
for row in '| `ruby-api-without-gvl` | error | 1 |' '| `value-access-without-gvl` | error | 1 |' \
	'| `unfrozen-input` | warning | 1 |' '| `missing-gc-guard` | warning | 1 |' '| `ubf-on-cpu-work` | warning | 1 |' \
	'| `offload-candidate` | note | 1 |'; do
	grep -qxF "$row" "$GITHUB_STEP_SUMMARY" || fail "summary row $row: $(cat "$GITHUB_STEP_SUMMARY")"
done
[ "$(grep -c '^| `' "$GITHUB_STEP_SUMMARY")" = 6 ] || fail "summary: not one row per rule"
step result
expect_rc 1 "result step fails the job on findings"

# fail-level none: the job passes
fresh
INPUT_OVERRIDE_FAIL_LEVEL=none step lint
[ "$(output exit-code)" = 0 ] || fail "fail-level none: exit-code"
step result
expect_rc 0 "fail-level none: result step passes"

# annotations off: plain text in the log; SARIF off: no sarif-file output
fresh
INPUT_OVERRIDE_ANNOTATIONS=false INPUT_OVERRIDE_SARIF=false step lint
expect_no_out "^::" "annotations off"
expect_out "^ext/digest_ext.c:48:17: error: " "annotations off: text findings"
[ -z "$(output sarif-file)" ] || fail "sarif off: sarif-file output set"

# a baseline: recorded findings no longer fail
"$BIN" --write-baseline base.json ext >/dev/null 2>&1
fresh
INPUT_OVERRIDE_BASELINE=base.json step lint
[ "$(output exit-code)" = 0 ] || fail "baseline: exit-code $(output exit-code)"
grep -q '^0 findings' "$GITHUB_STEP_SUMMARY" || fail "baseline: summary: $(cat "$GITHUB_STEP_SUMMARY")"
expect_no_out "^::" "baseline: no annotations"

# a compile database (a directory holding compile_commands.json)
"$BIN" --dump-commands ext >compile_commands.json 2>/dev/null || fail "dump-commands"
fresh
INPUT_OVERRIDE_COMPILE_COMMANDS=. INPUT_OVERRIDE_PATH=nothing-here step lint
[ "$(output exit-code)" = 1 ] || fail "compile-commands: exit-code $(output exit-code): $(cat "$ERR")"
[ "$(output findings)" = 6 ] || fail "compile-commands: findings"

# inputs are split, never globbed or run
fresh
INPUT_OVERRIDE_PATH='ext/* $(touch pwned)' step lint
[ "$(output exit-code)" = 2 ] || fail "hostile path: exit-code $(output exit-code)"
[ ! -e pwned ] && [ ! -e "$T/repo/ext/pwned" ] || fail "an input was run"
grep -q 'stopped with exit status 2' "$GITHUB_STEP_SUMMARY" || fail "usage error: summary"
step result
expect_rc 2 "usage error: result step"
echo ok
