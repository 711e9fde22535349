# The facts survive serialisation (what --cache and isolated parsing carry):
# with --roundtrip-facts every file's facts go through facts_io before linking,
# and the findings and the release-site list must not change.
. "$(dirname "$0")/lib/common.sh"
command -v jq >/dev/null 2>&1 || { echo "jq is not installed"; exit 77; }

for d in "$SRC"/corpus/*/; do
	"$BIN" --format json --fail-level none "$d" 2>/dev/null | jq -S '[.findings, .sites]' >"$T/a.json" ||
		fail "$d: no JSON"
	"$BIN" --roundtrip-facts --format json --fail-level none "$d" 2>"$ERR" | jq -S '[.findings, .sites]' >"$T/b.json" ||
		fail "$d: no JSON with --roundtrip-facts"
	grep -q "did not survive" "$ERR" && fail "$d: $(cat "$ERR")"
	cmp -s "$T/a.json" "$T/b.json" || { diff "$T/a.json" "$T/b.json" | head -20; fail "$d: results changed"; }
done
exit 0
