# The Ruby gem (label: gem): `gem build nogvl-lint.gemspec`, `gem install
# --local` into a temporary GEM_HOME (this builds the C tool from the sources
# in the gem), `nogvl-lint` on the gem's bin path, and a small gem of ours
# whose Rakefile uses NogvlLint::RakeTask: `rake nogvl` fails on a finding
# and passes once it is fixed; `rake nogvl:fix` applies the offload patch.
# Installing without a C compiler or without libclang's headers stops with
# the package to install.
. "$(dirname "$0")/lib/common.sh"
for t in gem rake ruby cmake; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP: no $t"; exit 77; }
done
ver=$(sed -n 's/^project(nogvl-lint VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
grep -q "VERSION = \"$ver\"" "$SRC/gem/lib/nogvl_lint/version.rb" || fail "gem/lib/nogvl_lint/version.rb is not $ver"
(cd "$SRC" && gem build nogvl-lint.gemspec --output "$T/nogvl-lint.gem") >"$T/build.log" 2>&1 || { cat "$T/build.log"; fail "gem build"; }

# bad input first (extconf.rb stops before building anything)
rc=0
GEM_HOME=$T/nocc CC=no-such-cc gem install --local --no-document "$T/nogvl-lint.gem" >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" != 0 ] || fail "installed without a C compiler"
cat "$OUT" "$ERR" | grep -q "nogvl-lint: a C compiler (no-such-cc) not found; install build-essential" || fail "no C compiler: message"
rc=0
GEM_HOME=$T/noclang NOGVL_LINT_LLVM_PREFIXES=$T/none gem install --local --no-document "$T/nogvl-lint.gem" >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" != 0 ] || fail "installed without libclang's headers"
cat "$OUT" "$ERR" | grep -q "libclang's headers (clang-c/Index.h, LLVM 14 or newer) not found; install libclang-dev" || fail "no libclang-dev: message"

unset GEM_PATH
export GEM_HOME="$T/gems"   # the default GEM_PATH adds the system's gems (Debian's rake)
gem install --local --no-document "$T/nogvl-lint.gem" >"$T/install.log" 2>&1 || { tail -n 40 "$T/install.log"; fail "gem install"; }
"$GEM_HOME/bin/nogvl-lint" --version >"$OUT" 2>"$ERR" || fail "gem bin: --version"
expect_out "^nogvl-lint $ver (libclang: " "gem bin: version"

# a gem of ours, with one finding (rb_raise without the GVL) and one offload candidate
mkdir -p "$T/mygem/ext/mygem"
cd "$T/mygem" || exit 1
mkdir .git
cat >ext/mygem/mygem.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct sum_args { const char *p; long n; long out; };

static void *sum_nogvl(void *ptr)
{
	struct sum_args *a = ptr;
	for (long i = 0; i < a->n; i++)
		a->out += a->p[i];
	if (a->out < 0)
		rb_raise(rb_eArgError, "negative");
	return NULL;
}

static VALUE sum(VALUE self, VALUE str)
{
	VALUE s = rb_str_new_frozen(str);
	struct sum_args a = {RSTRING_PTR(s), RSTRING_LEN(s), 0};
	rb_nogvl(sum_nogvl, &a, NULL, NULL, 0);
	RB_GC_GUARD(s);
	return LONG2NUM(a.out);
}

void Init_mygem(void) { rb_define_method(rb_cObject, "sum", sum, 1); }
CEOF
cat >Rakefile <<'REOF'
require "nogvl_lint/rake_task"

NogvlLint::RakeTask.new do |t|
  t.paths = ["ext"]
  t.options = ["--no-progress"]
end
REOF
rc=0
rake nogvl >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" != 0 ] || fail "rake nogvl passed with a finding"
expect_out "mygem.c:13:3: error: .*\[ruby-api-without-gvl\]$" "rake nogvl: the finding"
expect_err "nogvl-lint failed (exit status 1)" "rake nogvl: why it failed"
rake -T >"$T/tasks" 2>&1
grep -q "^rake nogvl  *# Check GVL releases" "$T/tasks" || fail "rake -T: nogvl"
grep -q "^rake nogvl:fix  *# Apply nogvl-lint's fixes" "$T/tasks" || fail "rake -T: nogvl:fix"

# fixed: the callback returns an error instead
sed -i 's/		rb_raise(rb_eArgError, "negative");/		a->out = -1;/' ext/mygem/mygem.c
rc=0
rake nogvl >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" = 0 ] || fail "rake nogvl failed once fixed (status $rc)"
expect_out "1 finding (0 errors, 0 warnings, 1 note)" "rake nogvl: only the candidate note remains"
# nogvl:fix applies the offload patch
rc=0
rake nogvl:fix >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" = 0 ] || fail "rake nogvl:fix (status $rc)"
grep -q 'rb_nogvl(sum_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);' ext/mygem/mygem.c || fail "nogvl:fix did not patch"
expect_out "0 findings" "nogvl:fix: nothing remains"
# fail_on_error = false: findings do not fail the task; a usage error still does
cat >Rakefile <<'REOF'
require "nogvl_lint/rake_task"
NogvlLint::RakeTask.new(:gvl) do |t|
  t.paths = ENV.fetch("P", "ext").split
  t.fail_on_error = false
end
REOF
sed -i 's/		a->out = -1;/		rb_raise(rb_eArgError, "negative");/' ext/mygem/mygem.c
rc=0
rake gvl >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" = 0 ] || fail "fail_on_error = false: failed"
expect_out "\[ruby-api-without-gvl\]$" "fail_on_error = false: still reports"
rc=0
P=no-such-dir rake gvl >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" != 0 ] || fail "usage error passed with fail_on_error = false"
echo ok
