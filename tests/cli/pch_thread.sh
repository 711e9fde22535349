# The shared Ruby-header preamble (src/frontend/pch.h) holds ruby.h alone, not
# ruby/thread.h: a file that does not include ruby/thread.h must see neither
# its declarations nor its RB_NOGVL_* macros, with the preamble as without.
# flags.c tests RB_NOGVL_UBF_ASYNC_SAFE (its #else branch is the one compiled,
# and rb_thread_call_without_gvl has no declaration: origin 0 in the facts);
# plus.cpp calls rb_thread_call_without_gvl undeclared, an error in C++. At
# a5db7ac the preamble included ruby/thread.h: flags.c's site was rb_nogvl
# and plus.cpp parsed without errors.
. "$(dirname "$0")/lib/common.sh"
command -v jq >/dev/null 2>&1 || { echo "jq is not installed"; exit 77; }

G=$T/gem
mkdir -p "$G/ext/t"
cat >"$G/ext/t/flags.c" <<'C'
#include <ruby.h>
static void *w(void *p) { return p; }
VALUE t_run(VALUE self)
{
#ifdef RB_NOGVL_UBF_ASYNC_SAFE
	return (VALUE)rb_nogvl(w, NULL, RUBY_UBF_IO, NULL, RB_NOGVL_UBF_ASYNC_SAFE);
#else
	return (VALUE)rb_thread_call_without_gvl(w, NULL, RUBY_UBF_IO, NULL);
#endif
}
C
cat >"$G/ext/t/plus.cpp" <<'C'
#include <ruby.h>
static void *pw(void *p) { return p; }
extern "C" VALUE p_run(VALUE self)
{
	rb_thread_call_without_gvl(pw, NULL, RUBY_UBF_IO, NULL);
	return self;
}
C
cat >"$G/ext/t/other.c" <<'C'
#include <ruby.h>
#include <ruby/thread.h>
static void *ow(void *p) { return p; }
VALUE o_run(VALUE self) { rb_thread_call_without_gvl(ow, NULL, RUBY_UBF_IO, NULL); return self; }
C
cat >"$G/ext/t/more.cpp" <<'C'
#include <ruby.h>
#include <ruby/thread.h>
static void *mw(void *p) { return p; }
extern "C" VALUE m_run(VALUE self) { rb_thread_call_without_gvl(mw, NULL, RUBY_UBF_IO, NULL); return self; }
C

run -v --jobs 1 --format json --fail-level none "$G"
expect_rc 0 "with the preamble"
grep -q "precompiled Ruby headers: 2 built, 4 files used them, 0 fell back, 0 not eligible" "$ERR" ||
	fail "expected every file to use a preamble (one for C, one for C++)"
[ "$(jq -r '[.sites[] | select(.file | endswith("/flags.c")) | .api] | join(",")' "$OUT")" = rb_thread_call_without_gvl ] ||
	fail "flags.c: RB_NOGVL_UBF_ASYNC_SAFE is defined without ruby/thread.h"
jq -e '[.parse_failures[] | select(.file | endswith("/plus.cpp")) | .diagnostics[].message
	| select(test("undeclared identifier .rb_thread_call_without_gvl"))] | length == 1' "$OUT" >/dev/null ||
	fail "plus.cpp: rb_thread_call_without_gvl is declared without ruby/thread.h"
same_without_pch "$G"
grep -q "call rg=0 rb_thread_call_without_gvl origin=0 nargs=4 .*|w|" "$T/facts-on.txt" ||
	fail "flags.c: rb_thread_call_without_gvl has a declaration without ruby/thread.h"
grep -q "call rg=0 rb_thread_call_without_gvl origin=2 nargs=4 .*|ow|" "$T/facts-on.txt" ||
	fail "other.c: rb_thread_call_without_gvl is not Ruby's"
exit 0
