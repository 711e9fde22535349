# common.sh: the one helper library of the CLI tests. A test is
# `sh tests/cli/NAME.sh BIN SRC` (BIN: the built nogvl-lint, SRC: the source
# tree); it exits 0 on success, 1 on failure (saying what went wrong) and 77
# when a tool it needs is missing. Sourced, not run.
#
# Every test gets a fresh temporary directory $T (removed at exit), and
# `run ARGS...` runs nogvl-lint with stdout in $OUT ($T/out.txt), stderr in
# $ERR ($T/err.txt) and the exit status in $rc. Two ways to check:
#   - stop at the first failure: fail MESSAGE, expect_rc, expect_out,
#     expect_err, expect_no_out, expect_no_err, expect_one_line_error;
#   - a checklist that runs every check and reports each: `checklist` first
#     (needs jq; makes $T a project root with an empty .git and the current
#     directory; run then writes out.txt and err.txt in the current
#     directory), then check DESCRIPTION COMMAND... with the predicates is,
#     has, hasnt, isjson, and finish at the end.
# Time limits: scale_time SECONDS is SECONDS times NOGVL_TEST_TIME_SCALE
# (default 1; set it on a slow or busy machine, or under the sanitizers).
set -u
BIN=${1:?usage: sh test.sh path/to/nogvl-lint source-dir}
SRC=${2:?usage: sh test.sh path/to/nogvl-lint source-dir}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
case $SRC in /*) ;; *) SRC=$(cd "$SRC" && pwd) ;; esac
TESTDIR=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/nogvl-cli.XXXXXX")
T=$(cd "$T" && pwd -P)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
OUT=$T/out.txt
ERR=$T/err.txt
fails=0
checks=0

show_output() {
	if [ -f "$OUT" ]; then echo "--- stdout:"; head -c 4000 "$OUT"; fi
	if [ -f "$ERR" ]; then echo "--- stderr:"; head -c 4000 "$ERR"; fi
}

fail() {
	echo "FAIL: $*"
	show_output
	exit 1
}

# need TOOL: skip the test (77) when TOOL is not installed
need() {
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "SKIP: $1 is not installed (scripts/setup --test-tools installs it)"
	exit 77
}

# scale_time SECONDS: a time limit, times NOGVL_TEST_TIME_SCALE (a number,
# possibly fractional; 1 when unset)
scale_time() {
	awk -v s="$1" -v k="${NOGVL_TEST_TIME_SCALE:-1}" 'BEGIN { v = s * k; if (v < 1) v = 1; printf "%d\n", v + 0.5 }'
}

# run ARGS...: runs nogvl-lint; sets $rc, stdout in $OUT, stderr in $ERR.
run() {
	rc=0
	"$BIN" "$@" >"$OUT" 2>"$ERR" || rc=$?
}

expect_rc() { # expect_rc N what
	[ "$rc" = "$1" ] || fail "$2: exit status $rc, expected $1"
}

# expect_out / expect_err PATTERN what: a line matches the (basic) regex.
expect_out() { grep -q -e "$1" "$OUT" || fail "$2: no line of stdout matches '$1'"; }
expect_err() { grep -q -e "$1" "$ERR" || fail "$2: no line of stderr matches '$1'"; }
expect_no_out() { ! grep -q -e "$1" "$OUT" || fail "$2: stdout has '$1'"; }
expect_no_err() { ! grep -q -e "$1" "$ERR" || fail "$2: stderr has '$1'"; }

# The error is exactly one line on stderr and nothing on stdout.
expect_one_line_error() {
	n=$(wc -l <"$ERR")
	[ "$n" -eq 1 ] || fail "$1: $n lines on stderr, expected one"
	[ ! -s "$OUT" ] || fail "$1: stdout is not empty"
	grep -q '^nogvl-lint: error: ' "$ERR" || fail "$1: stderr does not start with 'nogvl-lint: error: '"
}

# --- checklists ---
checklist() {
	need jq
	mkdir "$T/.git"
	cd "$T" || exit 1
	OUT=out.txt
	ERR=err.txt
}
ok() { checks=$((checks + 1)); printf 'ok - %s\n' "$1"; }
# check DESCRIPTION COMMAND...: passes when COMMAND succeeds
check() {
	d=$1
	shift
	checks=$((checks + 1))
	if "$@"; then
		printf 'ok - %s\n' "$d"
	else
		fails=$((fails + 1))
		printf 'FAIL - %s\n' "$d"
		show_output
	fi
}
is() { [ "$1" = "$2" ] || { echo "  got '$1', want '$2'"; return 1; }; }
has() { grep -q -- "$2" "$1" || { echo "  '$2' not in $1"; return 1; }; }
isjson() { jq -e . "$1" >/dev/null || { echo "  $1 is not JSON"; return 1; }; }
hasnt() { ! grep -q -- "$2" "$1" || { echo "  '$2' unexpectedly in $1"; return 1; }; }
finish() {
	if [ "$fails" -ne 0 ]; then
		echo "$fails of $checks checks failed"
		exit 1
	fi
	echo "all $checks checks passed"
	exit 0
}

# A small extension source: callback that raises without the GVL (an error).
write_bad_ext() { # write_bad_ext FILE
	cat >"$1" <<'EOC'
#include <ruby.h>
#include <ruby/thread.h>

static void *cb(void *p)
{
	rb_raise(rb_eRuntimeError, "no");
	return p;
}

VALUE bad_run(VALUE self)
{
	rb_thread_call_without_gvl(cb, NULL, NULL, NULL);
	return self;
}
EOC
}

# The same shape, done right: nothing to report.
write_good_ext() { # write_good_ext FILE
	cat >"$1" <<'EOC'
#include <ruby.h>
#include <ruby/thread.h>
#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif
struct args { long n; long sum; };
static void *cb(void *p)
{
	struct args *a = p;
	for (long i = 0; i < a->n; i++) a->sum += i;
	return NULL;
}
VALUE good_run(VALUE self, VALUE n)
{
	struct args a = {NUM2LONG(n), 0};
	rb_nogvl(cb, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	return LONG2NUM(a.sum);
}
EOC
}

# A small extension with three findings: value-access-without-gvl on line 11,
# ruby-api-without-gvl from a macro expansion on line 13 (macro defined on
# line 4), ruby-api-without-gvl on line 20.
write_ext() {
	cat >"${1:-ext.c}" <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>

#define RAISE_EMPTY() rb_raise(rb_eArgError, "empty")

struct job { VALUE str; long n; };

static void *cb_a(void *p)
{
	struct job *j = p;
	j->n = RSTRING_LEN(j->str);
	if (!j->n)
		RAISE_EMPTY();
	return NULL;
}

static void *cb_b(void *p)
{
	(void)p;
	rb_raise(rb_eArgError, "b");
	return NULL;
}

static VALUE m(VALUE self, VALUE s)
{
	struct job j = {s, 0};
	rb_thread_call_without_gvl(cb_a, &j, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(cb_b, &j, RUBY_UBF_IO, NULL);
	return Qnil;
}

void Init_ext(void) { rb_define_method(rb_cObject, "m", m, 1); }
CEOF
}

# same_without_pch DIR: the results (JSON findings, sites, parse failures) and
# the --dump-facts of DIR are the same with the shared Ruby-header preamble
# and with --no-pch (one parser); the facts stay in $T/facts-on.txt and
# $T/facts-off.txt for more checks.
same_without_pch() {
	run --jobs 1 --format json --fail-level none "$1"
	jq -S '[.findings, .sites, .parse_failures]' "$OUT" >"$T/on.json" || fail "no JSON"
	run --no-pch --jobs 1 --format json --fail-level none "$1"
	jq -S '[.findings, .sites, .parse_failures]' "$OUT" >"$T/off.json" || fail "no JSON with --no-pch"
	cmp -s "$T/on.json" "$T/off.json" || { diff "$T/on.json" "$T/off.json" | head -30; fail "results differ with the preamble"; }
	"$BIN" --jobs 1 --dump-facts "$1" >"$T/facts-on.txt" 2>/dev/null
	"$BIN" --jobs 1 --no-pch --dump-facts "$1" >"$T/facts-off.txt" 2>/dev/null
	[ -s "$T/facts-on.txt" ] || fail "no facts"
	cmp -s "$T/facts-on.txt" "$T/facts-off.txt" || { diff "$T/facts-on.txt" "$T/facts-off.txt" | head -30; fail "facts differ with the preamble"; }
}
