# --cache keeps the facts of a file that missed headers ('x.h' file not
# found), stamped with where those headers can be found: a warm run reuses
# them, and a header installed later (in the gem's tree, where the header
# search finds it, or beside the source, where the compiler finds it itself;
# or with -p, in a -I directory of the compile database) makes the entry a
# miss, so the run reads the header and reports what it shows. Results never
# differ from a run without the cache.
. "$(dirname "$0")/lib/common.sh"
cd "$T" || exit 1
need jq

count() { # "N reused, N parsed, N stored" of the last run
	sed -n "s/.*cache .*: \([0-9]*\) reused, \([0-9]*\) parsed, \([0-9]*\) stored.*/\1 \2 \3/p" "$ERR"
}

# the callback reads a Ruby string without the GVL through the missing
# header's helper: value-access-without-gvl only once the header is read
cb_source() { # $1: the header's name (each gem its own: the header search
	# may look in the other gems' directories too)
	cat <<CEOF
#include <ruby.h>
#include <ruby/thread.h>
#include "$1"

struct arg { VALUE s; long n; };

static void *work(void *p)
{
	struct arg *a = p;
	a->n = helper_len(a->s);
	return NULL;
}

VALUE go(VALUE self, VALUE s)
{
	struct arg a = {s, 0};
	rb_thread_call_without_gvl(work, &a, RUBY_UBF_IO, NULL);
	return LONG2NUM(a.n);
}
CEOF
}
helper_header() {
	printf '#include <ruby.h>\nstatic inline long helper_len(VALUE s) { return RSTRING_LEN(s); }\n'
}

# same_as_fresh NAME ARGS...: the cached run's stdout equals a run without cache
same_as_fresh() {
	what=$1
	shift
	cp "$OUT" "$T/cached.txt"
	crc=$rc
	run "$@"
	cmp -s "$OUT" "$T/cached.txt" || { diff "$T/cached.txt" "$OUT"; fail "$what: differs from a run without cache"; }
	[ "$rc" = "$crc" ] || fail "$what: exit status $crc, without cache $rc"
}

# 1. buildless: the header appears in a subdirectory of the gem (found by
# the header search)
mkdir -p g1/ext/inc
printf 'require "mkmf"\ncreate_makefile("g1")\n' >g1/ext/extconf.rb
cb_source helper.h >g1/ext/g1.c
run -v --cache "$T/c1" g1/ext
expect_rc 3 "g1 cold: incomplete (helper.h missing)"
expect_err "helper.h" "g1 cold: the missing header named"
[ "$(count)" = "0 1 1" ] || fail "g1 cold: '$(count)', expected '0 1 1' (an entry stored for a file that missed a header)"
same_as_fresh "g1 cold" g1/ext
run -v --cache "$T/c1" g1/ext
[ "$(count)" = "1 0 0" ] || fail "g1 warm: '$(count)', expected '1 0 0' (the file's facts reused)"
expect_rc 3 "g1 warm"
same_as_fresh "g1 warm" g1/ext
helper_header >g1/ext/inc/helper.h
run -v --cache "$T/c1" g1/ext
[ "$(count)" = "0 2 2" ] || fail "g1 header installed: '$(count)', expected '0 2 2' (the stale entry dropped, then the parse with -I)"
expect_rc 1 "g1 header installed"
expect_out "value-access-without-gvl" "g1 header installed: the finding the header shows"
same_as_fresh "g1 header installed" g1/ext
run -v --cache "$T/c1" g1/ext
[ "$(count)" = "2 0 0" ] || fail "g1 warm after: '$(count)', expected '2 0 0' (both parses cached: none twice)"
same_as_fresh "g1 warm after" g1/ext

# 2. buildless: the header appears beside the source (the compiler finds it)
mkdir -p g2/ext
printf 'require "mkmf"\ncreate_makefile("g2")\n' >g2/ext/extconf.rb
cb_source helper2.h >g2/ext/g2.c
run -v --cache "$T/c2" g2/ext
run -v --cache "$T/c2" g2/ext
[ "$(count)" = "1 0 0" ] || fail "g2 warm: '$(count)', expected '1 0 0'"
helper_header >g2/ext/helper2.h
run -v --cache "$T/c2" g2/ext
[ "$(count)" = "0 1 1" ] || fail "g2 header beside the source: '$(count)', expected '0 1 1'"
expect_rc 1 "g2 header beside the source"
expect_out "value-access-without-gvl" "g2 header beside the source: the finding"
same_as_fresh "g2 header beside the source" g2/ext

# 3. a compile database whose -I directory gets the header later (no
# header search: the parse's own directories count)
mkdir -p g3/src g3/include
cb_source helper3.h >g3/src/g3.c
RUBY_HDRS=$("$BIN" --dump-commands g2/ext 2>/dev/null | jq -r '.[0].arguments[] | select(startswith("-I/usr"))' | tr '\n' ' ')
[ -n "$RUBY_HDRS" ] || fail "no Ruby header directories from --dump-commands"
args=""
for a in $RUBY_HDRS -I"$T/g3/include"; do args="$args\"$a\", "; done
cat >g3/compile_commands.json <<EOF
[{"directory": "$T/g3", "file": "$T/g3/src/g3.c", "arguments": ["cc", $args "-c", "src/g3.c"]}]
EOF
run -v --fail-level none --cache "$T/c3" -p g3
[ "$(count)" = "0 1 1" ] || fail "g3 cold: '$(count)', expected '0 1 1'"
expect_no_out "value-access-without-gvl" "g3 cold: no finding without the header"
run -v --fail-level none --cache "$T/c3" -p g3
[ "$(count)" = "1 0 0" ] || fail "g3 warm: '$(count)', expected '1 0 0'"
helper_header >g3/include/helper3.h
run -v --fail-level none --cache "$T/c3" -p g3
[ "$(count)" = "0 1 1" ] || fail "g3 header in a -I directory: '$(count)', expected '0 1 1'"
expect_out "value-access-without-gvl" "g3 header in a -I directory: the finding"
same_as_fresh "g3 header in a -I directory" --fail-level none -p g3
exit 0
