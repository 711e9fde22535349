#!/bin/sh
# The report of scripts/audit-gems in headless Chromium (tests/browser/
# audit_check.py): the index's inline-SVG charts carry the audit's numbers and
# show in a screenshot, the table sorts, each gem's page leads with its
# findings by severity and has one panel per release site with its verdict and
# gate checklist; no console errors, no requests, no sideways scrolling at
# 1280 px; gem names, file names and messages that try to become markup stay
# text in the HTML and in summary.md. Skipped (77) without chromium or python3.
. "$(dirname "$0")/lib/common.sh"
checklist
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"
	exit 77
fi
C=$SRC/corpus
. "$TESTDIR/lib/html_inject.sh"
write_injection_ext
# a gem whose directory name is markup too
evil='<img src=x onerror=window.__nogvl_pwned=1>'
mkdir "$evil"
cp "$dir"/* "$evil/"
python3 "$SRC/scripts/audit-gems" --nogvl-lint "$BIN" --cache "$T/cache" --out report \
	digest="$C/examples/digest_ext" "$C/offload-candidate" "$C/offload-unsafe" "$C/ubf-ignored" \
	"$C/unfrozen-input" "$T/$dir" "$T/$evil" nosuch="$T/none" >out.txt 2>err.txt
check "the audit ran" is "$?" 0
check "the markup-named gems analysed" is "$(jq '.gems | length' report/audit.json)" 7
# outside code spans (where Markdown shows text as it is) no unescaped "<" starts a tag
sed 's/`[^`]*`//g' report/summary.md >md-text
check "summary.md: a gem name does not become markup" hasnt md-text '\(^\|[^\\]\)<[a-zA-Z/!]'
check "summary.md: it is escaped" has report/summary.md '^| \\<img src=x onerror=window.__nogvl_pwned=1\\> | local |'
check "summary.md: file names in code spans" has report/summary.md '`x<img src=x onerror=window.__nogvl_pwned=1> \[31m.c:[0-9]*`'
check "summary.md: no control character from a gem" hasnt report/summary.md "$(printf '\033')"
check "index.html: no markup from a gem" hasnt report/index.html '<img'
check "gem pages: no markup from a gem" sh -c '! grep -l "<img\|<script>window\|<b>ct" report/gems/*[!t].html | grep -v report.html | grep -q .'

# nogvl-lint's missing_fact on a "cannot verify" verdict ({kind, name, gate,
# next_step, more}) is what the chart groups by and the page shows: written
# into one gem's JSON, the report made again from the JSON by --merge
cp -r report withfacts
ubf=$(jq -r '.gems[] | select(.name == "ubf-ignored") | .name' report/audit.json)
jq '(.sites[] | select(.offload.verdict == "cannot verify") | .offload) |= (.missing_fact = {file: "x.c", line: 3,
	column: 1, kind: "library model", name: "<b>ext_lib_call", gate: .cannot_verify_gates[0],
	next_step: "model <b>ext_lib_call in .nogvl-lint.yml", more: 1})' report/gems/$ubf.json >withfacts/gems/$ubf.json
ncv=$(jq '[.sites[] | select(.offload.verdict == "cannot verify")] | length' report/gems/$ubf.json)
python3 "$SRC/scripts/audit-gems" --merge withfacts --out facts >out.txt 2>err.txt
check "report from the JSON again: exit 0" is "$?" 0
# (the other gems' own "library model" facts count too)
nlib=$(for j in withfacts/gems/*.json; do case $j in *.state.json) continue ;; esac; cat "$j"; done |
	jq -s '[.[] | .sites[]? | select(.offload.verdict == "cannot verify" or .offload.verdict == "already flagged, cannot verify")
		| select(.offload.missing_fact.kind == "library model")] | length')
check "missing_fact: some sites of the gem are cannot verify" test "$ncv" -gt 0
check "missing_fact: the chart groups by its kind" is \
	"$(jq '.offload.cannot_verify_by_missing_fact["library model"]' facts/audit.json)" "$nlib"
check "missing_fact: the gem page shows the next step" has facts/gems/$ubf.html \
	'Missing fact: <span class="fact">model &lt;b&gt;ext_lib_call in .nogvl-lint.yml (and 1 more)</span>'
check "missing_fact: in the gate checklist" has facts/gems/$ubf.html \
	'(missing fact: model &lt;b&gt;ext_lib_call in .nogvl-lint.yml (and 1 more))'

for r in report facts; do
	python3 "$SRC/tests/browser/audit_check.py" $r >check.txt 2>&1
	crc=$?
	if [ $crc -eq 77 ]; then
		cat check.txt
		exit 77
	fi
	sed "s/^/  [$r] /" check.txt
	check "$r: the report passes in the browser" is "$crc" 0
done
finish
