#!/bin/sh
# scripts/audit-gems --shard K/N and --merge: the shards split the list
# without overlap, their merge is the report of one unsharded run (byte for
# byte apart from timings), bad shard specs and bad merges are refused with
# the reason; an interrupted audit resumes keeping the finished gems, a
# changed tool build or changed files re-use nothing stale; per-gem time and
# memory limits list the gem as not analysed with the reason; the merge step
# of .github/workflows/audit.yml run as written.
. "$(dirname "$0")/lib/common.sh"
checklist
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"
	exit 77
fi
AUDIT="$SRC/scripts/audit-gems"
C=$SRC/corpus

# our own small gems (corpus cases and the example extension), and one that fails
cat >gems.list <<EOF
digest=$C/examples/digest_ext
$C/ruby-api-without-gvl/cross_file
$C/offload-candidate
$C/offload-unsafe
$C/ubf-ignored
nosuch=$T/no-such-gem
EOF
audit() {
	python3 "$AUDIT" --nogvl-lint "$BIN" --cache "$T/cache" "$@" >out.txt 2>err.txt
	rc=$?
}
# lingering DIR: how many nogvl-lint processes writing into DIR are running
lingering() {
	python3 - "$BIN" "$1" <<'PYEOF'
import os, sys
n = 0
for p in os.listdir("/proc"):
    if not p.isdigit():
        continue
    try:
        with open("/proc/%s/cmdline" % p, "rb") as f:
            a = f.read().split(b"\0")
    except OSError:
        continue
    if a[0] == sys.argv[1].encode() and any(sys.argv[2].encode() in x for x in a):
        n += 1
print(n)
PYEOF
}
# same REPORT-A REPORT-B: the reports equal apart from timings
same() {
	for f in summary.md index.html; do
		sed 's/ · [0-9]* s$//' "$1/$f" >a.cmp
		sed 's/ · [0-9]* s$//' "$2/$f" >b.cmp
		cmp -s a.cmp b.cmp || { echo "  $1/$f and $2/$f differ:"; diff a.cmp b.cmp | head -20; return 1; }
	done
	jq -S 'del(.seconds, .gems[].seconds)' "$1/audit.json" >a.cmp
	jq -S 'del(.seconds, .gems[].seconds)' "$2/audit.json" >b.cmp
	cmp -s a.cmp b.cmp || { echo "  audit.json differs:"; diff a.cmp b.cmp | head -20; return 1; }
	for p in "$1"/gems/*.html; do
		cmp -s "$p" "$2/gems/${p##*/}" || { echo "  ${p##*/} differs"; return 1; }
	done
	for p in "$1"/gems/*.json; do
		case $p in *.state.json) continue ;; esac
		jq -S 'del(.summary.timing)' "$p" >a.cmp
		jq -S 'del(.summary.timing)' "$2/gems/${p##*/}" >b.cmp
		cmp -s a.cmp b.cmp || { echo "  ${p##*/} differs"; return 1; }
	done
	[ "$(ls "$1/gems" | grep -v -c state.json)" = "$(ls "$2/gems" | grep -v -c state.json)" ] ||
		{ echo "  other files in gems/"; return 1; }
}

audit --list gems.list --out full
check "unsharded: exit 0" is "$rc" 0
check "unsharded: 5 of 6 analysed" has err.txt '^audit: 5 of 6 gems analysed'

for k in 1 2 3; do
	audit --list gems.list --out s$k --shard $k/3
	check "shard $k/3: exit 0" is "$rc" 0
	cp err.txt s$k.err
done
# every gem in exactly one shard, two each (round-robin over the sorted names)
jq -r '.entries[].index' s1/shard.json s2/shard.json s3/shard.json | sort -n >indexes
check "shards: each gem in exactly one shard" is "$(tr '\n' ' ' <indexes)" "0 1 2 3 4 5 "
check "shards: balanced (2 each)" is "$(jq '.entries | length' s1/shard.json s2/shard.json s3/shard.json | tr '\n' ' ')" "2 2 2 "
# the documented order: sorted by name, dealt round-robin; names: cross_file digest nosuch
# offload-candidate offload-unsafe ubf-ignored -> shard 1: cross_file, offload-candidate
check "shards: round-robin over the sorted names" is \
	"$(jq -r '[.entries[].record.name] | sort | join(" ")' s1/shard.json)" "cross_file offload-candidate"
check "shard progress: positions in the whole list" has s1.err '^\[2/6\] cross_file: '
check "shard: only its own gems analysed" is "$(grep -c ': analysing' s1.err)" 2
audit --list gems.list --out s2again --shard 2/3 --fresh
check "shards: deterministic" is "$(jq -c '[.entries[].index]' s2again/shard.json)" "$(jq -c '[.entries[].index]' s2/shard.json)"

audit --merge s3 s1 s2 --out merged
check "merge: exit 0" is "$rc" 0
check "merge: says what it merged" has err.txt '^audit: merged 3 shards: 5 of 6 gems analysed'
check "merge: the same report as one run (apart from timings)" same full merged
check "merge: the failure kept with its reason" has merged/summary.md '^| nosuch | .* | sources | no such directory'

# bad shard specs: exit 2 with the reason, nothing audited
for spec in 3/2 0/0 a/b 1/0 -1/2 2; do
	audit --list gems.list --out bad --shard="$spec"
	check "--shard $spec: exit 2" is "$rc" 2
	check "--shard $spec: the reason" has err.txt "bad shard '$spec'"
done
check "bad specs: nothing audited" test ! -e bad

# bad merges: refused with the reason, exit 2
audit --merge s1 s1 s2 s3 --out m1
check "merge overlapping (the same shard twice): exit 2" is "$rc" 2
check "merge overlapping: the reason" has err.txt 'refusing to merge overlapping shards: .*s1 and .*s1 are both shard 1/3'
audit --list gems.list --out h1 --shard 1/2
audit --merge s1 s2 s3 h1 --out m2
check "merge of another split: exit 2" is "$rc" 2
check "merge of another split: the reason" has err.txt 'refusing to merge overlapping shards: .* is shard 1/3, .* is shard 1/2'
audit --merge s1 s3 --out m3
check "merge with a shard missing: exit 2" is "$rc" 2
check "merge with a shard missing: the reason" has err.txt 'shard 2 of 3 missing'
# another build of the tool: the same binary with one more byte (still runs)
cp "$BIN" other-lint
printf 'x' >>other-lint
python3 "$AUDIT" --nogvl-lint "$T/other-lint" --list gems.list --out o2 --shard 2/3 >out.txt 2>err.txt
check "the other build runs" is "$?" 0
audit --merge s1 o2 s3 --out m4
check "merge of different tool builds: exit 2" is "$rc" 2
check "merge of different tool builds: the reason" has err.txt 'refusing to merge shards from different tool versions: .*s1 was made by nogvl-lint .*binary sha256'
printf 'digest=%s\n' "$C/examples/digest_ext" >other.list
audit --list other.list --out l2 --shard 2/3
audit --merge s1 l2 s3 --out m5
check "merge of another gem list: exit 2" is "$rc" 2
check "merge of another gem list: the reason" has err.txt 'different gem lists'
audit --merge "$T" --out m6
check "merge of a directory that is no audit: exit 2" is "$rc" 2
cp -r s2 s2cut
rm s2cut/gems/*.json
audit --merge s1 s2cut s3 --out m7
check "merge of a shard without its gems' reports: exit 2" is "$rc" 2
check "merge of a shard without its gems' reports: the reason" has err.txt 's2cut: not a complete audit-gems output (.*/gems/.*json: No such file'
jq '.entries[0].record.slug = "../../x"' s2/shard.json >s2cut/shard.json
audit --merge s1 s2cut s3 --out m8
check "merge of a shard naming a file outside: exit 2" is "$rc" 2
check "refused merges write nothing" sh -c '! ls m1 m2 m3 m4 m5 m6 m7 m8 2>/dev/null | grep -q .'

# resume: a re-run keeps every finished gem
audit --list gems.list --out full
check "re-run: exit 0" is "$rc" 0
check "re-run: the 5 analysed gems kept" is "$(grep -c 'kept from an earlier run (same tool, same files)' err.txt)" 5
check "re-run: nothing analysed again" hasnt err.txt ': analysing'
check "re-run: the same report" same full merged
# an interrupted audit (SIGTERM after the first gem) resumes where it stopped
python3 "$AUDIT" --nogvl-lint "$BIN" --list gems.list --out intr >intr.out 2>intr.err &
apid=$!
i=0
while [ "$(ls intr/gems/*.state.json 2>/dev/null | wc -l)" -lt 1 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -TERM $apid
wait $apid
irc=$?
check "interrupted: exit 130" is "$irc" 130
check "interrupted: says how to resume" has intr.err 'interrupted; the gems finished so far are kept'
check "interrupted: no analysis left running" is "$(lingering "$T/intr")" 0
nkept=$(ls intr/gems/*.state.json | wc -l)
check "interrupted: not finished" test "$nkept" -lt 5
audit --list gems.list --out intr
check "resumed: exit 0" is "$rc" 0
check "resumed: the finished gems kept" is "$(grep -c 'kept from an earlier run' err.txt)" "$nkept"
check "resumed: the others analysed" is "$(grep -c ': analysing' err.txt)" $((5 - nkept))
check "resumed: the same report as one run" same full intr

# nothing stale: another tool build re-analyses everything; changed files re-analyse their gem
cp -r "$C/offload-unsafe" mine
audit --list gems.list mine --out stale
check "stale: first run" is "$rc" 0
python3 "$AUDIT" --nogvl-lint "$T/other-lint" --list gems.list mine --out stale >out.txt 2>err.txt
check "another tool build: nothing kept" hasnt err.txt 'kept from'
check "another tool build: all 6 analysed again" is "$(grep -c ': analysing' err.txt)" 6
audit --list gems.list mine --out stale
check "back to this build: all analysed again" is "$(grep -c ': analysing' err.txt)" 6
touch -d '2001-01-01' mine/*.c
audit --list gems.list mine --out stale
check "a changed file: its gem analysed again" is "$(grep ': analysing' err.txt | cut -d' ' -f2)" "mine:"
check "a changed file: the other gems kept" is "$(grep -c 'kept from' err.txt)" 5
audit --list gems.list mine --out stale --fresh
check "--fresh: nothing kept" is "$(grep -c ': analysing' err.txt)" 6

# per-gem limits: the gem listed as not analysed with the reason, nothing left running
audit digest="$C/examples/digest_ext" --out lim --timeout 0.05
check "time limit: exit 1 (nothing analysed)" is "$rc" 1
check "time limit: the reason on stderr" has err.txt '^\[1/1\] digest: NOT ANALYSED (limits): time limit exceeded: still running after 0.05 s'
check "time limit: listed as not analysed" has lim/summary.md '^| digest | local | limits | time limit exceeded'
check "time limit: in audit.json" is "$(jq -r '.not_analysed[0].stage' lim/audit.json)" limits
check "time limit: in index.html" has lim/index.html 'not analysed (limits): time limit exceeded'
check "time limit: nothing left running" is "$(lingering "$T/lim")" 0
audit digest="$C/examples/digest_ext" "$C/offload-unsafe" --out lim --mem-limit 20
check "memory limit: exit 1" is "$rc" 1
check "memory limit: each gem listed with the reason" is "$(jq -r '[.not_analysed[] | .stage + ": " + .reason[0:21]] | unique | join(",")' lim/audit.json)" "limits: memory limit exceeded"
check "memory limit: in summary.md" has lim/summary.md '^| offload-unsafe | local | limits | memory limit exceeded'
# the limits are part of the key: a gem over them is kept as such, analysed again when they change
audit digest="$C/examples/digest_ext" --out lim --mem-limit 20
check "over the limits again: kept" has err.txt 'kept from an earlier run: NOT ANALYSED (limits): memory limit'
audit digest="$C/examples/digest_ext" --out lim
check "limits raised: analysed" is "$rc" 0
check "limits raised: listed as analysed" has lim/summary.md '^| digest | local | 2 |'
audit "$C/examples/digest_ext" --out x --mem-limit -1
check "a negative limit: exit 2" is "$rc" 2

# the GitHub Actions workflow's merge step, run as written on shards laid out as
# actions/download-artifact leaves them (one directory per artifact)
WF=$SRC/.github/workflows/audit.yml
check "workflow: a matrix over the shards" has "$WF" 'shard: \[1, 2, 3, 4\]'
check "workflow: each shard job runs --shard" has "$WF" '--shard "${{ matrix.shard }}/4"'
mkdir -p ci/shards
for k in 1 2 3; do cp -r s$k "ci/shards/nogvl-audit-shard-$k"; done
if python3 -c 'import yaml' 2>/dev/null; then
	# as GitHub reads it (python3-yaml, when installed)
	merge_step=$(python3 -c 'import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
print(d["jobs"]["shard"]["strategy"]["matrix"]["shard"], file=sys.stderr)
print([s["run"] for s in d["jobs"]["merge"]["steps"] if "run" in s][0])' "$WF" 2>matrix.txt)
	check "workflow: valid YAML with a matrix of four shards" is "$(cat matrix.txt)" "[1, 2, 3, 4]"
else
	merge_step=$(sed -n 's/^ *run: \(.*\) # merge-step$/\1/p' "$WF")
fi
check "workflow: the merge step found" test -n "$merge_step"
(cd ci && PATH="$SRC/scripts:$PATH" sh -c "$merge_step") >out.txt 2>err.txt
check "workflow merge step: exit 0" is "$?" 0
check "workflow merge step: the same report as one run" same full ci/nogvl-audit
finish
