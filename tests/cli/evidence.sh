#!/bin/sh
# Evidence a maintainer can check (issue 16 item 9): release sites in static
# functions nothing in the gem refers to are marked unreachable in the JSON
# (site "unreachable", summary "sites_unreachable") and by -v, and a candidate
# whose UBF the callback ignores is withheld, naming ubf-ignored.
. "$(dirname "$0")/lib/common.sh"
checklist

mkdir ext
cp "$SRC/corpus/engine/unreachable.c" ext/
run --no-progress --tu-timeout 0 --format json ext
check "json: parses" isjson out.txt
unreach() { jq -r --arg fn "$1" '.sites[] | select(.function == $fn) | .unreachable' out.txt; }
check "a static function nothing refers to: unreachable" is "$(unreach old_sum)" true
check "called only from unreachable code: unreachable" is "$(unreach dead_helper)" true
for fn in sum sum_body table_sum legacy_sum macro_sum exported_sum; do
	check "$fn: reachable" is "$(unreach $fn)" false
done
check "summary: 2 of 8 sites unreachable" is "$(jq -r '"\(.summary.sites) \(.summary.sites_unreachable)"' out.txt)" "8 2"
run --no-progress --tu-timeout 0 -v ext
check "-v names the unreachable site" has err.txt "unreachable.c:28: rb_thread_call_without_gvl in 'old_sum' is unreachable"
check "-v: a method is not unreachable" hasnt err.txt "in 'sum' is unreachable"

# findings in such functions: still reported, marked (JSON "unreachable", a
# note, summary findings_unreachable); one reached from a method is not
mkdir deadf
cp "$SRC/corpus/engine/unreachable_findings.c" deadf/
run --no-progress --tu-timeout 0 --format json deadf
check "findings json: parses" isjson out.txt
funreach() { jq -r --arg r "$1" '[.findings[] | select(.rule == $r) | .unreachable] | join(",")' out.txt; }
check "a finding in an unreachable function is marked" is "$(funreach ubf-on-cpu-work)" true
check "a finding in a function a method reaches is not" is "$(funreach ubf-destroys-state)" false
check "summary: 2 of 3 findings unreachable" is \
	"$(jq -r '"\(.summary.errors + .summary.warnings + .summary.notes) \(.summary.findings_unreachable)"' out.txt)" "3 2"
run --no-progress --tu-timeout 0 deadf
check "text: the note says why" has out.txt "'old_count' is static and nothing in the gem refers to it"

mkdir ubf
cp "$SRC/corpus/offload-candidate/ubf_ignored_withheld.c" ubf/
run --no-progress --tu-timeout 0 --format json ubf
check "withheld: json parses" isjson out.txt
check "the ignored UBF's candidate is withheld by ubf-ignored" is \
	"$(jq -r '.sites[] | select(.callback.text == "hash_nogvl") | "\(.offload.verdict) \(.offload.withheld.rule)"' out.txt)" \
	"candidate ubf-ignored"
check "the polling one is offered" is \
	"$(jq -r '.sites[] | select(.callback.text == "sum_nogvl") | .offload.withheld // "none"' out.txt)" none
run --no-progress --tu-timeout 0 -v ubf
check "-v says what to fix first" has err.txt "withheld (ubf-ignored): make the callback honour the unblocking function"
run --no-progress --tu-timeout 0 --explain-callback hash_nogvl ubf
check "explain: withheld by ubf-ignored" has out.txt "^  withheld (ubf-ignored): make the callback honour"

# a finding at a release written through a macro carries the macro in the JSON
mkdir mac
cp "$SRC/corpus/missing-gc-guard/macro_release.c" mac/
run --no-progress --tu-timeout 0 --format json mac
check "macro: json parses" isjson out.txt
check "the finding at the macro's release names it (JSON macro)" is \
	"$(jq -r '.findings[] | select(.rule == "missing-gc-guard") | .macro' out.txt)" RELEASE
finish
