#!/bin/sh
# Untrusted input stays data (issue 20): each numbered case is an attack a
# hostile tree (a pull request in CI, a gem fetched for an audit) made on an
# earlier version, and what must hold now: nothing runs, nothing is written
# outside what the user named, nothing reaches our output unescaped, and
# memory and time stay bounded.
#
# Every case runs, whatever the others do: the test prints "ok - N ..." or
# "FAIL - N ..." per check and fails at the end when any check failed, so
# that a run against an older binary shows which cases it fails.
#
# Long cases run under tests/run_limited (a wall-clock limit, peak memory).
. "$(dirname "$0")/lib/common.sh"

RUN_LIMITED=$(dirname "$BIN")/tests/run_limited
[ -x "$RUN_LIMITED" ] || fail "run_limited is not built next to the binary ($RUN_LIMITED)"
# a sanitizer build takes 2-3 times the time and memory: the bounds allow it
ASAN=0
grep -q __asan_init "$BIN" 2>/dev/null && ASAN=1
nfail=0
ncheck=0
# check CASE DESCRIPTION COMMAND...: one check, counted, never fatal
check() {
	c=$1
	d=$2
	shift 2
	ncheck=$((ncheck + 1))
	if "$@"; then
		echo "ok - $c: $d ($(date +%s))"
	else
		nfail=$((nfail + 1))
		echo "FAIL - $c: $d"
		if [ -f "$OUT" ]; then echo "--- stdout:"; head -c 1500 "$OUT"; echo; fi
		if [ -f "$ERR" ]; then echo "--- stderr:"; head -c 1500 "$ERR"; echo; fi
	fi
}
has() { grep -q -e "$2" "$1"; }
hasnt() { ! grep -q -e "$2" "$1"; }
is() { [ "$1" = "$2" ] || { echo "  got '$1', want '$2'"; return 1; }; }
isjson() { jq -e . "$1" >/dev/null 2>&1; }
# every stderr line is one of ours (starts "nogvl-lint: ", or the summary)
only_our_stderr() { ! grep -v '^nogvl-lint: \|^[0-9]* files\{0,1\} analysed (' "$ERR" | grep -q .; }
# no line of stderr or stdout starts a GitHub workflow command, none holds ESC
no_workflow_command() { ! grep -q '^::' "$ERR" "$OUT" && ! grep -q "$(printf '\033')" "$ERR" "$OUT"; }
# limited SECONDS REPORT ARGS...: the binary under run_limited; $status $rss_mb $secs
limited() {
	lim=$1
	shift
	"$RUN_LIMITED" "$lim" "$T/report" -- "$BIN" "$@" >"$OUT" 2>"$ERR" || true
	read -r status rss secs <"$T/report"
	rss_mb=$((rss / 1024))
	echo "# exit $status, $rss_mb MiB, $secs s"
}
below() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# a compile database for ext.c in the current directory with extra arguments
compdb() { # compdb ARG... (JSON strings, already quoted)
	args=""
	for a in "$@"; do args="$args, $a"; done
	printf '[{"directory": "%s", "file": "ext.c", "arguments": ["cc"%s, "-c", "ext.c"]}]\n' "$PWD" "$args" \
		>compile_commands.json
}
# a callback --fix can flag RB_NOGVL_OFFLOAD_SAFE (the fix rewrites the call)
write_candidate() { # write_candidate FILE
	cat >"$1" <<'EOC'
#include <ruby.h>
#include <ruby/thread.h>

struct args { long n; long sum; };

static void *sum_nogvl(void *p)
{
	struct args *a = p;
	for (long i = 0; i < a->n; i++)
		a->sum += i;
	return NULL;
}

VALUE sum(VALUE self, VALUE n)
{
	struct args a = {NUM2LONG(n), 0};
	rb_nogvl(sum_nogvl, &a, NULL, NULL, 0);
	return LONG2NUM(a.sum);
}
EOC
}

# ---- 1. compiler arguments that write files, from a compile database
mkdir -p "$T/c1/.git" "$T/c1/home" && cd "$T/c1" || exit 1
write_bad_ext ext.c
printf 'keep\n' >home/.bashrc
printf 'keep\n' >victim.dot
compdb '"-Xclang"' '"-header-include-file"' '"-Xclang"' '"home/.bashrc"' '"-H"' \
	'"-Xclang"' '"-dependency-dot"' '"-Xclang"' '"victim.dot"' '"-MJjoined.json"' \
	'"-fmodules-cache-path=modcache"' '"-Xclang"' '"-module-dependency-dir"' '"-Xclang"' '"moddeps"' \
	'"-ftime-trace=trace.json"'
run -v -p .
check 1 "the database's flags do not append to a file" is "$(cat home/.bashrc)" keep
check 1 "-dependency-dot does not truncate a file" is "$(cat victim.dot)" keep
check 1 "-MJ, -fmodules-cache-path=, -module-dependency-dir, -ftime-trace= write nothing" \
	is "$(ls -A | grep -v '^\.' | tr '\n' ' ')" "compile_commands.json ext.c home victim.dot "
check 1 "the file is still analysed (its finding)" has "$OUT" "ext.c:6:2: error: .*\[ruby-api-without-gvl\]"
check 1 "-v lists the dropped -Xclang payload" has "$ERR" "dropped flag -Xclang -header-include-file (passes arguments to another stage)"
check 1 "-v lists a dropped -f option" has "$ERR" "dropped flag -fmodules-cache-path=modcache (not on the list"
# --extra-arg: refused, with the reason
run --extra-arg=-Xclang --extra-arg=-dependency-dot ext.c
check 1 "--extra-arg outside the allow-list: exit 2" is "$rc" 2
check 1 "--extra-arg outside the allow-list: said" has "$ERR" "refusing --extra-arg '-Xclang -dependency-dot'"

# ---- 2. -o through a symlink committed in the repository
mkdir -p "$T/c2/.git" && cd "$T/c2" || exit 1
write_bad_ext ext.c
printf 'victim\n' >"$T/c2-victim"
ln -s "$T/c2-victim" nogvl-lint.sarif
run --format sarif -o nogvl-lint.sarif ext.c
check 2 "the symlink's target is not written" is "$(cat "$T/c2-victim")" victim
check 2 "the name is now a regular file" test -f nogvl-lint.sarif -a ! -L nogvl-lint.sarif
check 2 "holding the SARIF report" isjson nogvl-lint.sarif
ln -s "$T/c2-victim" base.json
run --write-baseline base.json ext.c
check 2 "--write-baseline does not follow a symlink either" is "$(cat "$T/c2-victim")" victim
# a FIFO (or a device such as /dev/null) named with -o is written in place:
# a file renamed over it would replace the device itself
mkfifo fifo.json
cat fifo.json >"$T/c2-fifo-read" &
reader=$!
run --format json -o fifo.json ext.c
wait "$reader"
check 2 "-o FIFO: still a FIFO" test -p fifo.json
check 2 "-o FIFO: the report went through it" isjson "$T/c2-fifo-read"
check 2 "-o FIFO: no temporary left" is "$(ls -a | grep -c '^\.fifo\.json\.nogvl-lint')" 0
run --format json -o /dev/stderr ext.c
check 2 "-o /dev/stderr: the report on stderr, /dev/stderr still a link" has "$ERR" '"findings"'
check 2 "-o /dev/stderr: /dev/stderr is still a symlink" test -L /dev/stderr
# a run killed with SIGKILL can leave nothing to clean up itself: the report
# is written to an anonymous file (O_TMPFILE) named only to be renamed, and
# temporaries an older version left are removed by the next run
printf 'half' >.out.json.nogvl-lint.Ab12Cd
printf 'not ours' >.out.json.nogvl-lint.toolong
run --format json -o out.json ext.c
check 2 "-o: a temporary a killed run left is removed" test ! -e .out.json.nogvl-lint.Ab12Cd
check 2 "-o: a name that is not one of our temporaries is kept" test -e .out.json.nogvl-lint.toolong
check 2 "-o: the report written" isjson out.json
check 2 "-o: no temporary left" is "$(ls -a | grep -c '^\.out\.json\.nogvl-lint\.......$')" 0

# ---- 3. --fix and discovery through symlinks out of the tree
mkdir -p "$T/c3/proj/.git" "$T/c3/victim" && cd "$T/c3/proj" || exit 1
write_candidate "$T/c3/victim/v.c"
cp "$T/c3/victim/v.c" "$T/c3/v.orig"
ln -s ../victim ext
run --fix ext
check 3 "--fix ext/ with ext -> ../victim: refused" is "$rc" 2
check 3 "--fix ext/: the reason" has "$ERR" "ext leads to .*victim, outside the current directory"
check 3 "--fix ext/: the file outside is unchanged" cmp -s "$T/c3/victim/v.c" "$T/c3/v.orig"
run --fix --allow-outside-root ext
check 3 "--allow-outside-root accepts it" is "$rc" 0
cp "$T/c3/v.orig" "$T/c3/victim/v.c"
# a compile database entry for a file above the database's tree
mkdir -p "$T/c3/db/.git" "$T/c3/db/build" && cd "$T/c3/db" || exit 1
write_candidate mine.c
printf '[{"directory": "%s", "file": "mine.c", "arguments": ["cc", "-c", "mine.c"]},
{"directory": "%s/build", "file": "../../victim/v.c", "arguments": ["cc", "-c", "../../victim/v.c"]}]\n' \
	"$PWD" "$PWD" >build/compile_commands.json
run --fix -p build
check 3 "-p: an entry for ../../victim/v.c is not fixed" cmp -s "$T/c3/victim/v.c" "$T/c3/v.orig"
check 3 "-p: the file in the tree is fixed" has mine.c "RB_NOGVL_OFFLOAD_SAFE);"
# ext -> /: refused at once, not a walk of the whole filesystem
cd "$T/c3/proj" && ln -s / root
limited 60 --no-config root
check 3 "a root symlinked to /: refused at once" is "$status" 2
check 3 "a root symlinked to /: the reason" has "$ERR" "root leads to /, outside the current directory"

# ---- 4. what libclang prints: never raw on our stderr or stdout
mkdir -p "$T/c4/.git" && cd "$T/c4" || exit 1
write_bad_ext ext.c
{
	printf '#include <ruby.h>\nint v = 1;\n#pragma clang __debug dump v\n'
	printf '_Pragma("clang __debug dump v")\n'
	printf '#line 1 "x\\n::error title=X::owned\\n\033]0;pwn\007"\nint w = 2;\n#pragma clang __debug dump w\n'
} >dump.c
for mode in workers threads; do
	set -- --no-progress
	[ $mode = threads ] && set -- --no-progress --tu-timeout 0
	run "$@" .
	check 4 "$mode: every stderr line is ours" only_our_stderr
	check 4 "$mode: no workflow command or escape on stdout or stderr" no_workflow_command
	check 4 "$mode: the other file's finding" has "$OUT" "ext.c:6:2: error"
	run "$@" -v .
	check 4 "$mode: -v: every stderr line is ours" only_our_stderr
	check 4 "$mode: -v: no workflow command or escape" no_workflow_command
done
printf '#include <ruby.h>\n#pragma clang __debug crash\nint z;\n' >crash.c
run --no-progress --tu-timeout 0 crash.c
check 4 "#pragma clang __debug crash is neutralised (in-process run lives)" is "$rc" 0
mkdir -p "$T/c4db/.git" && cd "$T/c4db" || exit 1
write_bad_ext ext.c
printf 'struct s { int a; char b; };\nstruct s one;\n' >>ext.c
compdb '"-###"' '"-v"' '"-H"' '"-Xclang"' '"-fdump-record-layouts"'
run --no-progress -p .
check 4 "database -### -v -H: every stderr line is ours" only_our_stderr
run --no-progress --tu-timeout 0 --format json -p .
check 4 "--tu-timeout 0 with -fdump-record-layouts: stdout is JSON" isjson "$OUT"
check 4 "--tu-timeout 0: every stderr line is ours" only_our_stderr

# ---- 5. an include of /dev/zero: refused, however it is spelled
mkdir -p "$T/c5/.git" && cd "$T/c5" || exit 1
write_bad_ext ext.c
printf '#include "/dev/zero"\nint x;\n' >zero.c
limited 120 --no-config --no-progress .
check 5 "#include \"/dev/zero\": done in time" below "$secs" 60
check 5 "#include \"/dev/zero\": bounded memory" below "$rss_mb" 1536
check 5 "#include \"/dev/zero\": not analysed, with the reason" has "$ERR" "zero.c: not analysed: .*'/dev/zero', which is a device"
check 5 "#include \"/dev/zero\": the other file's finding" has "$OUT" "ext.c:6:2: error"
# a name from a macro: an object-like one (the pre-scan resolves it), a
# function-like one and a -D from the compile database (the open guard sees
# what libclang opens), a symlink in the tree to /proc made by token pasting
mkdir -p "$T/c5m/.git" && cd "$T/c5m" || exit 1
write_bad_ext ext.c
printf '#define Z "/dev/zero"\n#include Z\nint x;\n' >zero1.c
printf '#define Q(x) #x\n#define DEV(x) Q(/dev/x)\n#include DEV(zero)\nint x;\n' >zero2.c
printf '#include HIDDEN\nint x;\n' >zero3.c
ln -s /proc/self/environ env.h
printf '#define Q(x) #x\n#define H(a, b) Q(a##b.h)\n#include H(en, v)\nint x;\n' >proc.c
printf '[{"directory": "%s", "file": "ext.c", "arguments": ["cc", "-c", "ext.c"]},
 {"directory": "%s", "file": "zero1.c", "arguments": ["cc", "-c", "zero1.c"]},
 {"directory": "%s", "file": "zero2.c", "arguments": ["cc", "-c", "zero2.c"]},
 {"directory": "%s", "file": "zero3.c", "arguments": ["cc", "-DHIDDEN=<../../dev/zero>", "-c", "zero3.c"]},
 {"directory": "%s", "file": "proc.c", "arguments": ["cc", "-c", "proc.c"]}]\n' \
	"$PWD" "$PWD" "$PWD" "$PWD" "$PWD" >compile_commands.json
# (--memory-limit: an older binary, which reads /dev/zero, stops at 1 GiB)
ml="--memory-limit 1024"
[ "$ASAN" = 1 ] && ml=""
# shellcheck disable=SC2086
limited 120 --no-config --no-progress $ml -p .
check 5 "#include via macros: in time ($secs s)" below "$secs" 60
check 5 "#include via macros: bounded memory ($rss_mb MiB)" below "$rss_mb" 1536
check 5 "#include Z (object-like macro): refused" has "$ERR" "zero1.c: not analysed: .*'/dev/zero', which is a device: not opened"
check 5 "#include DEV(zero) (function-like macro): refused" has "$ERR" "zero2.c: not analysed: .*'/dev/zero', which is a device: not opened"
check 5 "#include HIDDEN (-DHIDDEN=<../../dev/zero>): refused" has "$ERR" "zero3.c: not analysed: .*dev/zero', which is a device: not opened"
check 5 "#include H(en, v) (a symlink to /proc, by token pasting): refused" \
	has "$ERR" "proc.c: not analysed: .*env.h', which is a file under /dev, /proc or /sys: not opened"
check 5 "#include via macros: the other file's finding" has "$OUT" "ext.c:6:2: error"
run --memory-limit lots ext.c
check 5 "--memory-limit takes MiB" is "$rc" 2

# ---- 6. response files that expand to millions of arguments
mkdir -p "$T/c6/.git" && cd "$T/c6" || exit 1
write_bad_ext ext.c
i=0
: >c.rsp
: >b.rsp
: >a.rsp
while [ $i -lt 150 ]; do
	printf -- '-DX%d ' $i >>c.rsp
	printf '@c.rsp ' >>b.rsp
	printf '@b.rsp ' >>a.rsp
	i=$((i + 1))
done
compdb '"@a.rsp"'
limited 120 --no-progress -p .
check 6 "response files: an error, not millions of arguments" is "$status" 2
check 6 "response files: the budget named" has "$ERR" "more than 65536 arguments"
check 6 "response files: in time" below "$secs" 20
check 6 "response files: bounded memory" below "$rss_mb" 512

# ---- 7. 3,000 release sites sharing one callback chain
mkdir -p "$T/c7/.git" && cd "$T/c7" || exit 1
awk 'BEGIN {
	print "#include <ruby.h>\n#include <ruby/thread.h>\n#include <string.h>\nstatic int counter;\nstatic char buf[64];"
	n = 40
	printf "static void *f%d(void *p) { counter++; strtok(buf, \",\"); return p; }\n", n
	for (i = n - 1; i >= 0; i--)
		printf "static void *f%d(void *p) { counter += %d; buf[%d] = 1; strtok(buf, \",\"); return f%d(p); }\n", i, i, i % 64, i + 1
	for (i = 0; i < 3000; i++)
		printf "VALUE site%d(VALUE s) { rb_thread_call_without_gvl(f0, 0, RUBY_UBF_IO, 0); return s; }\n", i
}' >chain.c
limited 240 --no-config --no-progress --format json -o chain.json .
bytes=$(wc -c <chain.json)
echo "# JSON: $bytes bytes"
check 7 "3,000 sites: the JSON report is a document" isjson chain.json
check 7 "3,000 sites: the JSON stays under 60 MB (every site copied every gate's evidence)" below "$bytes" 60000000
check 7 "3,000 sites: memory under 1 GiB ($rss_mb MiB)" below "$rss_mb" $((1024 * (1 + 2 * ASAN)))
check 7 "evidence per gate capped, the rest counted" \
	is "$(jq '[.sites[0].offload.gates[] | .evidence | length] | max' chain.json)" 11
check 7 "'... and N more' says how many" has chain.json '"\.\.\. and [0-9][0-9]* more"'
check 7 "every site still not offload-safe (the gates' states from all evidence)" \
	is "$(jq '[.sites[].offload.verdict] | unique' -c chain.json)" '["not offload-safe"]'

# ---- 8. a configuration file nested 100,000 deep, and a large one
mkdir -p "$T/c8/.git" && cd "$T/c8" || exit 1
write_bad_ext ext.c
awk 'BEGIN { for (i = 0; i < 100000; i++) printf "["; for (i = 0; i < 100000; i++) printf "]"; print "" }' >.nogvl-lint.yml
limited 120 --no-progress ext.c
check 8 "nested 100,000 deep (200 KB): refused before libyaml" is "$status" 2
check 8 "nested 100,000 deep: at once" below "$secs" 10
awk 'BEGIN { for (i = 0; i < 30000; i++) printf "["; for (i = 0; i < 30000; i++) printf "]"; print "" }' >.nogvl-lint.yml
limited 120 --no-progress ext.c
check 8 "nested 30,000 deep (60 KB): refused" is "$status" 2
check 8 "nested: the reason" has "$ERR" "nested more than 64 levels deep"
check 8 "nested: at once" below "$secs" 10
awk 'BEGIN { for (i = 0; i < 100; i++) { for (k = 0; k <= i; k++) printf "  "; printf "k%d:\n", i } }' >.nogvl-lint.yml
run ext.c
check 8 "100 block levels: refused" has "$ERR" "nested more than 64 levels deep"
awk 'BEGIN { print "exclude:"; for (i = 0; i < 8000; i++) printf "  - \"vendor/x%d/**\"\n", i }' >.nogvl-lint.yml
run ext.c
check 8 "a 160 KB configuration: refused" has "$ERR" "larger than 64 KiB"
printf 'rules:\n  ruby-api-without-gvl:\n    severity: warning\n' >.nogvl-lint.yml
run ext.c
check 8 "an ordinary configuration still applies" has "$OUT" "ext.c:6:2: warning"

# ---- 9. an extconf.rb of 140,000 have_func probes
mkdir -p "$T/c9/.git" "$T/c9/ext" && cd "$T/c9" || exit 1
write_bad_ext ext/x.c
awk 'BEGIN { print "require \"mkmf\""; for (i = 0; i < 140000; i++) printf "have_func(\"rb_probe_%d\")\n", i
	print "have_func(\"rb_thread_call_without_gvl\")\ncreate_makefile(\"x\")" }' >ext/extconf.rb
limited 120 --no-config --no-progress ext
check 9 "140,000 probes: in time ($secs s)" below "$secs" 20
check 9 "the file's finding" has "$OUT" "x.c:6:2: error"

# ---- 10. a FIFO included by many files; the run's time budget
mkdir -p "$T/c10/.git" && cd "$T/c10" || exit 1
write_bad_ext ext.c
mkfifo fifo.h
for i in 1 2 3; do printf '#include "fifo.h"\nint v%d;\n' $i >"inc$i.c"; done
limited 120 --no-config --no-progress .
check 10 "a FIFO included by 3 files: in time ($secs s)" below "$secs" 30
check 10 "a FIFO: each file not analysed, with the reason" is "$(grep -c "not analysed: .*fifo.h', which is a FIFO" "$ERR")" 3
check 10 "a FIFO: the other file's finding" has "$OUT" "ext.c:6:2: error"
# a FIFO named through macros, also when parsing in this process
# (--tu-timeout 0: no time limit at all, so a FIFO opened blocks for good)
rm -f inc*.c
for i in 1 2; do printf '#define Q(x) #x\n#define N(x) Q(x.h)\n#include N(fifo)\nint v%d;\n' $i >"hid$i.c"; done
limited 60 --no-config --no-progress -j2 --tu-timeout 0 .
check 10 "a FIFO named by a macro, in-process: in time ($secs s)" below "$secs" 30
check 10 "a FIFO named by a macro, in-process: each file refused" \
	is "$(grep -c "hid[12].c: not analysed: .*fifo.h', which is a FIFO" "$ERR")" 2
check 10 "a FIFO named by a macro, in-process: the other file's finding" has "$OUT" "ext.c:6:2: error"
# the run's time budget: a parse that hangs (the test hook) ends the run
rm -f hid*.c fifo.h
write_good_ext ext.c
for i in 1 2 3; do printf 'int v%d;\n' $i >"hid$i.c"; done
NOGVL_LINT_TEST_HANG=hid
export NOGVL_LINT_TEST_HANG
limited 120 --no-config --no-progress -j1 --tu-timeout 100 --time-budget 4 .
unset NOGVL_LINT_TEST_HANG
check 10 "--time-budget 4: the run ends in time ($secs s)" below "$secs" 30
check 10 "--time-budget: the file being parsed" has "$ERR" "hid1.c: not analysed: budget: the run's --time-budget ran out while parsing it"
check 10 "--time-budget: the files not started" has "$ERR" "hid3.c: not analysed: budget: the run's --time-budget ran out before it was parsed"
check 10 "--time-budget: exit 3 (incomplete)" is "$status" 3

# ---- 11. configuration files above the project, without a .git
mkdir -p "$T/c11/proj" && cd "$T/c11" || exit 1
printf 'rules:\n  ruby-api-without-gvl: false\n' >.nogvl-lint.yml
write_bad_ext proj/ext.c
cd proj && run .
check 11 "a .nogvl-lint.yml above the named root does not apply" has "$OUT" "ext.c:6:2: error"
printf 'rules:\n  ruby-api-without-gvl:\n    severity: warning\n' >.nogvl-lint.yml
run -v .
check 11 "the root's own configuration applies" has "$OUT" "ext.c:6:2: warning"
check 11 "-v names the configuration file used" has "$ERR" "^nogvl-lint: configuration file: $T/c11/proj/.nogvl-lint.yml"
# inherit: true does not reach above the project either: not above the work
# tree's root, not above a named root without one
printf 'inherit: true\n' >.nogvl-lint.yml
run -v .
check 11 "inherit: true at the named root: the file above does not apply" has "$OUT" "ext.c:6:2: error"
check 11 "inherit: true at the named root: -v says so" has "$ERR" "inherit: true at the project's root"
mkdir -p "$T/c11/repo/.git" "$T/c11/repo/ext"
printf 'inherit: true\n' >"$T/c11/repo/.nogvl-lint.yml"
write_bad_ext "$T/c11/repo/ext/ext.c"
cd "$T/c11/repo/ext" && run .
check 11 "inherit: true at a work tree's root: the file above it does not apply" has "$OUT" "ext.c:6:2: error"
printf 'rules:\n  ruby-api-without-gvl:\n    severity: warning\n' >"$T/c11/repo/.nogvl-lint.yml"
printf 'inherit: true\n' >.nogvl-lint.yml
run .
check 11 "inherit: true below the work tree's root still inherits from it" has "$OUT" "ext.c:6:2: warning"

# ---- 12. audit-gems: names become Markdown and HTML data
if command -v python3 >/dev/null 2>&1; then
	mkdir -p "$T/c12" && cd "$T/c12" || exit 1
	gem='x<b>y[z](evil)'
	mkdir -p "$gem/ext"
	evil=$(printf 'a`b\n# Injected heading\n<img src=x onerror=alert(1)>[link](javascript:evil)`.c')
	write_bad_ext "$gem/ext/$evil"
	python3 "$SRC/scripts/audit-gems" --nogvl-lint "$BIN" --cache "$T/c12/cache" --out "$T/c12/report" \
		"$T/c12/$gem" >"$OUT" 2>"$ERR"
	check 12 "summary.md written" test -s report/summary.md
	check 12 "summary.md: the finding is listed" has report/summary.md "ruby-api-without-gvl"
	check 12 "summary.md: a newline in a file name starts no block" hasnt report/summary.md "^# Injected heading"
	# outside code spans (where Markdown is literal), no HTML and no link from names
	sed 's/`[^`]*`//g' report/summary.md >report/outside-code.md
	check 12 "summary.md: no raw HTML from names" hasnt report/outside-code.md "\(^\|[^\\]\)<img\|\(^\|[^\\]\)<b>"
	check 12 "summary.md: no link from names" hasnt report/outside-code.md "[^\\]](javascript:evil)\|[^\\]](evil)"
	check 12 "index.html: names escaped" hasnt report/index.html "<b>y"
else
	echo "# (python3 not installed: case 12 skipped)"
fi

# ---- 13. a crafted cache entry does not hide findings: the entry of a clean
# version of the file, stored under the name of the bad version's key
mkdir -p "$T/c13/.git" && cd "$T/c13" || exit 1
write_good_ext ext.c
run --cache cache ext.c
mv cache/*.facts clean.entry
write_bad_ext ext.c
run --cache cache ext.c
check 13 "the first run reports" has "$OUT" "ext.c:6:2: error"
for e in cache/*.facts; do cp clean.entry "$e"; done
run -v --cache cache ext.c
check 13 "a planted entry is not used: the finding stays" has "$OUT" "ext.c:6:2: error"
check 13 "the file was parsed again" has "$ERR" "cache .*: 0 reused, 1 parsed"

# ---- 14. -x ir in a database (libclang crashed in the flag check)
mkdir -p "$T/c14/.git" && cd "$T/c14" || exit 1
write_bad_ext ext.c
compdb '"-x"' '"ir"'
run --no-progress -v -p .
check 14 "-x ir: analysed as C" has "$OUT" "ext.c:6:2: error"
check 14 "-x ir: dropped and said" has "$ERR" "dropped flag -x ir (only -x c, c++"
# (under ASan, LeakSanitizer's own tracer crashes at the exit of this
# in-process run, "LeakSanitizer has encountered a fatal error", not a leak:
# leak checking is off for this one command there)
if [ "$ASAN" = 1 ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" run --no-progress --tu-timeout 0 -p .
else
	run --no-progress --tu-timeout 0 -p .
fi
check 14 "-x ir, --tu-timeout 0: no crash" is "$rc" 1

# ---- 15. nothing analysable: JSON and SARIF are still documents
mkdir -p "$T/c15/.git" && cd "$T/c15" || exit 1
printf 'x\000y' >bin.c
run --no-progress --format json .
check 15 "--format json: exit 2" is "$rc" 2
check 15 "--format json: stdout is a JSON document" isjson "$OUT"
check 15 "--format json: the file not analysed in it" is "$(jq .summary.files_failed "$OUT")" 1
run --no-progress --format sarif -o out.sarif .
check 15 "-o FILE: written" isjson out.sarif
check 15 "SARIF: executionSuccessful false" is "$(jq '.runs[0].invocations[0].executionSuccessful' out.sarif)" false
check 15 "SARIF: a notification for the file" has out.sarif "bin.c could not be analysed"

# ---- 16-20. --fix
mkdir -p "$T/c16/.git/x" "$T/c16/ext" && cd "$T/c16" || exit 1
write_candidate ext/f.c
write_bad_ext ext/other.c
# 16: a temporary file a killed --fix left next to an analysed file
printf 'half\n' >ext/.other.c.nogvl-lint.Ab3dE9
run --fix ext
check 16 "a stale temporary next to an analysed file is removed at the start" test ! -e ext/.other.c.nogvl-lint.Ab3dE9
if [ "${NOGVL_BUILT_WITH_TEST_HOOKS:-1}" = 1 ]; then
	write_candidate ext/f.c
	NOGVL_LINT_FIX_RENAME_DELAY_MS=3000 "$BIN" --fix ext >"$OUT" 2>"$ERR" &
	pid=$!
	n=0
	while ! grep -q "before renaming the temporary file" "$ERR" 2>/dev/null && [ $n -lt 300 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	kill -TERM $pid
	wait $pid
	check 16 "SIGTERM between writing and renaming leaves no temporary" is "$(find ext -name '.*nogvl-lint*' | wc -l | tr -d ' ')" 0
	check 16 "... and the file as it was" hasnt ext/f.c "RB_NOGVL_OFFLOAD_SAFE);"
fi
# 17: CRLF line ends stay
write_candidate ext/f.c
sed 's/$/\r/' ext/f.c >ext/f.tmp && mv ext/f.tmp ext/f.c
run --fix ext
check 17 "CRLF: fixed" has ext/f.c "RB_NOGVL_OFFLOAD_SAFE)"
check 17 "CRLF: no line ends without CR" is "$(grep -c "$(printf '[^\r]$')" ext/f.c)" 0
# 18: a read-only file is refused
write_candidate ext/f.c
chmod 0444 ext/f.c
run --fix ext
check 18 "0444: not rewritten" hasnt ext/f.c "RB_NOGVL_OFFLOAD_SAFE);"
check 18 "0444: said" has "$ERR" "read-only; not fixing it"
check 18 "0444: exit 2" is "$rc" 2
chmod 0644 ext/f.c
# 19: SIGTERM and SIGINT do not leave the PCH directory in $TMPDIR
for sig in TERM INT; do
	mkdir -p "$T/c19-$sig/.git" "$T/c19-$sig/tmp" && cd "$T/c19-$sig" || exit 1
	write_bad_ext a.c
	write_bad_ext b.c
	mkfifo fifo.h
	printf '#include <ruby.h>\n#define F "fifo.h"\n#include F\nint v;\n' >c.c
	# (a background job of a script starts with SIGINT ignored: perl restores it)
	TMPDIR=$T/c19-$sig/tmp perl -e '$SIG{INT} = "DEFAULT"; exec @ARGV' "$BIN" --no-config -j2 --tu-timeout 60 . \
		>"$OUT" 2>"$ERR" &
	pid=$!
	n=0
	while [ -z "$(ls tmp)" ] && [ $n -lt 200 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	check 19 "SIG$sig: a PCH directory was made" test -n "$(ls tmp)"
	sleep 1
	kill -$sig $pid
	wait $pid
	check 19 "SIG$sig: nothing left in \$TMPDIR" is "$(ls tmp | tr '\n' ' ')" ""
	# the parser process stuck on fifo.h dies with nogvl-lint, not left behind
	left=""
	for n in 1 2 3 4 5 6 7 8 9 10; do
		left=""
		for p in $(pgrep -f -- --internal-parse-worker); do
			case $(readlink "/proc/$p/cwd" 2>/dev/null) in "$T/c19-$sig"*) left="$left $p" ;; esac
		done
		[ -z "$left" ] && break
		sleep 0.2
	done
	check 19 "SIG$sig: no parser process left behind" is "$left" ""
	for p in $left; do kill -9 "$p" 2>/dev/null; done
done
# 20: paths longer than PATH_MAX are named, not skipped without a word
mkdir -p "$T/c20/.git" && cd "$T/c20" || exit 1
write_bad_ext ext.c
# (the shell's cd fails past PATH_MAX: perl goes down by relative names)
perl -e '$d = "d" x 200; for (1 .. 22) { mkdir $d or die; chdir $d or die } open(F, ">deep.c") or die; print F "int deep;\n"'

run --fix .
check 20 "a path over PATH_MAX is named with the reason" has "$ERR" "File name too long; not scanned"

echo "$((ncheck - nfail)) of $ncheck checks passed"
[ "$nfail" -eq 0 ] || exit 1
exit 0
