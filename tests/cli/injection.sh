#!/bin/sh
# File names and source text that look like output syntax: '::', '%', ',',
# quotes, newlines, bytes that are not UTF-8. JSON and SARIF must stay valid
# with the exact names in them; GitHub output must stay one command per
# finding with every special character escaped.
. "$(dirname "$0")/common.inc"
dir='we::ird %0A dir,"x"'
name=$(printf 'a::b%%0A,c"d%%25e\nerror file=x::y.c')
mkdir "$dir"
write_ext "$dir/$name"
# a finding line holding quotes, '::', '%' and a byte that is not UTF-8
sed -i "20s|.*|\trb_raise(rb_eArgError, \"::error file=evil.c::%0A \\\\\"q\\\\\" %s\"); /* \xff */|" "$dir/$name"
path="$dir/$name"

run --format json "$dir"
check "json: valid" isjson out.txt
check "json: 3 findings" is "$(jq '.findings | length' out.txt)" 3
check "json: the file name exactly" is "$(jq -r '.findings[0].file' out.txt)" "$path"
check "json: the source line kept (the bad byte replaced)" is "$(jq -r '.findings[] | select(.line == 20) | .source' out.txt)" \
	"$(printf '\trb_raise(rb_eArgError, "::error file=evil.c::%%0A \\"q\\" %%s"); /* \357\277\275 */')"

run --format sarif "$dir"
check "sarif: valid" isjson out.txt
check "sarif: the URI is the percent-encoded name" is \
	"$(jq -r --arg p "$path" '.runs[0].results[0].locations[0].physicalLocation.artifactLocation.uri == ($p | split("/") | map(@uri) | join("/"))' out.txt)" true
check "sarif: no raw newline or quote in the URI" is "$(jq -r '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri | test("[\n\" ,:]")] | any' out.txt)" false
cp out.txt injection.sarif

run --format github "$dir"
check "github: one line per finding" is "$(wc -l <out.txt | tr -d ' ')" 3
check "github: every line is a command" is "$(grep -c '^::error file=' out.txt)" 3
esc=$(printf '%s' "$path" | sed -e 's/%/%25/g' -e 's/:/%3A/g' -e 's/,/%2C/g' | awk 'NR > 1 { printf "%%0A" } { printf "%s", $0 }')
check "github: the file property escaped" is "$(sed -n '1s/^::error file=\([^,]*\),line=.*/\1/p' out.txt)" "$esc"
check "github: the properties end where they should" is "$(grep -c ',line=[0-9]*,col=[0-9]*,title=[a-z-]*::' out.txt)" 3
check "github: '%' in names escaped" has out.txt 'a%3A%3Ab%250A%2Cc"d%2525e%0Aerror file=x%3A%3Ay.c,line=20,col=2,'
check "github: notes escaped in the message" has out.txt "::'rb_raise' raises.*%0Anote: we::ird %250A dir,"

# the text format shows control characters instead of emitting them
run "$dir"
check "text: the newline in the name is shown as ^J" has out.txt "a::b%0A,c\"d%25e^Jerror file=x::y.c:20:2: error"

# SARIF validation of this output, when the validator is installed
. "$TESTDIR/sarif.inc"
if sarif_validator_found; then
	check "sarif: the validator accepts the output" sarif_validate injection.sarif
fi
finish
