#!/bin/sh
# bench/run on a tiny input (a smoke test: the script runs and reports every
# ratio), --dump-commands (the compile commands it measures clang with), and
# the phase timing in the JSON summary.
. "$(dirname "$0")/lib/common.sh"
checklist

# --dump-commands: what each file is parsed with, as a compile database
run --dump-commands "$SRC/corpus/examples/digest_ext"
check "dump-commands: exit 0" is "$rc" 0
check "dump-commands: a JSON array" is "$(jq -r 'type' out.txt)" array
check "dump-commands: one entry per file" is "$(jq 'length' out.txt)" 2
check "dump-commands: clang first, the file last" is \
	"$(jq -r '.[0] | [.arguments[0], (.arguments[-1] == .file)] | @tsv' out.txt)" "$(printf 'clang\ttrue')"
check "dump-commands: the Ruby headers and the extconf stand-in" is \
	"$(jq -r '.[0].arguments | [any(. == "-DRUBY_EXTCONF_H=\"extconf.h\""), any(startswith("-I") and contains("ruby"))] | @tsv' out.txt)" \
	"$(printf 'true\ttrue')"
check "dump-commands: says where the in-memory extconf.h lives" is "$(jq -r '.[0].nogvl_lint_virtual_dir | type' out.txt)" string
check "dump-commands: nothing parsed, no summary" hasnt out.txt 'files analysed'
cp out.txt db.json
if command -v clang >/dev/null 2>&1; then
	# the database works for clang itself once the stand-in is a real file
	mkdir virtual
	: >virtual/extconf.h
	vdir=$(jq -r '.[0].nogvl_lint_virtual_dir' db.json)
	jq -r --arg v "-idirafter$vdir" --arg r "-idirafter$T/virtual" '.[0].arguments[1:] | map(if . == $v then $r else . end) | .[]' db.json >args.txt
	check "dump-commands: clang -fsyntax-only accepts the arguments" sh -c 'tr "\n" "\0" <args.txt | xargs -0 clang -fsyntax-only -w'
fi

# the phase timing in the JSON summary
run --format json "$SRC/corpus/examples/digest_ext"
check "json: summary.timing has the three phases" is \
	"$(jq -r '.summary.timing | [(.parse_seconds | type), (.link_seconds | type), (.rules_seconds | type), (.jobs | type)] | @tsv' out.txt)" \
	"$(printf 'number\tnumber\tnumber\tnumber')"

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"
	exit 77
fi
python3 "$SRC/bench/run" --nogvl-lint "$BIN" --ruby-ext "$SRC/corpus/examples/digest_ext" --skip-tidy --jobs 2 \
	--json bench.json >out.txt 2>err.txt
rc=$?
check "bench: exit 0" is "$rc" 0
check "bench: JSON written" isjson bench.json
check "bench: the nogvl-lint runs with their phases" is \
	"$(jq -r '.runs["nogvl-lint --jobs 1"].timing | has("parse_seconds")' bench.json)" true
check "bench: every ratio present (or skipped)" is \
	"$(jq -r '.ratios | [has("speedup_jobs1_over_jobsN_wall"), has("link_rules_share_of_jobs1"), has("rss_all_over_largest_alone")] | all' bench.json)" true
if command -v clang >/dev/null 2>&1; then
	check "bench: the compiler floor measured" is "$(jq -r '.ratios.jobs1_over_clang_sum_wall | type' bench.json)" number
fi
if "$BIN" --help | grep -q -- '--cache'; then
	check "bench: the cache runs" is "$(jq -r '.ratios.cache_warm_over_cold | type' bench.json)" number
else
	check "bench: the cache pair skipped with a reason" has out.txt 'skipped: nogvl-lint has no --cache option yet'
fi
check "bench: the ratio table" has out.txt 'nogvl-lint --jobs 1 / sum of clang -fsyntax-only'
check "bench: the machine" has out.txt '^machine: '
finish
