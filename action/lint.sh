#!/bin/sh
# Action step: runs nogvl-lint with the action's inputs (INPUT_*), writes
# annotations to the log (::error file=...), SARIF and JSON under
# $RUNNER_TEMP/nogvl-lint, a table of findings by rule to
# $GITHUB_STEP_SUMMARY, and exit-code, findings and sarif-file to
# $GITHUB_OUTPUT. Always succeeds: the action's last step fails the job, after
# the SARIF upload.
set -u
bin=${NOGVL_LINT:-nogvl-lint}
out=${RUNNER_TEMP:?}/nogvl-lint
mkdir -p "$out"
set -f # inputs are split on spaces, never globbed
set -- --no-progress --fail-level "${INPUT_FAIL_LEVEL:-warning}"
[ -n "${INPUT_BASELINE:-}" ] && set -- "$@" --baseline "$INPUT_BASELINE"
if [ "${INPUT_ANNOTATIONS:-true}" = true ]; then
	set -- "$@" --format github
else
	set -- "$@" --format text
fi
set -- "$@" --format json -o "$out/nogvl-lint.json" --format sarif -o "$out/nogvl-lint.sarif"
# shellcheck disable=SC2086
[ -n "${INPUT_ARGS:-}" ] && set -- "$@" ${INPUT_ARGS}
if [ -n "${INPUT_COMPILE_COMMANDS:-}" ]; then
	if [ -d "$INPUT_COMPILE_COMMANDS" ]; then
		set -- "$@" -p "$INPUT_COMPILE_COMMANDS"
	else
		set -- "$@" --compile-commands "$INPUT_COMPILE_COMMANDS"
	fi
else
	# shellcheck disable=SC2086
	set -- "$@" ${INPUT_PATH:-ext}
fi
rc=0
"$bin" "$@" || rc=$?
{
	echo "exit-code=$rc"
	if [ -s "$out/nogvl-lint.sarif" ] && [ "${INPUT_SARIF:-true}" = true ]; then
		echo "sarif-file=$out/nogvl-lint.sarif"
	fi
} >>"${GITHUB_OUTPUT:-/dev/null}"
# the summary: counts and rule names only (nothing from the analysed files)
if [ -s "$out/nogvl-lint.json" ]; then
	jq -r '"findings=\(.summary.findings)"' "$out/nogvl-lint.json" >>"${GITHUB_OUTPUT:-/dev/null}"
	jq -r '
		"### nogvl-lint\n",
		"\(.summary.findings) finding\(if .summary.findings == 1 then "" else "s" end) (\(.summary.errors) errors, \(.summary.warnings) warnings, \(.summary.notes) notes) in \(.summary.files) files; \(.summary.failing) at or above the fail level\n",
		(if .summary.findings > 0 then
			"| Rule | Severity | Findings |",
			"|---|---|---:|",
			(.findings | group_by(.rule) | sort_by(-length, .[0].rule)[] |
				"| `\(.[0].rule)` | \(.[0].severity) | \(length) |")
		else empty end)
	' "$out/nogvl-lint.json" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
else
	printf '### nogvl-lint\n\nnogvl-lint stopped with exit status %s (see the log).\n' "$rc" >>"${GITHUB_STEP_SUMMARY:-/dev/null}"
fi
exit 0
