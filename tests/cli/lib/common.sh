# common.sh: helpers for the CLI tests. A test is `sh tests/cli/NAME.sh BIN SRC`
# (BIN: the built nogvl-lint, SRC: the source tree); it exits 0 on success
# and prints what went wrong otherwise. Sourced, not run.
set -u
BIN=${1:?usage: sh test.sh path/to/nogvl-lint source-dir}
SRC=${2:?usage: sh test.sh path/to/nogvl-lint source-dir}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
case $SRC in /*) ;; *) SRC=$(cd "$SRC" && pwd) ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/nogvl-cli.XXXXXX")
T=$(cd "$T" && pwd -P)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
OUT=$T/.out
ERR=$T/.err

fail() {
	echo "FAIL: $*"
	if [ -f "$OUT" ]; then echo "--- stdout:"; cat "$OUT"; fi
	if [ -f "$ERR" ]; then echo "--- stderr:"; cat "$ERR"; fi
	exit 1
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
