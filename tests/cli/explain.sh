#!/bin/sh
# --explain prints the rule's page (embedded: no source tree needed), --list-rules,
# and no progress line when stderr is not a terminal.
. "$(dirname "$0")/lib/common.sh"
checklist

# run a copy of the binary from an empty directory: the pages are built in
cp "$BIN" ./nogvl-lint-copy
./nogvl-lint-copy --explain ruby-api-without-gvl >out.txt 2>err.txt
rc=$?
check "explain: exit 0" is "$rc" 0
check "explain: the page" is "$(head -1 out.txt)" "# ruby-api-without-gvl"
check "explain: same text as rules/docs/<slug>.md" cmp -s out.txt "$SRC/rules/docs/ruby-api-without-gvl.md"
for slug in $("$BIN" --list-rules | awk '{print $1}'); do
	"$BIN" --explain "$slug" >page.txt 2>&1
	check "explain $slug: exit 0 and a heading" is "$?:$(head -1 page.txt)" "0:# $slug"
done
run --explain no-such-rule
check "explain unknown: exit 2" is "$rc" 2
check "explain unknown: says so" has err.txt "no rule 'no-such-rule'"
run --list-rules
check "list-rules: unused-suppression listed" has out.txt "^unused-suppression"

# progress: never on a non-terminal (here stderr is a file), however many files
mkdir many
i=0
while [ $i -lt 12 ]; do
	write_ext "many/f$i.c"
	sed -i "s/Init_ext/Init_f$i/" "many/f$i.c"
	i=$((i + 1))
done
run --format json many
check "progress: nothing on a non-terminal" hasnt err.txt "\[1/12\]"
check "progress: stderr holds the summary only" is "$(wc -l <err.txt | tr -d ' ')" 1
finish
