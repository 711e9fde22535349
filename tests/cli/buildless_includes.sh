# Issue 14: buildless sees what mkmf's build sees, and says when it cannot.
# Small gems written here: a header in a subdirectory of the extconf.rb
# directory (with a gem-own string.h that must not shadow <string.h>),
# $INCFLAGS, a pkg_config module from a test .pc file via PKG_CONFIG_PATH,
# a header found by the header search, an ambiguous and an unresolvable
# header (exit 3, --allow-incomplete, allow_incomplete:), a Rust extension
# (exit 3, its spellings listed), a pkg-config that hangs or prints garbage,
# a symlink loop, and -p DIR FILE / named files narrowing the report only.
. "$(dirname "$0")/lib/common.sh"
checklist

# the callback reads a Ruby string without the GVL through a helper in the
# gem's header: value-access-without-gvl, reported only if the header is read
cb_source() { # $1: the include line of the helper header
	cat <<CEOF
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>
$1

struct arg { VALUE s; long n; char buf[8]; };

static void *work(void *p)
{
	struct arg *a = p;
	memset(a->buf, 0, sizeof(a->buf));
	a->n = helper_len(a->s);
	return NULL;
}

VALUE go(VALUE self, VALUE s)
{
	struct arg a = {s, 0, {0}};
	rb_thread_call_without_gvl(work, &a, RUBY_UBF_IO, NULL);
	return LONG2NUM(a.n);
}
CEOF
}
helper_header() {
	cat <<'CEOF'
#include <ruby.h>
static inline long helper_len(VALUE s) { return RSTRING_LEN(s); }
CEOF
}

# 1. the zstds layout: sources in ext/sub/, `#include "mine/helper.h"` from
# the extconf.rb directory, and the gem's own string.h beside the sources
mkdir -p g1/ext/mine g1/ext/sub
printf 'require "mkmf"\ncreate_makefile("g1")\n' >g1/ext/extconf.rb
helper_header >g1/ext/mine/helper.h
cb_source '#include "mine/helper.h"' >g1/ext/sub/a.c
printf '#error "the gem'"'"'s own string.h shadowed <string.h>"\n' >g1/ext/sub/string.h
run --format json -o g1.json g1/ext
check "header in a subdirectory of the extconf.rb directory: exit 1" is "$rc" 1
check "... no parse error" is "$(jq '.summary.files_with_errors' g1.json)" 0
check "... the finding through the header" is "$(jq '[.findings[] | select(.rule == "value-access-without-gvl")] | length' g1.json)" 1
check "... nothing missing" is "$(jq '.summary.missing_headers | length' g1.json)" 0

# 2. $INCFLAGS with $(srcdir), and directories outside the gem ignored
mkdir -p g2/ext/vendor/x
cat >g2/ext/extconf.rb <<'EOR'
require "mkmf"
$INCFLAGS << " -I$(srcdir)/vendor/x"
$INCFLAGS << " -I/"
$CPPFLAGS << " -I/etc"
create_makefile("g2")
EOR
helper_header >g2/ext/vendor/x/xhelper.h
cb_source '#include <xhelper.h>' >g2/ext/a.c
run -v --format json -o g2.json g2/ext
check "\$INCFLAGS: exit 1" is "$rc" 1
check "... no parse error" is "$(jq '.summary.files_with_errors' g2.json)" 0
check "... -v says where the directory came from" has err.txt 'vendor/x added (\$INCFLAGS)'
check "... -I/ ignored with a warning" has err.txt 'include directory / (from \$INCFLAGS) is the root directory: ignored'
check "... -I/etc ignored with a warning" has err.txt '/etc (from \$CPPFLAGS) is outside the gem'

# 3. pkg_config("nogvltest") through a test .pc file on PKG_CONFIG_PATH
if command -v pkg-config >/dev/null 2>&1; then
	mkdir -p pc sysinc/nogvltest g3/ext
	helper_header >sysinc/nogvltest/pchelper.h
	cat >pc/nogvltest.pc <<EOP
includedir=$T/sysinc/nogvltest
Name: nogvltest
Description: test module
Version: 1.0
Cflags: -I\${includedir}
EOP
	printf 'require "mkmf"\npkg_config("nogvltest")\ncreate_makefile("g3")\n' >g3/ext/extconf.rb
	: >g3/g3.gemspec # the gem is g3/: sysinc/ is outside it, as a system directory is
	cb_source '#include <pchelper.h>' >g3/ext/a.c
	PKG_CONFIG_PATH=$T/pc run -v --format json -o g3.json g3/ext
	# (the helper is in a library header, outside the project: no finding there)
	check "pkg_config module from PKG_CONFIG_PATH: exit 0" is "$rc" 0
	check "... no parse error" is "$(jq '.summary.files_with_errors' g3.json)" 0
	check "... nothing missing" is "$(jq '.summary.files_missing_headers' g3.json)" 0
	check "... -v names pkg-config" has err.txt 'sysinc/nogvltest added (pkg-config nogvltest'
	# without the .pc file the header is not found: exit 3, named
	run --format json -o g3b.json g3/ext
	check "... without it: exit 3" is "$rc" 3
	check "... the header is named" is "$(jq -r '.summary.missing_headers[0]' g3b.json)" pchelper.h

	# 3b. (stop 22) the module extconf.rb chooses from candidate lists, its
	# version in a helper, its -D flags, and an if/elsif header chain: read
	# as a real `ruby extconf.rb` here would (our own rmagick-like pattern)
	mkdir -p sysinc/oldlib/old g4/ext
	helper_header >sysinc/oldlib/old/core.h
	cat >pc/nogvlold-6.pc <<EOP
includedir=$T/sysinc/oldlib
Name: nogvlold-6
Description: test module, version 6
Version: 6.9.11
Cflags: -I\${includedir} -fopenmp -DNOGVL_QDEPTH=16
EOP
	cat >g4/ext/extconf.rb <<'EOR'
require "mkmf"
require "pkg-config"
OLD = %w[nogvlold-6.big nogvlold-6]
NEW = %w[nogvlold-7]
$pkg = (NEW + OLD).find { |m| PKGConfig.exist?(m) }
$ver = PKGConfig.modversion($pkg)
$CPPFLAGS += " " + PKGConfig.cflags($pkg)
if have_header("old7/core.h")
  $defs << "-DPICKED_SEVEN"
elsif have_header("old/core.h")
  $defs << "-DPICKED_OLD"
end
$defs << "-DNOGVL_SEVEN=1" if at_least?("7.0.0")
def at_least?(v)
  Gem::Version.new($ver) >= Gem::Version.new(v)
end
create_makefile("g4")
EOR
	: >g4/g4.gemspec
	cb_source '#if NOGVL_QDEPTH != 16 || !defined(PICKED_OLD) || defined(PICKED_SEVEN)
#error "not what a build here gets"
#endif
#ifdef NOGVL_SEVEN
#include <old7/core.h>
#else
#include <old/core.h>
#endif' >g4/ext/a.c
	PKG_CONFIG_PATH=$T/pc run -v --format json -o g4.json g4/ext
	check "candidate module, version helper, -D flags: exit 0" is "$rc" 0
	check "... no parse error" is "$(jq '.summary.files_with_errors' g4.json)" 0
	check "... -v names the module chosen" has err.txt 'pkg-config module nogvlold-6 (version 6.9.11) chosen'
	check "... -v names the -D flag" has err.txt '-DNOGVL_QDEPTH=16 added (pkg-config nogvlold-6'
	# without pkg-config's answers the reader takes the conditions as true
	run --format json -o g4b.json g4/ext
	check "... without the .pc files: exit 3" is "$rc" 3
else
	echo "skip: pkg-config not installed"
fi

# a pkg-config that hangs, then one that prints garbage: bounded, ignored
mkdir -p bin
printf '#!/bin/sh\nsleep 60\n' >bin/pkg-config
chmod +x bin/pkg-config
start=$(date +%s)
PATH=$T/bin:$PATH run -v g3/ext
took=$(($(date +%s) - start))
check "a hanging pkg-config is stopped (exit 3, ${took}s)" is "$rc" 3
check "... within its time limit" test "$took" -lt 30
check "... said with -v" has err.txt 'pkg-config nogvltest: pkg-config timed out; skipped'
printf '#!/bin/sh\necho "-I\\"unterminated; rm -rf / -Inot/absolute -I/nonexistent/dir"\n' >bin/pkg-config
PATH=$T/bin:$PATH run -v g3/ext
check "a pkg-config printing garbage: exit 3" is "$rc" 3
check "... ignored with a -v line" has err.txt 'pkg-config nogvltest: pkg-config printed text that is not a list of flags'

# a module with no .pc file where pkg-config looks is not asked about (its
# answer is known: no such module); one with a .pc file is
mkdir -p fakepc g5/ext
: >g5/g5.gemspec # the gem is g5/: bin/ is outside it
: >fakepc/nogvlfake.pc
cat >bin/pkg-config <<SEOF
#!/bin/sh
echo "\$*" >>"$T/pkglog"
case "\$*" in
"--variable pc_path pkg-config") echo "$T/fakepc:/nonexistent/pc" ;;
"--cflags-only-I nogvlfake") echo "-I$T/sysinc" ;;
*) exit 1 ;;
esac
SEOF
chmod +x bin/pkg-config
printf 'require "mkmf"\npkg_config("nogvlfake")\npkg_config("nogvl_absent")\nhave_library("nogvlnolib")\ncreate_makefile("g5")\n' >g5/ext/extconf.rb
cb_source '' >g5/ext/a.c
PATH=$T/bin:$PATH PKG_CONFIG_LIBDIR= run -v g5/ext
check "PKG_CONFIG_LIBDIR set: every module asked" has pkglog '--cflags-only-I nogvl_absent'
rm -f pkglog
PATH=$T/bin:$PATH run -v g5/ext
check "a module with a .pc file is asked" has pkglog '--cflags-only-I nogvlfake'
check "... one without is not" hasnt pkglog 'nogvl_absent'
check "... nor a have_library candidate without one" hasnt pkglog 'nogvlnolib'
check "... and said as pkg-config would" has err.txt 'pkg-config nogvl_absent: no pkg-config module nogvl_absent; skipped'

# the gem's own bin/pkg-config never runs, even first on PATH
mkdir -p g3/bin
printf '#!/bin/sh\ntouch "%s/MARKER"\necho -I/tmp\n' "$T" >g3/bin/pkg-config
chmod +x g3/bin/pkg-config
PATH=$T/g3/bin:$PATH run -v g3/ext
check "a pkg-config inside the gem is not run" test ! -f "$T/MARKER"

# 4. a header found by the header search in the gem's tree; an ambiguous
# one is not guessed; an unresolvable one gives exit 3 and is named
mkdir -p g4/ext/third/include/deep g4/ext/amb1/amb g4/ext/amb2/amb
printf 'require "mkmf"\ncreate_makefile("g4")\n' >g4/ext/extconf.rb
helper_header >g4/ext/third/include/deep/thing.h
cb_source '#include "deep/thing.h"' >g4/ext/a.c
run -v --format json -o g4.json g4/ext
check "header search in the gem: exit 1" is "$rc" 1
check "... no parse error" is "$(jq '.summary.files_with_errors' g4.json)" 0
check "... -v says where" has err.txt "third/include added: 'deep/thing.h' is there (header search)"
printf '#define AMB 1\n' >g4/ext/amb1/amb/amb.h
cp g4/ext/amb1/amb/amb.h g4/ext/amb2/amb/amb.h
cat >g4/ext/b.c <<'CEOF'
#include <ruby.h>
#include "amb/amb.h"
#include "nowhere/missing_header.h"
int b_value(void) { return AMB + missing_fn(); }
CEOF
run -v --format json -o g4b.json g4/ext
check "ambiguous and missing headers beside a finding: exit 1 wins" is "$rc" 1
check "... ambiguous not guessed" has err.txt "'amb/amb.h' is in 2 directories"
check "... both named in JSON" is "$(jq -c '.summary.missing_headers' g4b.json)" '["amb/amb.h","nowhere/missing_header.h"]'
check "... and in the summary, with the hint" has err.txt "missing headers 'amb/amb.h', 'nowhere/missing_header.h'"
check "... hint" has err.txt "hint: install the library's -dev package, add -I DIR, or use -p with a compile database"
rm g4/ext/a.c
run g4/ext
check "only a file with missing headers: never exit 0 (3)" is "$rc" 3
run --allow-incomplete g4/ext
check "--allow-incomplete: exit 0" is "$rc" 0
check "... with a warning" has out.txt "the analysis is incomplete"
printf 'allow_incomplete: true\n' >g4/.nogvl-lint.yml
run g4/ext
check "allow_incomplete: true in .nogvl-lint.yml: exit 0" is "$rc" 0
rm g4/.nogvl-lint.yml

# a file that releases the GVL and loses it to a missing header: exit 3
mkdir -p g5/ext
printf 'require "mkmf"\ncreate_makefile("g5")\n' >g5/ext/extconf.rb
cat >g5/ext/wrap.h <<'CEOF'
#include <ruby/thread.h>
#define RUN_NOGVL(f, d) rb_thread_call_without_gvl((f), (d), RUBY_UBF_IO, NULL)
CEOF
cat >g5/ext/a.c <<'CEOF'
#include <ruby.h>
#include "wrap.h"
#include <nogvl_test_absent_lib.h>
static void *work(void *p) { return lib_work(p); }
VALUE go(VALUE self) { lib_t x = LIB_INIT; RUN_NOGVL(work, &x); return Qnil; }
CEOF
run -v g5/ext
check "a release spelled behind a macro, a header missing: exit 3" is "$rc" 3
check "... the -v counter sees the macro body" has err.txt 'release-API calls spelled in active code: [1-9][0-9]* (1 in project headers and macro bodies)'
# without recovery stubs the parse loses the call: named as such
run -v --no-recover --format json -o g5.json g5/ext
check "the site lost to the missing header: exit 3" is "$rc" 3
check "... counted" is "$(jq '.summary.files_incomplete' g5.json)" 1
check "... said" has err.txt 'a.c: releases the GVL (spelled here or in a project header it includes), but no release site was analysed'

# a header of the same name that makes the file parse worse (another
# library's node.h) is not used
mkdir -p g9/ext/elsewhere
: >g9/g9.gemspec
printf 'require "mkmf"\ncreate_makefile("g9")\n' >g9/ext/extconf.rb
printf '#include <nogvl_a.h>\n#include <nogvl_b.h>\nnamespace x { template <class T> int y; }\n' >g9/ext/elsewhere/cfg.h
printf '#include <ruby.h>\n#include "cfg.h"\nint f(void) { return CFG_VALUE; }\n' >g9/ext/a.c
run -v --format json -o g9.json g9/ext
check "a worse header of the same name: exit 3" is "$rc" 3
check "... not used" has err.txt 'do not make it parse better'
check "... cfg.h still named" is "$(jq -c '.summary.missing_headers' g9.json)" '["cfg.h"]'

# 5. a Rust extension: listed as not analysed, spellings counted, exit 3
mkdir -p g6/ext/dk/src
printf '[package]\nname = "dk"\nversion = "0.1.0"\n' >g6/ext/dk/Cargo.toml
printf 'require "mkmf"\nrequire "rb_sys/mkmf"\ncreate_rust_makefile("dk/dk")\n' >g6/ext/dk/extconf.rb
cat >g6/ext/dk/src/lib.rs <<'REOF'
use rb_sys::*;
// rb_nogvl in a comment is not counted
unsafe fn run(p: *mut c_void) {
    rb_thread_call_without_gvl(Some(work), p, None, std::ptr::null_mut());
    let flags = RB_NOGVL_OFFLOAD_SAFE;
    let s = "rb_nogvl in a string";
}
REOF
run -v --format json -o g6.json g6/ext
check "Rust extension: exit 3" is "$rc" 3
check "... listed in JSON with its spellings" is "$(jq -c '[.not_analysed[] | .file, (.spellings[] | .api, .line)]' g6.json)" \
	'["g6/ext/dk/src/lib.rs","rb_thread_call_without_gvl",4,"RB_NOGVL_OFFLOAD_SAFE",5]'
check "... -v lists file and line" has err.txt 'lib.rs:4: rb_thread_call_without_gvl spelled in a source that was not analysed'
check "... the summary names it" has err.txt 'not analysed: 1 source file'

# 6. a symlink loop in the gem's tree: the header search ends
ln -s .. g4/ext/third/loop
run g4/ext
check "symlink loop: the run ends (exit 3)" is "$rc" 3
# a bound on the files searched: hit, and said
mkdir -p g4/ext/many
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do : >"g4/ext/many/f$i.h"; done
NOGVL_LINT_HEADER_SEARCH_MAX_FILES=5 run -v g4/ext
check "a bounded header search: the run ends (exit 3)" is "$rc" 3
check "... the bound is said" has err.txt 'the search for missing headers was bounded'

# 6b. the cache: a header found by the search is in the key (the second
# run reuses the first parse and the re-parsed file, results identical)
mkdir -p g8/ext/third/include/deep
: >g8/g8.gemspec # its own gem (the test directory holds others)
printf 'require "mkmf"\ncreate_makefile("g8")\n' >g8/ext/extconf.rb
helper_header >g8/ext/third/include/deep/thing.h
cb_source '#include "deep/thing.h"' >g8/ext/a.c
run --cache cache8 g8/ext
cp out.txt first.txt
run -v --cache cache8 g8/ext
check "cache: same result with the header found by the search" is "$(grep -v '^ ' out.txt)" "$(grep -v '^ ' first.txt)"
check "... exit 1" is "$rc" 1
# both parses are cached (the one that missed the header, stamped, and the
# one with -I): nothing is parsed again
check "... both parses are reused" has err.txt 'cache .*: 2 reused, 0 parsed'


# 7. named files narrow the report, not the analysis (the callback in b.c
# is passed to rb_thread_call_without_gvl in a.c)
mkdir -p g7/ext
printf 'require "mkmf"\ncreate_makefile("g7")\n' >g7/ext/extconf.rb
cat >g7/ext/a.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>
void *b_work(void *p);
VALUE go(VALUE self, VALUE s) { rb_thread_call_without_gvl(b_work, &s, RUBY_UBF_IO, NULL); return s; }
CEOF
cat >g7/ext/b.c <<'CEOF'
#include <ruby.h>
void *b_work(void *p) { VALUE *s = p; return (void *)RSTRING_LEN(*s); }
CEOF
run g7/ext/b.c
check "named file: the finding in it, found through the other file (exit 1)" is "$rc" 1
check "... reported in b.c" has out.txt 'b.c:2:.*value-access-without-gvl'
run g7/ext/a.c
check "named file without a finding: exit 0" is "$rc" 0
cd g7/ext || exit 1
cat >compile_commands.json <<EOJ
[{"directory": "$T/g7/ext", "file": "a.c", "arguments": ["cc", "-c", "a.c"]},
 {"directory": "$T/g7/ext", "file": "b.c", "arguments": ["cc", "-c", "b.c"]}]
EOJ
"$BIN" -p . >../../all.txt 2>/dev/null
"$BIN" -p . b.c >../../b.txt 2>/dev/null
rc=$?
cd "$T" || exit 1
check "-p . b.c: exit 1" is "$rc" 1
check "-p . b.c: exactly the findings of b.c from -p ." is "$(grep 'b.c:[0-9]*:[0-9]*: ' b.txt)" "$(grep 'b.c:[0-9]*:[0-9]*: ' all.txt)"
check "... not empty" has b.txt 'value-access-without-gvl'

finish
