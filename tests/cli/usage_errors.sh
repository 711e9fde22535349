# Usage and configuration errors: exit status 2 and one line on stderr.
. "$(dirname "$0")/lib/common.sh"

write_good_ext "$T/good.c"
mkdir "$T/empty" "$T/nosrc"
echo "nothing" >"$T/nosrc/README"
cd "$T" || exit 1

run --no-such-option good.c
expect_rc 2 "unknown long option"
expect_one_line_error "unknown long option"
expect_err "unknown option '--no-such-option'" "unknown long option named"

run -Z good.c
expect_rc 2 "unknown short option"
expect_one_line_error "unknown short option"

run
expect_rc 2 "no input"
expect_one_line_error "no input"
expect_err "no input" "no input said"

run missing.c
expect_rc 2 "missing path"
expect_one_line_error "missing path"
expect_err "missing.c: No such file or directory" "missing path named"

run good.c missing_dir/
expect_rc 2 "one of two paths missing"
expect_one_line_error "one of two paths missing"

run empty
expect_rc 2 "directory without sources"
expect_one_line_error "directory without sources"
expect_err "no C or C++ source files found" "no sources said"

run nosrc/README
expect_rc 2 "a file that is not C"
expect_err "README: not a C or C++ source file" "not C said"
expect_err "no C or C++ source files found" "nothing left"

run --jobs 0 good.c
expect_rc 2 "bad --jobs"
expect_one_line_error "bad --jobs"
run --fail-level fatal good.c
expect_rc 2 "bad --fail-level"
expect_one_line_error "bad --fail-level"
run --enable no-such-rule good.c
expect_rc 2 "unknown rule"
expect_one_line_error "unknown rule"
run --ruby-include /nonexistent/ruby good.c
expect_rc 2 "missing --ruby-include"
expect_one_line_error "missing --ruby-include"
expect_err "/nonexistent/ruby: no such directory" "missing --ruby-include named"
run --extra-arg=-fplugin=/tmp/evil.so good.c
expect_rc 2 "plugin in --extra-arg"
expect_one_line_error "plugin in --extra-arg"
expect_err "refusing compiler flag '-fplugin=/tmp/evil.so'" "plugin flag named"

# compile databases
printf '[{"directory": "%s", "file": "good.c",\n  "command": cc -c good.c}]\n' "$T" >bad.json
run --compile-commands bad.json
expect_rc 2 "compile db not JSON"
expect_one_line_error "compile db not JSON"
expect_err "bad.json: not valid JSON at line 2, column" "JSON error located"

echo '{"file": "good.c"}' >object.json
run --compile-commands object.json
expect_rc 2 "compile db not an array"
expect_one_line_error "compile db not an array"
expect_err "top level must be a JSON array" "not an array said"

run -p empty
expect_rc 2 "-p without a database"
expect_one_line_error "-p without a database"
expect_err "cannot read compile database empty/compile_commands.json" "missing database named"

for flag in '"-Xclang", "-load", "-Xclang", "/tmp/evil.so"' '"-fplugin=/tmp/evil.so"' '"-fpass-plugin=/tmp/evil.so"'; do
	printf '[{"directory": "%s", "file": "good.c", "arguments": ["cc", %s, "-c", "good.c"]}]\n' "$T" "$flag" \
		>compile_commands.json
	run -p .
	expect_rc 2 "plugin flag $flag"
	expect_one_line_error "plugin flag $flag"
	expect_err "refusing compiler flag '" "plugin flag $flag refused"
	expect_err "it loads code into the analyser" "plugin flag $flag explained"
done
expect_err "refusing compiler flag '-fpass-plugin=/tmp/evil.so'" "the flag is named"
printf '[{"directory": "%s", "file": "good.c", "arguments": ["cc", "-Xclang", "-load", "-Xclang", "x.so"]}]\n' "$T" \
	>compile_commands.json
run -p .
expect_err "refusing compiler flag '-Xclang -load'" "-Xclang -load named"

# entries lacking fields: warned about and skipped; nothing left is an error
printf '[{"directory": "%s", "command": "cc -c x.c"}, {"file": "y.c"}]\n' "$T" >compile_commands.json
run -p .
expect_rc 2 "no usable entries"
expect_err 'entry 0: no "file" string; skipped' "entry without file"
expect_err 'entry 1: neither "arguments" nor "command"; skipped' "entry without command"
expect_err "no C or C++ source files found" "nothing left"
exit 0
