#!/bin/sh
# A file whose macros expand to gigabytes (tests/fuzz/pipeline/regressions/
# macro-doubling.c: 730 bytes of nested doubling macros, 2.5 GiB of
# libclang's memory unbounded) is stopped by the parser processes' memory
# limit (default --memory-limit 1024 MiB of resident memory) in bounded time:
# "not analysed: resource limit", and the other files' results are kept.
. "$(dirname "$0")/lib/common.sh"
checklist

RUN_LIMITED=$(dirname "$BIN")/tests/run_limited
[ -x "$RUN_LIMITED" ] || fail "run_limited is not built next to the binary ($RUN_LIMITED)"
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# limited SECONDS ARGS...: the binary under run_limited; $status $rss_mb $secs
limited() {
	lim=$1
	shift
	"$RUN_LIMITED" "$lim" "$T/report" -- "$BIN" "$@" >out.txt 2>err.txt || true
	read -r status rss secs <"$T/report"
	rss_mb=$((rss / 1024))
	echo "# exit $status, peak $rss_mb MiB, $secs s"
}

mkdir ext
cp "$SRC/tests/fuzz/pipeline/regressions/macro-doubling.c" ext/doubling.c
write_bad_ext ext/good.c
ri="--ruby-include $SRC/tests/fuzz/ruby"
# shellcheck disable=SC2086
limited "$(scale_time 120)" --no-config --no-progress --jobs 1 $ri ext
check "the other file's finding: exit 1" is "$status" 1
check "in bounded time ($secs s)" below "$secs" "$(scale_time 40)"
check "bounded memory ($rss_mb MiB: the limit and one look's growth)" below "$rss_mb" 1536
check "not analysed: resource limit" has err.txt "doubling.c: not analysed: resource limit: parsing it took more than 1024 MiB"
check "the other file's finding is kept" has out.txt "good.c:.*\[ruby-api-without-gvl\]"
check "counted as not analysed" has out.txt "1 could not be analysed"

# a lower limit stops it sooner; the JSON says why
# shellcheck disable=SC2086
limited "$(scale_time 120)" --no-config --no-progress --jobs 1 --memory-limit 384 $ri --format json ext
check "--memory-limit 384: exit 1" is "$status" 1
check "--memory-limit 384: below it ($rss_mb MiB)" below "$rss_mb" 900
check "json: the reason" is \
	"$(jq -r '.parse_failures[] | select(.file | endswith("doubling.c")) | .reason' out.txt)" \
	"resource limit: parsing it took more than 384 MiB of memory (--memory-limit); stopped"
finish
