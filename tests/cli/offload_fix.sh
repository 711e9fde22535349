# --fix-dry-run, --fix and --explain-callback on a copy of the example gem:
# the offload candidate becomes rb_nogvl(..., RB_NOGVL_OFFLOAD_SAFE) with the
# fallback define; the fixed file still parses; a second run no longer has the
# candidate and has no finding the first run did not have.
. "$(dirname "$0")/lib/common.sh"

mkdir -p "$T/gem/ext"
cp "$SRC"/corpus/examples/digest_ext/* "$T/gem/ext/"
cd "$T/gem" || exit 1
chmod 0640 ext/digest_ext.c

findings() { # findings FILE: "path:line:col: severity: ... [slug]" lines, sorted
	grep -e ': \(error\|warning\|note\): .*\]$' "$1" | sort
}

run ext
cp "$OUT" "$T/before.txt"
grep -q "\[offload-candidate\]$" "$T/before.txt" || fail "the example has no offload candidate"
expect_out "fix available: rewrite the call to rb_nogvl(..., RB_NOGVL_OFFLOAD_SAFE)" "fix described"

# the checklist of the candidate
run --explain-callback stretch_nogvl ext
expect_rc 0 "--explain-callback"
expect_out "^  verdict: candidate$" "verdict"
expect_out "^  \[pass         \] inputs$" "inputs gate"
[ "$(grep -c '^  \[pass' "$OUT")" = 12 ] || fail "not every gate passes"
run --explain-callback update_nogvl ext
expect_out "^  verdict: not offload-safe$" "unsafe callback's verdict"
expect_out "^  \[fail         \] inputs$" "the failed gate"
expect_out "a pointer into string 'copy'" "the evidence"
run --explain-callback no_such_callback ext
expect_rc 2 "unknown callback: a usage error"
expect_err "no release site has a callback named 'no_such_callback'" "unknown callback named"
[ "$(wc -l <"$ERR")" -eq 1 ] || fail "unknown callback: not one line"

# the patch, as a diff
run --fix-dry-run ext
expect_rc 1 "--fix-dry-run: errors and warnings remain"
expect_err "\[value-access-without-gvl\]$" "--fix-dry-run: remaining findings on stderr"
expect_err "^2 files analysed .*, 5 findings (2 errors, 3 warnings, 0 notes)$" "--fix-dry-run: summary of what remains"
grep -q "offload-candidate" "$ERR" && fail "--fix-dry-run: the finding the patch fixes is listed as remaining"
grep -q "value-access-without-gvl" "$OUT" && fail "--fix-dry-run: findings mixed into the diff"
run --fix-dry-run --fail-level none ext
expect_rc 0 "--fix-dry-run --fail-level none"
run --fix-dry-run ext
expect_out '^--- a/ext/digest_ext.c$' "diff header"
expect_out '^-	rb_nogvl(stretch_nogvl, &a, NULL, NULL, 0);' "old call"
expect_out '^+	rb_nogvl(stretch_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);' "new call"
expect_out '^+#ifndef RB_NOGVL_OFFLOAD_SAFE$' "fallback define"
cmp -s ext/digest_ext.c "$SRC/corpus/examples/digest_ext/digest_ext.c" || fail "--fix-dry-run changed the file"
cp "$OUT" "$T/dry.diff"

# the patch, applied: the diff applies to the original, and --fix produces the same file
cp -r ext "$T/patched"
(cd "$T/patched" && patch -s -p2 <"$T/dry.diff") || fail "the dry-run diff does not apply"
run --fix ext
expect_rc 1 "--fix: errors and warnings remain"
expect_err "fixed ext/digest_ext.c" "fix reported"
expect_out "^ext/digest_ext.c:48:17: error: .*\[value-access-without-gvl\]$" "--fix: remaining findings on stdout"
expect_out "^2 files analysed .*, 5 findings (2 errors, 3 warnings, 0 notes)$" "--fix: summary of what remains"
grep -q "offload-candidate" "$OUT" && fail "--fix: the fixed finding is listed as remaining"
cmp -s ext/digest_ext.c "$T/patched/digest_ext.c" || { diff "$T/patched/digest_ext.c" ext/digest_ext.c; fail "--fix differs from the diff"; }
[ "$(stat -c %a ext/digest_ext.c)" = 640 ] || fail "--fix lost the file mode"
ls -a ext | grep -q 'nogvl-lint' && fail "a temporary file was left behind"

# the fixed gem: parses cleanly, the candidate is gone, nothing new
run ext
grep -q "\[offload-candidate\]$" "$OUT" && fail "the candidate is still reported after --fix"
expect_out '^2 files analysed (0 with parse errors)' "fixed file parses"
findings "$T/before.txt" | grep -v '\[offload-candidate\]$' | sed 's/:[0-9]*:[0-9]*:/:/' >"$T/b"
findings "$OUT" | sed 's/:[0-9]*:[0-9]*:/:/' >"$T/a"
cmp -s "$T/b" "$T/a" || { diff "$T/b" "$T/a"; fail "findings changed beyond the candidate"; }
run --explain-callback stretch_nogvl ext
expect_out "^  verdict: already flagged$" "verdict after the fix"

# ruby/thread.h included under #ifdef (bcrypt-ruby's layout): the fallback
# goes after that #endif, so a Ruby 3.4 header that defines the flag comes
# first; the result builds on Ruby 3.1 headers and, warning-free, on a 3.4-style
# ruby/thread.h
mkdir -p "$T/cond"
cat >"$T/cond/cond.c" <<'EOC'
#include <ruby.h>
#include <string.h>

#ifdef HAVE_RUBY_THREAD_H
#include <ruby/thread.h>
#endif

struct sum_args { const char *p; long n; long out; };

static void *sum_nogvl(void *ptr)
{
	struct sum_args *a = ptr;
	for (long i = 0; i < a->n; i++)
		a->out += a->p[i];
	return NULL;
}

VALUE sum(VALUE self, VALUE str)
{
	VALUE s = rb_str_new_frozen(str);
	struct sum_args a = {RSTRING_PTR(s), RSTRING_LEN(s), 0};
	rb_thread_call_without_gvl(sum_nogvl, &a, NULL, NULL);
	RB_GC_GUARD(s);
	return LONG2NUM(a.out);
}
EOC
cp "$T/cond/cond.c" "$T/cond.orig.c"
run -DHAVE_RUBY_THREAD_H=1 "$T/cond"
expect_out "extconf.rb needs have_func(\"rb_nogvl\", \"ruby/thread.h\")" "the extconf.rb hint"
run -DHAVE_RUBY_THREAD_H=1 --fix "$T/cond"
expect_rc 0 "--fix on the conditional include"
grep -n 'RB_NOGVL_OFFLOAD_SAFE 0' "$T/cond/cond.c" | grep -q '^8:' || { cat "$T/cond/cond.c"; fail "the fallback is not right after the #endif"; }
# nothing requires Ruby 2.6 (no HAVE_RB_NOGVL guard, no gemspec): the call goes
# through a macro that is rb_nogvl under HAVE_RB_NOGVL and the original call
# under #else
grep -q '^	NOGVL_OFFLOAD_WITHOUT_GVL(sum_nogvl, &a, NULL, NULL);$' "$T/cond/cond.c" || { cat "$T/cond/cond.c"; fail "the call is not rewritten to the macro"; }
grep -q '^#else /\* Ruby < 2.6 has no rb_nogvl: the original calls \*/$' "$T/cond/cond.c" || fail "no #else with the original call"
grep -q '^#define NOGVL_OFFLOAD_WITHOUT_GVL(f, d, u, ud) rb_thread_call_without_gvl((f), (d), (u), (ud))$' "$T/cond/cond.c" || fail "the original call is not kept"
# a gemspec next to the extension that requires Ruby 2.7: plain rb_nogvl
mkdir -p "$T/spec/ext"
cp "$T/cond.orig.c" "$T/spec/ext/cond.c"
printf 'Gem::Specification.new do |s|\n  s.name = "x"\n  s.required_ruby_version = ">= 2.7.0"\nend\n' >"$T/spec/x.gemspec"
run -DHAVE_RUBY_THREAD_H=1 --fix "$T/spec/ext"
grep -q '^	rb_nogvl(sum_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);$' "$T/spec/ext/cond.c" || { cat "$T/spec/ext/cond.c"; fail "with required_ruby_version >= 2.7 the call is not plain rb_nogvl"; }
grep -q 'HAVE_RB_NOGVL' "$T/spec/ext/cond.c" && fail "with required_ruby_version >= 2.7 the patch still adds the HAVE_RB_NOGVL fallback"
if command -v cc >/dev/null 2>&1; then
	rubyhdr=$(ruby -e 'print RbConfig::CONFIG["rubyhdrdir"]')
	rubyarch=$(ruby -e 'print RbConfig::CONFIG["rubyarchhdrdir"]')
	cc -fsyntax-only -Wall -Werror -I"$rubyarch" -I"$rubyhdr" -DHAVE_RUBY_THREAD_H "$T/cond/cond.c" ||
		fail "the fixed file does not build against the installed Ruby headers"
	# with and without HAVE_RB_NOGVL (Ruby < 2.6 builds take the #else branch)
	cc -fsyntax-only -Wall -Werror -I"$rubyarch" -I"$rubyhdr" -DHAVE_RUBY_THREAD_H -DHAVE_RB_NOGVL "$T/cond/cond.c" ||
		fail "the fixed file does not build with HAVE_RB_NOGVL"
	cc -E -P -I"$rubyarch" -I"$rubyhdr" -DHAVE_RUBY_THREAD_H -DHAVE_RB_NOGVL "$T/cond/cond.c" | tr -s " \n" " " | grep -q 'rb_nogvl((sum_nogvl), (&a), (((void \*)0)), (((void \*)0)), 0)' ||
		fail "with HAVE_RB_NOGVL the call is not rb_nogvl with the flag"
	cc -E -P -I"$rubyarch" -I"$rubyhdr" -DHAVE_RUBY_THREAD_H "$T/cond/cond.c" | tr -s " \n" " " | grep -q 'rb_thread_call_without_gvl((sum_nogvl), (&a)' ||
		fail "without HAVE_RB_NOGVL the call is not the original one"
	cc -fsyntax-only -Wall -Werror -I"$rubyarch" -I"$rubyhdr" -DHAVE_RUBY_THREAD_H "$T/spec/ext/cond.c" ||
		fail "the gemspec case does not build"
	mkdir -p "$T/ruby34/ruby"
	if ! grep -q RB_NOGVL_OFFLOAD_SAFE "$rubyhdr/ruby/thread.h"; then
		sed 's|^#define RB_NOGVL_UBF_ASYNC_SAFE.*|&\n#define RB_NOGVL_OFFLOAD_SAFE (0x4)|' "$rubyhdr/ruby/thread.h" >"$T/ruby34/ruby/thread.h"
		cc -fsyntax-only -Wall -Werror -I"$T/ruby34" -I"$rubyarch" -I"$rubyhdr" -DHAVE_RUBY_THREAD_H "$T/cond/cond.c" ||
			fail "the fixed file does not build warning-free against a 3.4-style ruby/thread.h"
	fi
fi
exit 0
