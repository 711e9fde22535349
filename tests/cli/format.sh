#!/bin/sh
# The code stays in the style of .clang-format: clang-format (14 or newer)
# --dry-run -Werror over the files the tree was formatted with (src/, rules/,
# the unit tests, the fuzz harnesses, tests/corpus_runner.c and
# tests/run_limited.c). Never the corpus, tests/data or the fuzzers' input
# folders: their sources are test data, and their line numbers expectations.
# Fix a failure with `clang-format -i FILE` (clang-format-14 on Debian 12).
# Skips (77) when no clang-format 14 or newer is installed (scripts/setup
# --test-tools installs it).
. "$(dirname "$0")/lib/common.sh"
checklist

cf=""
for c in clang-format clang-format-19 clang-format-18 clang-format-17 clang-format-16 clang-format-15 clang-format-14; do
	command -v "$c" >/dev/null 2>&1 || continue
	v=$("$c" --version 2>/dev/null | sed -n 's/.*version \([0-9][0-9]*\)\..*/\1/p' | head -n 1)
	if [ -n "$v" ] && [ "$v" -ge 14 ]; then
		cf=$c
		break
	fi
done
if [ -z "$cf" ]; then
	echo "SKIP: no clang-format 14 or newer is installed (scripts/setup --test-tools installs clang-format)"
	exit 77
fi
echo "# $("$cf" --version)"

cd "$SRC" || exit 1
check "the style file is in the tree" test -f .clang-format
{
	find src rules -type f -name '*.[ch]'
	find tests/unit tests/fuzz -maxdepth 1 -type f -name '*.[ch]'
	echo tests/corpus_runner.c
	echo tests/run_limited.c
} | sort >"$T/files"
n=$(wc -l <"$T/files")
check "the file set is the code ($n files, over 100)" test "$n" -gt 100
check "the file set leaves the corpus and the fixtures out" is "$(grep -c -e '^corpus/' -e '/data/' -e '^tests/fuzz/.*/' "$T/files")" "0"

# one clang-format per 40 files; the names of the files it would change
: >"$T/bad"
xargs -n 40 "$cf" --dry-run -Werror <"$T/files" 2>"$T/cf.err" || true
sed -n 's/^\([^:]*\.[ch]\):[0-9]*:[0-9]*: error: .*clang-format-violations.*/\1/p' "$T/cf.err" | sort -u >"$T/bad"
# anything else it says (a style it cannot read, a file it cannot open) is a failure too
grep -E -e '^[^ ]*: (error|warning):' -e '^(Error|Invalid|Configuration file|YAML)' "$T/cf.err" |
	grep -v 'clang-format-violations' >"$T/other" || true
check "clang-format reads the style and every file" is "$(head -n 5 "$T/other")" ""
check "every file is formatted (fix: $cf -i FILE)" is "$(tr '\n' ' ' <"$T/bad")" ""

# the check itself: code out of style, read as a file of src/, is caught
printf 'int f(void){return 0;}\n' >"$T/probe.c"
rc=0
"$cf" --dry-run -Werror --assume-filename=src/util/probe.c <"$T/probe.c" >/dev/null 2>&1 || rc=$?
check "code out of style would be caught" test "$rc" -ne 0
finish
