# Nothing from the analysed tree is executed, and nothing can load code into
# the analyser: a real shared object whose constructor writes a marker file is
# offered in every way a compile database or the command line can name one
# (-Xclang -load, -fplugin=, -fpass-plugin=, -Wp,-load, -Xarch_* -fplugin=,
# in a response file, in a clang --config file); each is refused with one
# line and exit 2, and the marker never appears. The tree's extconf.rb,
# Makefile, configure and Rakefile would write the marker too if run; a
# "command" with $(...) and backticks would, if a shell saw it.
. "$(dirname "$0")/lib/common.sh"

command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler to build the test's shared object"; exit 77; }
M=$T/MARKER
cat >"$T/evil.c" <<EOC
#include <stdio.h>
__attribute__((constructor)) static void evil(void)
{
	FILE *f = fopen("$M", "a");
	if (f) { fputs("loaded\n", f); fclose(f); }
}
EOC
env -u LD_PRELOAD ASAN_OPTIONS= cc -shared -fPIC -o "$T/evil.so" "$T/evil.c" || fail "cannot build evil.so"
# the object works: loading it writes the marker (then the marker is reset)
if command -v python3 >/dev/null 2>&1; then
	env -u LD_PRELOAD python3 -c "import ctypes; ctypes.CDLL('$T/evil.so')" 2>/dev/null
	[ -f "$M" ] || fail "the test's shared object does not write its marker when loaded"
	rm -f "$M"
fi
no_marker() { [ ! -f "$M" ] || fail "$1: the analysed tree's code ran (marker written)"; }

mkdir -p "$T/gem/ext/g" && cd "$T/gem" || exit 1
mkdir .git
write_bad_ext ext/g/g.c
cat >ext/g/extconf.rb <<EOR
File.write("$M", "extconf.rb ran")
require 'mkmf'
have_func('rb_thread_call_without_gvl', 'ruby/thread.h')
create_makefile('g')
EOR
printf 'all:\n\ttouch %s\n' "$M" >ext/g/Makefile
printf '#!/bin/sh\ntouch %s\n' "$M" >ext/g/configure
chmod +x ext/g/configure
printf 'task(:default) { File.write("%s", "rake") }\n' "$M" >Rakefile

# buildless and with a clean database: the findings, and nothing ran
run .
expect_rc 1 "buildless over a tree with extconf.rb, Makefile, configure"
expect_out "ext/g/g.c:.*ruby-api-without-gvl" "the finding"
no_marker "buildless"
printf '[{"directory": "%s/ext/g", "file": "g.c", "command": "cc -DX=$(touch %s) -DY=`touch %s` -c g.c"}]\n' \
	"$T/gem" "$M" "$M" >compile_commands.json
run -p .
expect_rc 1 "a command with \$(...) and backticks"
no_marker "\$(...) and backticks in a command"

# every way of naming the plugin
printf -- '-Wp,-load,%s\n' "$T/evil.so" >ext/g/flags.rsp
printf -- '-fplugin=%s\n' "$T/evil.so" >"$T/evil.cfg"
for args in "\"-Xclang\", \"-load\", \"-Xclang\", \"$T/evil.so\"" \
	"\"-fplugin=$T/evil.so\"" "\"-fpass-plugin=$T/evil.so\"" "\"-Wp,-load,$T/evil.so\"" \
	"\"-Xarch_x86_64\", \"-fplugin=$T/evil.so\"" "\"@flags.rsp\"" "\"--config\", \"$T/evil.cfg\"" \
	"\"--config=$T/evil.cfg\""; do
	printf '[{"directory": "%s/ext/g", "file": "g.c", "arguments": ["cc", %s, "-c", "g.c"]}]\n' "$T/gem" "$args" \
		>compile_commands.json
	run -p .
	expect_rc 2 "compile db with $args"
	expect_one_line_error "compile db with $args"
	expect_err "^nogvl-lint: error: ./compile_commands.json: refusing compiler flag '" "$args refused"
	no_marker "compile db with $args"
done
expect_err "reads more compiler flags from a file" "--config explained"

# the same through the command line
for a in "-Xclang -load -Xclang $T/evil.so" "-fplugin=$T/evil.so" "-Wp,-load,$T/evil.so" "--config $T/evil.cfg" \
	"@ext/g/flags.rsp"; do
	set --
	for w in $a; do set -- "$@" --extra-arg "$w"; done
	run "$@" ext/g
	expect_rc 2 "--extra-arg $a"
	expect_one_line_error "--extra-arg $a"
	no_marker "--extra-arg $a"
done
expect_err "response files are not read from --extra-arg" "@file in --extra-arg explained"
exit 0
