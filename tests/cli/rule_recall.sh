#!/bin/sh
# The held-out shapes of bench/rule-recall keep recall >= 0.9 and precision
# >= 0.95 for small-work-nogvl, shared-mutable-state, ubf-ignored and
# ubf-not-async-safe (issue 16 item 12).
. "$(dirname "$0")/lib/common.sh"
checklist

need python3
python3 "$SRC/bench/rule-recall/measure" "$BIN" >out.txt 2>err.txt
check "measure runs" is "$?" 0
for r in small-work-nogvl shared-mutable-state ubf-ignored ubf-not-async-safe; do
	line=$(grep "^$r " out.txt)
	rec=$(echo "$line" | awk '{print $5}')
	pre=$(echo "$line" | awk '{print $6}')
	check "$r: recall $rec >= 0.90" is "$(awk -v x="$rec" 'BEGIN{print (x >= 0.9) ? "yes" : "no"}')" yes
	check "$r: precision $pre >= 0.95" is "$(awk -v x="$pre" 'BEGIN{print (x >= 0.95) ? "yes" : "no"}')" yes
done
finish
