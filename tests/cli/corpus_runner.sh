# The corpus runner: exact match of (file, line, slug) against the
# expect: comments, columns and severities, expect-msg:, expect-note:,
# directives, known failures, multi-file cases, and --bless.
. "$(dirname "$0")/lib/common.sh"

RUNNER=$(dirname "$BIN")/tests/corpus_runner
[ -x "$RUNNER" ] || fail "no corpus runner at $RUNNER"

mkdir -p "$T/group/gem"
cp "$SRC/corpus/examples/digest_ext/"* "$T/group/gem/"
cat >"$T/group/single.c" <<'EOC'
/* nogvl-lint-test: --enable debug-release-site */
#include <ruby.h>
#include <ruby/thread.h>
static void *cb(void *p)
{
	rb_gc(); /* expect: ruby-api-without-gvl */
	return p;
}
VALUE single_run(VALUE self)
{
	rb_thread_call_without_gvl(cb, NULL, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'cb' (direct) */
	return self;
}
EOC
cp -r "$T/group" "$T/orig"

rc=0
"$RUNNER" "$T/group" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 0 "exact match"
expect_out '^ok   .*/group/gem ([0-9]* expectations)$' "multi-file case"
expect_out '^ok   .*/group/single.c (3 expectations)$' "single-file case"
expect_out '^2 passed, 0 failed$' "totals"

# a missing expectation, an unexpected finding, a wrong message: each fails
sed -i 's|rb_gc(); /\* expect: ruby-api-without-gvl \*/|rb_gc();|' "$T/group/single.c"
sed -i 's|return p;|return p; /* expect: removed-api */|' "$T/group/single.c"
sed -i "s|expect-msg: callback 'cb' (direct)|expect-msg: callback 'other'|" "$T/group/single.c"
rc=0
"$RUNNER" "$T/group" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 1 "mismatches"
expect_out '^FAIL .*/group/single.c$' "the case fails"
expect_out '^  missing: single.c:7: removed-api$' "missing expectation"
expect_out '^  unexpected: single.c:6:2: ruby-api-without-gvl (error): ' "unexpected finding"
expect_out "^  missing message: single.c:11: ...callback 'other'...$" "wrong message"
expect_out '^1 passed, 1 failed$' "totals"

# --bless rewrites expect: comments (and keeps expect-msg: ones) for review
rc=0
"$RUNNER" --bless "$T/group/single.c" >"$OUT" 2>"$ERR" || rc=$?
expect_out '^  blessed$' "blessed"
grep -q 'rb_gc(); /\* expect: ruby-api-without-gvl \*/$' "$T/group/single.c" || fail "--bless did not add the expectation"
grep -q 'return p;$' "$T/group/single.c" || fail "--bless did not remove the stale expectation"
grep -q "/\* expect: debug-release-site \*/ /\* expect-msg: callback 'other' \*/" "$T/group/single.c" ||
	fail "--bless lost the expect-msg comment"
sed -i "s|expect-msg: callback 'other'|expect-msg: callback 'cb' (direct)|" "$T/group/single.c"
cmp -s "$T/group/single.c" "$T/orig/single.c" || { diff "$T/orig/single.c" "$T/group/single.c"; fail "--bless result differs"; }
rc=0
"$RUNNER" "$T/group" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 0 "after --bless"

# columns, severities and notes: a wrong one fails, the right one passes
cat >"$T/exact.c" <<'EOC'
#include <ruby.h>
#include <ruby/thread.h>
static void helper(void)
{
	rb_gc(); /* expect: ruby-api-without-gvl@2:error */
}
static void *cb(void *p)
{
	helper(); /* expect-note: 'helper' called here from 'cb' */
	return p;
}
VALUE exact_run(VALUE self)
{
	rb_thread_call_without_gvl(cb, NULL, NULL, NULL); /* expect-note: 'cb' passed to rb_thread_call_without_gvl here */
	return self;
}
EOC
rc=0
"$RUNNER" "$T/exact.c" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 0 "column, severity and notes match"
expect_out '^ok   .*/exact.c (3 expectations)$' "three expectations"
cp "$T/exact.c" "$T/exact.orig"
for bad in 's|@2:error|@3:error|' 's|@2:error|@2:warning|' "s|'helper' called here|'other' called here|"; do
	sed "$bad" "$T/exact.orig" >"$T/exact.c"
	rc=0
	"$RUNNER" "$T/exact.c" >"$OUT" 2>"$ERR" || rc=$?
	expect_rc 1 "a wrong column, severity or note fails ($bad)"
done
sed 's|@2:error|@3:error|' "$T/exact.orig" >"$T/exact.c"
rc=0
"$RUNNER" "$T/exact.c" >"$OUT" 2>"$ERR" || rc=$?
expect_out '^  missing: exact.c:5: ruby-api-without-gvl@3:error$' "the expectation as written"
sed "s|'helper' called here|'other' called here|" "$T/exact.orig" >"$T/exact.c"
rc=0
"$RUNNER" "$T/exact.c" >"$OUT" 2>"$ERR" || rc=$?
expect_out "^  missing note: exact.c:9: ...'other' called here from 'cb'...$" "a missing note"
# --bless keeps a column and severity that still match
cp "$T/exact.orig" "$T/exact.c"
sed -i 's|return p;|return p; /* expect: removed-api */|' "$T/exact.c"
rc=0
"$RUNNER" --bless "$T/exact.c" >"$OUT" 2>"$ERR" || rc=$?
grep -q 'rb_gc(); /\* expect: ruby-api-without-gvl@2:error \*/$' "$T/exact.c" || fail "--bless lost the column and severity"
cmp -s "$T/exact.c" "$T/exact.orig" || { diff "$T/exact.orig" "$T/exact.c"; fail "--bless result differs"; }

# a known failure does not fail the group; the same case passing does
sed 's|^#include <ruby.h>$|/* nogvl-lint-test-xfail: a test of the marker */\n#include <ruby.h>|; s|@2:error|@3:error|' \
	"$T/exact.orig" >"$T/exact.c"
rc=0
"$RUNNER" "$T/exact.c" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 0 "known failure"
expect_out '^xfail .*/exact.c (known to fail)$' "reported as xfail"
sed 's|^#include <ruby.h>$|/* nogvl-lint-test-xfail: a test of the marker */\n#include <ruby.h>|' "$T/exact.orig" >"$T/exact.c"
rc=0
"$RUNNER" "$T/exact.c" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 1 "known failure that passes"
expect_out '^XPASS .*/exact.c: passes but is marked' "reported as XPASS"

# no arguments: usage
rc=0
"$RUNNER" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 2 "usage"
exit 0
