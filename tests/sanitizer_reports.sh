#!/bin/sh
# Fails when any sanitizer report was written under DIR (see tests/CMakeLists.txt)
# and prints them all.
set -u
dir=${1:?usage: sanitizer_reports.sh DIR}
n=0
for f in "$dir"/*; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	echo "=== $f"
	cat "$f"
done
if [ "$n" -ne 0 ]; then
	echo "FAIL: $n sanitizer report(s)"
	exit 1
fi
echo "no sanitizer reports"
