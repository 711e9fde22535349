# Files the gem's build makes from templates (ruby-oci8: apiwrap.c and
# apiwrap.h from apiwrap.c.tmpl and apiwrap.h.tmpl, written by a Ruby script
# the Makefile runs) cannot be read buildless. The run says which, from which
# template, and is incomplete (exit 3); the sources of other platforms that
# $objs leaves out (a list over several lines, an object named through a
# variable set per platform) are skipped.
. "$(dirname "$0")/lib/common.sh"
checklist

mkdir -p gem/ext/genx
: >gem/genx.gemspec
cat >gem/ext/genx/extconf.rb <<'EOR'
require "mkmf"
$objs = ["main.o",   # the entry point
         "gen.o",
         "util.o"]
case RUBY_PLATFORM
when /mingw|mswin/
  hook_src = "hook_win.c"
else
  hook_src = "hook_elf.c"
end
$objs << hook_src.sub(/\.c$/, '.o')
$objs.each { |o| puts o }
create_makefile("genx")
EOR
cat >gem/ext/genx/main.c <<'CEOF'
#include <ruby.h>
#include "gen.h"
void Init_genx(void) { genx_init(); }
CEOF
cat >gem/ext/genx/util.c <<'CEOF'
#include <ruby.h>
int genx_util(void) { return 1; }
CEOF
cat >gem/ext/genx/hook_elf.c <<'CEOF'
int genx_hook(void) { return 2; }
CEOF
cat >gem/ext/genx/hook_win.c <<'CEOF'
#include <windows.h>
int genx_hook(void) { return (int)GetCurrentProcessId(); }
CEOF
printf '/* <%%= name %%> */\nvoid genx_init(void);\n' >gem/ext/genx/gen.h.tmpl
printf '#include <ruby.h>\n/* <%%= body %%> */\n' >gem/ext/genx/gen.c.tmpl

run -v --format json -o out.json gem/ext
check "a generated header and source: exit 3" is "$rc" 3
check "... the header named with its template" is "$(jq -r '.summary.generated_files["gen.h"]' out.json)" "gem/ext/genx/gen.h.tmpl"
check "... the source too" is "$(jq -r '.summary.generated_files["gen.c"]' out.json)" "gem/ext/genx/gen.c.tmpl"
check "... the summary says what to do" has err.txt "not read: 'gen.c' is made by the gem's build (from gem/ext/genx/gen.c.tmpl); build the gem once"
check "... the other platform's hook is not in \$objs" has err.txt "hook_win.c: not in \$objs of gem/ext/genx/extconf.rb"
check "... this platform's hook is analysed (main, util, hook_elf)" is "$(jq -r '.summary.files' out.json)" 3
run --format html -o out.html gem/ext
check "... the HTML report names it with its template" has out.html "<code>gen.c</code>: not read, the gem's build makes it (from <span class=\"loc\">gem/ext/genx/gen.c.tmpl"
check "... windows.h is not among the missing headers" is "$(jq -r '.summary.missing_headers | join(",")' out.json)" "gen.h"

# control: the build made them; nothing is missing
printf 'void genx_init(void);\n' >gem/ext/genx/gen.h
printf '#include <ruby.h>\n#include "gen.h"\nvoid genx_init(void) {}\n' >gem/ext/genx/gen.c
run --format json -o ok.json gem/ext
check "generated files present: exit 0" is "$rc" 0
check "... none listed" is "$(jq -r '.summary.generated_files | length' ok.json)" 0

finish
