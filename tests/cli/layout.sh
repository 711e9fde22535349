#!/bin/sh
# The layout (README "Layout"): every source in a phase folder, rules/ holding
# only rules at its top level, and the include graph between the folders a DAG.
# The build keeps each phase from including the headers of a phase above it
# (each folder is a library that sees only the folders it links); this test
# keeps the graph those links form acyclic, and fails naming the cycle.
. "$(dirname "$0")/lib/common.sh"
checklist
cd "$SRC" || exit 1

# the engine's sources: src/main.c alone at the top, everything else in a phase folder
loose=$(find src -maxdepth 1 -type f -name '*.[ch]' ! -name main.c | sort)
check "src/: no source outside a phase folder" is "$loose" ""

# rules/ at its top: rule files (each defines a descriptor) and the list
not_rules=""
for f in rules/*.c; do
	grep -q '^const struct rule_desc rule_' "$f" || not_rules="$not_rules $f"
done
check "rules/: every .c at the top is a rule" is "$not_rules" ""
check "rules/: no header at the top but rule_list.h" is "$(ls rules/*.h | tr '\n' ' ')" "rules/rule_list.h "
check "rules/: the pages are in rules/docs/" is "$(ls rules/*.md 2>/dev/null)" ""

# folder -> folder edges from the quoted includes (a header's folder is where
# its one file of that name lives); rule_list.h, the data-only list that the
# registry includes to name every rule, is the one edge allowed to run back up
find src rules -name '*.[ch]' | sort >"$T/files"
awk -F/ '/\.h$/ { n = $NF; sub("/" n "$", "", $0); print n, $0 }' "$T/files" | sort >"$T/headers"
dups=$(awk '{print $1}' "$T/headers" | uniq -d | tr '\n' ' ')
check "one header of each name (else an include is ambiguous)" is "$dups" ""
: >"$T/edges"
while read -r f; do
	dir=${f%/*}
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
		[ "$inc" = rule_list.h ] && continue
		to=$(awk -v n="$inc" '$1 == n {print $2}' "$T/headers")
		[ -n "$to" ] && [ "$to" != "$dir" ] && echo "$dir $to"
	done >>"$T/edges"
done <"$T/files"
sort -u "$T/edges" -o "$T/edges"
check "the include graph has edges (the scan read the includes)" test "$(wc -l <"$T/edges")" -gt 10
tsort "$T/edges" >"$T/order" 2>"$T/tsort.err"
check "the include graph between the folders is acyclic" is "$(cat "$T/tsort.err")" ""
# the check itself: one backward edge makes a cycle that tsort reports
{ cat "$T/edges"; echo "src/util src/driver"; } | tsort >/dev/null 2>"$T/tsort2.err"
check "a backward edge (util -> driver) would be caught" has "$T/tsort2.err" "loop"
finish
