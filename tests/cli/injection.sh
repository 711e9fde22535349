#!/bin/sh
# File names and source text that look like output syntax: '::', '%', ',',
# quotes, newlines, bytes that are not UTF-8. JSON and SARIF must stay valid
# with the exact names in them; GitHub output must stay one command per
# finding with every special character escaped.
. "$(dirname "$0")/lib/common.sh"
checklist
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
. "$TESTDIR/lib/sarif.sh"
if sarif_validator_found; then
	check "sarif: the validator accepts the output" sarif_validate injection.sarif
fi

# ---- part 2: names and texts that try to drive a terminal, a log viewer or a
# browser: ANSI/OSC escapes, BEL, CR, a newline followed by a workflow command,
# <script>, quotes and ampersands, non-ASCII UTF-8, bytes that are not UTF-8,
# bidirectional overrides; in directory names, file names, a binary file whose
# name ends up in a log line, and the source line of a finding.
#
# Every format is run over the same tree and checked by check_<format>; a new
# output format adds its name to FORMATS and a check_<format> function (each
# gets the run's stdout in out.txt and stderr in err.txt). The checks every
# format gets: stderr lines all start with "nogvl-lint: " and hold no raw
# control character, so neither a terminal nor GitHub's log parser (which
# reads stderr too) sees anything but our own lines.
FORMATS="text json sarif github"
ESC=$(printf '\033')
BEL=$(printf '\007')
CR=$(printf '\r')
RLO=$(printf '\342\200\256') # U+202E, right-to-left override
mkdir h2 && cd h2 || exit 1
d1=$(printf 'ansi\033[31mred\033]0;title\007 <script>alert(1)<img src=x onerror=alert(2)>')
n1=$(printf 'caf\303\251 &amp; "q" \342\200\256c.exe\r\n::warning file=x.c::injected.c')
n2=$(printf 'bytes\377\376 \316\273.c')
mkdir "$d1"
write_ext "$d1/$n1"
write_ext "$n2"
# a finding line with ESC, BEL and <script> in a comment
{
	head -n 19 "$n2"
	printf '\trb_raise(rb_eArgError, "b"); /* \033[2J\007 <script>x</script> */\n'
	tail -n +21 "$n2"
} >line20.tmp && mv line20.tmp "$n2"
# a binary file: its name reaches a warning on stderr
printf '\177ELF\0\0\0' >"$(printf 'bin\033]0;owned\007\n::error::from a log line.c')"

common_checks() { # FORMAT
	check "$1: stderr lines are ours" is "$(grep -vc '^nogvl-lint: \|^[0-9]* files\{0,1\} analysed (' err.txt)" 0
	check "$1: no raw ESC, BEL or CR on stderr" is "$(grep -c "$ESC\|$BEL\|$CR" err.txt)" 0
	check "$1: the binary file is named in one warning" is "$(grep -c 'not a C source file' err.txt)" 1
}

check_text() {
	check "text: no raw ESC, BEL or CR" is "$(grep -c "$ESC\|$BEL\|$CR" out.txt)" 0
	check "text: no raw bidi override" is "$(grep -c "$RLO" out.txt)" 0
	check "text: no line starts a workflow command" is "$(grep -c '^::' out.txt)" 0
	check "text: the escape shown as ^[" has out.txt 'ansi^\[\[31mred^\[\]0;title^G <script>'
	check "text: CR LF shown, then the rest of the name" has out.txt 'c.exe^M^J::warning file=x.c::injected.c:11:'
	check "text: the override shown" has out.txt "$(printf 'caf\303\251 &amp; "q" <U+202E>c.exe')"
	check "text: the source line's ESC and BEL shown" has out.txt '/\* ^\[\[2J^G <script>x</script> \*/'
	check "text: 6 findings" is "$(grep -c ': error: \|: warning: ' out.txt)" 6
}

check_json() {
	check "json: valid" isjson out.txt
	check "json: 6 findings" is "$(jq '.findings | length' out.txt)" 6
	check "json: a UTF-8 name exactly" is "$(jq -r --arg n "$d1/$n1" '[.findings[] | select(.file == $n)] | length' out.txt)" 3
	check "json: bytes that are not UTF-8 replaced" is \
		"$(jq -r --arg n "$(printf 'bytes\357\277\275\357\277\275 \316\273.c')" '[.findings[] | select(.file == $n)] | length' out.txt)" 3
	check "json: the source line's ESC kept as data" is \
		"$(jq -r '.findings[] | select(.line == 20 and (.file | startswith("bytes"))) | .source' out.txt | grep -c "$ESC\[2J$BEL <script>")" 1
}

check_sarif() {
	check "sarif: valid" isjson out.txt
	check "sarif: 6 results" is "$(jq '.runs[0].results | length' out.txt)" 6
	check "sarif: URIs hold no raw character that needs encoding" is \
		"$(jq -r '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri | test("[\u0000-\u0020<>\"%]") and (test("%[0-9A-F]{2}") | not)] | any' out.txt)" false
	check "sarif: ESC in a URI percent-encoded" is \
		"$(jq -r '[.runs[0].results[].locations[0].physicalLocation.artifactLocation.uri | select(contains("%1B%5B31mred%1B%5D0%3Btitle%07"))] | length' out.txt)" 3
	cp out.txt hostile.sarif
}

check_github() {
	check "github: one line per finding" is "$(wc -l <out.txt | tr -d ' ')" 6
	check "github: every line is one of our commands" is "$(grep -c '^::\(error\|warning\|notice\) file=' out.txt)" 6
	check "github: no raw ESC, BEL or CR" is "$(grep -c "$ESC\|$BEL\|$CR" out.txt)" 0
	check "github: control characters shown" has out.txt 'file=ansi^\[\[31mred^\[\]0;title^G <script>'
	check "github: the newline in a name escaped" has out.txt 'c.exe%0D%0A%3A%3Awarning file=x.c%3A%3Ainjected.c,line='
}

for fmt in $FORMATS; do
	run --format "$fmt" .
	check "$fmt: exit 1 (findings)" is "$rc" 1
	common_checks "$fmt"
	"check_$fmt"
done
if sarif_validator_found; then
	check "sarif: the validator accepts the hostile names" sarif_validate hostile.sarif
fi
finish
