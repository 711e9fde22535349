# The shared Ruby-header preamble (src/frontend/pch.h) is only a speed-up: with it and
# with --no-pch every file's facts, findings and release sites are the same.
# Also checks which files may use it: a file whose directory holds a header
# Ruby's headers include (time.h), a file that defines a macro Ruby's headers
# use before ruby.h, and one that tests a macro they define are parsed the
# ordinary way; a define they never mention and a platform #ifdef are fine.
. "$(dirname "$0")/lib/common.sh"
command -v jq >/dev/null 2>&1 || { echo "jq is not installed"; exit 77; }

G=$T/gem
mkdir -p "$G/ext/a" "$G/ext/shadow" "$G/ext/defines"
cat >"$G/ext/a/a.h" <<'C'
#ifndef A_H
#define A_H
#include <ruby.h>
#include <ruby/thread.h>
#endif
C
cat >"$G/ext/a/a.c" <<'C'
#include "a.h"
static void *work(void *p)
{
	VALUE s = (VALUE)p;
	return (void *)rb_str_new(RSTRING_PTR(s), 3); /* Ruby API without the GVL */
}
static VALUE run(VALUE self, VALUE s)
{
	return (VALUE)rb_thread_call_without_gvl(work, (void *)s, RUBY_UBF_IO, NULL);
}
void Init_a(void) { rb_define_method(rb_cObject, "run", run, 1); }
C
cat >"$G/ext/a/b.c" <<'C'
/* an angle-bracket project header first, then ruby.h */
#include <a.h>
static void *slow(void *p) { return StringValuePtr(*(VALUE *)p); }
VALUE b_run(VALUE self, VALUE s)
{
	return (VALUE)rb_thread_call_without_gvl(slow, &s, RUBY_UBF_IO, NULL);
}
C
# <time.h> from Ruby's headers finds this file through -I<dir>
cat >"$G/ext/shadow/time.h" <<'C'
#pragma once
#include <ruby.h>
#include <time.h>
C
cat >"$G/ext/shadow/c.c" <<'C'
#include "time.h"
#include <ruby/thread.h>
static void *tick(void *p) { struct timespec *t = p; clock_gettime(CLOCK_MONOTONIC, t); return NULL; }
VALUE c_run(VALUE self)
{
	struct timespec t;
	rb_thread_call_without_gvl(tick, &t, RUBY_UBF_IO, NULL);
	return rb_float_new((double)t.tv_sec);
}
C
cat >"$G/ext/defines/d.c" <<'C'
#define RUBY_EXPORT 1
#include <ruby.h>
#include <ruby/thread.h>
static void *dwork(void *p) { return (void *)rb_ary_new(); }
VALUE d_run(VALUE self) { return (VALUE)rb_thread_call_without_gvl(dwork, NULL, RUBY_UBF_IO, NULL); }
C

# a define nothing in Ruby's headers mentions, a platform conditional: fine
cat >"$G/ext/defines/e.c" <<'C'
#define MY_GEM_FAST 1
#ifdef _WIN32
#include <windows.h>
#endif
#include <ruby.h>
#include <ruby/thread.h>
static void *ework(void *p) { return (void *)rb_ary_new(); }
VALUE e_run(VALUE self) { return (VALUE)rb_thread_call_without_gvl(ework, NULL, RUBY_UBF_IO, NULL); }
C
# tests a macro of Ruby's headers before including them: not fine
cat >"$G/ext/defines/f.c" <<'C'
#if defined(RUBY_API_VERSION_MAJOR)
#error included twice
#endif
#include <ruby.h>
VALUE f_run(VALUE self) { return self; }
C

# one parser (each worker process has its own preambles)
run -v --jobs 1 --format json --fail-level none "$G"
expect_rc 0 "with the preamble"
grep -q "precompiled Ruby headers: 1 built, 3 files used them, 0 fell back, 3 not eligible" "$ERR" ||
	fail "expected a.c, b.c and e.c to use one preamble, c.c, d.c and f.c not to"
jq -S '[.findings, .sites, .parse_failures]' "$OUT" >"$T/on.json" || fail "no JSON"
[ "$(jq '.sites | length' "$OUT")" = 5 ] || fail "expected 5 release sites"
jq -e '[.findings[] | select(.rule == "ruby-api-without-gvl")] | length >= 2' "$OUT" >/dev/null ||
	fail "expected the Ruby API calls without the GVL to be found"

run --no-pch -v --jobs 1 --format json --fail-level none "$G"
expect_rc 0 "--no-pch"
grep -q "precompiled" "$ERR" && fail "--no-pch still used a preamble"
jq -S '[.findings, .sites, .parse_failures]' "$OUT" >"$T/off.json" || fail "no JSON with --no-pch"
cmp -s "$T/on.json" "$T/off.json" || { diff "$T/on.json" "$T/off.json" | head -30; fail "results differ with the preamble"; }

"$BIN" --dump-facts "$G" >"$T/facts-on.txt" 2>/dev/null
"$BIN" --no-pch --dump-facts "$G" >"$T/facts-off.txt" 2>/dev/null
[ -s "$T/facts-on.txt" ] || fail "no facts"
cmp -s "$T/facts-on.txt" "$T/facts-off.txt" || { diff "$T/facts-on.txt" "$T/facts-off.txt" | head -30; fail "facts differ with the preamble"; }

# the corpus, every group at once (one preamble per argument set)
"$BIN" --dump-facts "$SRC/corpus" >"$T/corpus-on.txt" 2>/dev/null
"$BIN" --no-pch --dump-facts "$SRC/corpus" >"$T/corpus-off.txt" 2>/dev/null
cmp -s "$T/corpus-on.txt" "$T/corpus-off.txt" || { diff "$T/corpus-on.txt" "$T/corpus-off.txt" | head -30; fail "corpus facts differ with the preamble"; }

# and parsed on threads in this process (--tu-timeout 0): the same again
"$BIN" --tu-timeout 0 --dump-facts "$G" >"$T/facts-threads.txt" 2>/dev/null
cmp -s "$T/facts-on.txt" "$T/facts-threads.txt" || { diff "$T/facts-on.txt" "$T/facts-threads.txt" | head -30; fail "facts differ on threads"; }
run -v --tu-timeout 0 --format json --fail-level none "$G"
grep -q "precompiled Ruby headers: 1 built, 3 files used them, 0 fell back, 3 not eligible" "$ERR" ||
	fail "threads: expected one preamble shared by a.c, b.c and e.c"
exit 0
