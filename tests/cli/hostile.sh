# Hostile input: files and trees made to hurt a linter. Each case runs under
# a wall-clock limit and has its peak memory measured (tests/run_limited.c);
# each must finish (no timeout, no crash), exit 0/1/2 as the case says, say
# what went wrong in one line per problem (every stderr line is one of ours),
# and still report the finding of the ordinary file next to the hostile ones.
#
# Bounds: LIMIT_S seconds (times NOGVL_TEST_TIME_SCALE) and LIMIT_MB MiB per run. They are generous on
# purpose (a sanitizer build takes 2-3 times the time and memory of a
# release build): they catch hangs and runaway growth, not slowness. Measured
# on the release build: the 200,000-line file 1 s / 280 MiB, 20,000 compile
# database entries 26 s / 420 MiB (61 s / 1.1 GiB under ASan).
# NOGVL_HOSTILE_ENTRIES sets the number of compile database entries (20000).
#
# Inputs are generated here, in the test's temporary directory.
. "$(dirname "$0")/lib/common.sh"

LIMIT_S=$(scale_time "${NOGVL_HOSTILE_LIMIT_S:-240}")
LIMIT_MB=${NOGVL_HOSTILE_LIMIT_MB:-3072}
ENTRIES=${NOGVL_HOSTILE_ENTRIES:-20000}
RUN_LIMITED=$(dirname "$BIN")/tests/run_limited
[ -x "$RUN_LIMITED" ] || fail "run_limited is not built next to the binary ($RUN_LIMITED)"

# hostile CASE WANT_RC ARGS...: runs the binary on ARGS in the current
# directory under the limits, then checks the common promises
hostile() {
	case_name=$1
	want=$2
	shift 2
	rc=0
	"$RUN_LIMITED" "$LIMIT_S" "$T/report" -- "$BIN" --no-config --no-progress "$@" >"$OUT" 2>"$ERR" || rc=$?
	read -r status rss secs <"$T/report"
	echo "# $case_name: exit $status, $((rss / 1024)) MiB, $secs s"
	[ "$status" != 124 ] || fail "$case_name: still running after $LIMIT_S s"
	[ "$status" -lt 128 ] || fail "$case_name: killed by signal $((status - 128))"
	[ "$status" = "$want" ] || fail "$case_name: exit status $status, expected $want"
	[ $((rss / 1024)) -le "$LIMIT_MB" ] || fail "$case_name: used $((rss / 1024)) MiB (bound $LIMIT_MB MiB)"
	bad=$(grep -v '^nogvl-lint: \|^[0-9]* files\{0,1\} analysed (' "$ERR" | head -3)
	[ -z "$bad" ] || fail "$case_name: stderr lines that are not ours: $bad"
}
# the ordinary file's finding is there
good_finding() { expect_out "$1:6:2: error: .*\[ruby-api-without-gvl\]" "$2: the other file's finding"; }

# ---- a 200,000-line file
mkdir -p "$T/big/.git" && cd "$T/big" || exit 1
write_bad_ext good.c
awk 'BEGIN {
	print "#include <ruby.h>\n#include <ruby/thread.h>"
	for (i = 0; i < 49999; i++)
		printf "static int f%d(int x)\n{\n\treturn x + %d;\n}\n", i, i
	print "static void *cb_big(void *p) { rb_raise(rb_eArgError, \"big\"); return p; }"
	print "VALUE big_run(VALUE s) { rb_thread_call_without_gvl(cb_big, 0, RUBY_UBF_IO, 0); return s; }"
}' >huge.c
[ "$(wc -l <huge.c)" -ge 200000 ] || fail "the generator made too short a file"
hostile "200,000 lines" 1 .
good_finding good.c "200,000 lines"
expect_out "^huge.c:199999:32: error: .rb_raise" "the finding at the end of the huge file"

# ---- deep nesting: chains libclang accepts but a recursive walk would not
# survive (20,000 levels), macros expanding 20,000 deep, includes nested
# past clang's limit, a file that includes itself
mkdir -p "$T/deep/.git" && cd "$T/deep" || exit 1
write_bad_ext good.c
for kind in plus ternary cases; do
	awk -v kind=$kind 'BEGIN {
		printf "#include <ruby.h>\n#include <ruby/thread.h>\nstatic void *cb_%s(void *p)\n{\n\tlong x = (long)p;\n", kind
		if (kind == "plus") { printf "\tx = x"; for (i = 0; i < 20000; i++) printf " + x"; printf ";\n" }
		if (kind == "ternary") { printf "\tx = "; for (i = 0; i < 20000; i++) printf "x == %d ? %d : ", i, i; printf "0;\n" }
		if (kind == "cases") { printf "\tswitch (x) {\n"; for (i = 0; i < 20000; i++) printf "\tcase %d:\n", i; printf "\t\tx++;\n\t}\n" }
		printf "\trb_raise(rb_eArgError, \"deep\");\n\treturn (void *)x;\n}\n"
		printf "VALUE %s_run(VALUE s) { rb_thread_call_without_gvl(cb_%s, 0, RUBY_UBF_IO, 0); return s; }\n", kind, kind
	}' >"$kind.c"
done
awk 'BEGIN { print "#define M0 1"; for (i = 1; i < 20000; i++) printf "#define M%d (M%d + 1)\n", i, i - 1
	print "int macro_v = M19999;" }' >macros.c
i=0
while [ $i -lt 300 ]; do
	printf '#include "h%d.h"\n' $((i + 1)) >"h$i.h"
	i=$((i + 1))
done
printf 'int last;\n' >h300.h
printf '#include "h0.h"\nint includes_v;\n' >includes.c
printf '#include "self.c"\nint self_v;\n' >self.c
# a callback that could take the offload flag, but with an expression too
# deep to see whole: it must not be offered as a candidate
awk 'BEGIN { printf "#include <ruby.h>\n#include <ruby/thread.h>\nstruct args { long n; long sum; };\n"
	printf "static void *deep_nogvl(void *p)\n{\n\tstruct args *a = p;\n\tfor (long i = 0; i < a->n; i++)\n\t\ta->sum += i"
	for (k = 0; k < 3000; k++) printf " + i"
	printf ";\n\treturn NULL;\n}\nVALUE deep_run(VALUE self, VALUE n)\n{\n\tstruct args a = {NUM2LONG(n), 0};\n"
	printf "\trb_nogvl(deep_nogvl, &a, NULL, NULL, 0);\n\treturn LONG2NUM(a.sum);\n}\n" }' >deep_candidate.c
hostile "deep nesting" 1 --jobs 1 .
good_finding good.c "deep nesting"
for kind in plus ternary cases; do
	expect_out "^$kind.c:[0-9]*:2: error: 'rb_raise' raises" "the finding after a 20,000-level $kind chain"
done
expect_no_out "offload-candidate" "no offload candidate when the engine could not see all of it"
hostile "deep nesting, parallel" 1 --jobs 2 .
good_finding good.c "deep nesting, parallel"

# ---- names: spaces, non-ASCII, bytes that are not UTF-8; a source with
# invalid UTF-8 and NUL bytes after the first 8 KiB
mkdir -p "$T/names/.git" && cd "$T/names" || exit 1
mkdir -p "dir with space/ünï cødé"
write_bad_ext "dir with space/ünï cødé/good file.c"
sp="dir with space/ünï cødé/good file.c"
write_bad_ext "$(printf 'lat\351n1 \377.c')"
sed -i 's/bad_run/bad_run2/' "$(printf 'lat\351n1 \377.c')"
{
	printf 'int caf\351 = 1; /* \377\376 */\n'
	awk 'BEGIN { for (i = 0; i < 400; i++) print "/* ............................................. */" }'
	printf 'int nul_after = 1; \000\000 int more = 2;\n'
} >bytes.c
hostile "names and bytes" 1 .
good_finding "$sp" "names and bytes"
[ "$(grep -c ':6:2: error: ' "$OUT")" = 2 ] || fail "names and bytes: not both findings"

# ---- symbolic link loops, dangling links and links out of the tree in a
# scanned directory; a directory nested 100 deep
mkdir -p "$T/links/.git" "$T/links/ext" "$T/outside" && cd "$T/links" || exit 1
write_bad_ext ext/good.c
ln -s . ext/loop
ln -s .. ext/up
ln -s ../ext ext/sideways
ln -s nowhere.c ext/dangling.c
ln -s l2.c ext/l1.c
ln -s l1.c ext/l2.c
ln -s "$T/outside" ext/out
d=ext/n
i=0
while [ $i -lt 100 ]; do
	d=$d/n
	i=$((i + 1))
done
mkdir -p "$d"
hostile "symlink loops" 1 .
good_finding ext/good.c "symlink loops"
[ "$(grep -c 'ext/good.c:6:2: error: ' "$OUT")" = 1 ] || fail "symlink loops: the file was analysed more than once"
expect_err "nested too deeply; not scanned further" "symlink loops: the deep directory said"

# ---- binary files named .c, an empty one, a FIFO named .c given by name
mkdir -p "$T/binary/.git" && cd "$T/binary" || exit 1
write_bad_ext good.c
printf '\177ELF\002\001\001\000\000\000\000\000\000\000\000\000\003\000' >elf.c
head -c 65536 /dev/urandom >random.c
printf '\211PNG\r\n\032\n\000\000\000\rIHDR' >image.c
: >empty.c
hostile "binary files" 1 .
good_finding good.c "binary files"
for f in elf.c image.c; do
	expect_err "^nogvl-lint: warning: $f: not analysed: not a C source file (binary content)$" "$f said"
done
mkfifo fifo.c
hostile "a FIFO named .c" 1 fifo.c good.c
good_finding good.c "a FIFO"
expect_err "^nogvl-lint: warning: fifo.c: not analysed: cannot read" "the FIFO said"
rm fifo.c

# ---- compile databases: many entries; entries for missing files; a
# directory that escapes the project; a response file that is a FIFO
mkdir -p "$T/db/.git" "$T/db/ext" "$T/db/build" && cd "$T/db" || exit 1
write_bad_ext ext/good.c
awk -v d="$T/db" -v n="$ENTRIES" 'BEGIN {
	db = "build/compile_commands.json"
	printf "[{\"directory\": \"%s/ext\", \"file\": \"good.c\", \"arguments\": [\"cc\", \"-c\", \"good.c\"]}", d > db
	for (i = 0; i < n; i++) {
		f = sprintf("ext/t%d.c", i)
		printf "int t%d(int x) { return x + %d; }\n", i, i > f
		close(f)
		printf ",\n{\"directory\": \"%s/ext\", \"file\": \"t%d.c\", \"arguments\": [\"cc\", \"-DN=%d\", \"-c\", \"t%d.c\"]}", d, i, i, i > db
	}
	printf "\n]\n" > db
}'
hostile "$ENTRIES compile database entries" 1 -p build
good_finding ext/good.c "$ENTRIES entries"
expect_out "^$((ENTRIES + 1)) files analysed (0 with parse errors), 1 finding" "$ENTRIES entries: all analysed"
rm -f ext/t*.c
awk -v d="$T/db" -v n="$ENTRIES" 'BEGIN {
	printf "[{\"directory\": \"%s/ext\", \"file\": \"good.c\", \"arguments\": [\"cc\", \"-c\", \"good.c\"]}", d
	for (i = 0; i < n; i++)
		printf ",\n{\"directory\": \"%s/ext\", \"file\": \"gone%d.c\", \"arguments\": [\"cc\", \"-c\", \"gone%d.c\"]}", d, i, i
	printf "\n]\n"
}' >build/compile_commands.json
hostile "$ENTRIES entries for missing files" 1 -p build
good_finding ext/good.c "missing files"
[ "$(wc -l <"$ERR")" = 1 ] || fail "missing files: not one line on stderr"
expect_err "^nogvl-lint: warning: build/compile_commands.json: $ENTRIES entries for files that do not exist (such as ext/gone0.c) skipped; -v lists them$" "missing files said"
cat >build/compile_commands.json <<EOJ
[{"directory": "/", "file": "$T/db/ext/good.c", "arguments": ["cc", "-c", "$T/db/ext/good.c"]},
 {"directory": "../../../../../../../../../../../../usr/include", "file": "$T/db/ext/other.c", "arguments": ["cc", "-c", "$T/db/ext/other.c"]}]
EOJ
sed 's/bad_run/other_run/' ext/good.c >ext/other.c
hostile "a compile database directory that escapes the project" 1 -p build
good_finding ext/good.c "escaping directory"
good_finding ext/other.c "escaping directory"
expect_err "^nogvl-lint: warning: build/compile_commands.json: the entry for ext/good.c has directory /, which holds system or Ruby headers: it is not taken as part of the project$" "/ refused as a root"
expect_err "has directory /usr/include, which holds system or Ruby headers" "/usr/include refused as a root"
mkfifo ext/flags.rsp
printf '[{"directory": "%s/ext", "file": "good.c", "arguments": ["cc", "@flags.rsp", "-c", "good.c"]}]\n' "$T/db" \
	>build/compile_commands.json
hostile "a response file that is a FIFO" 2 -p build
expect_one_line_error "a response file that is a FIFO"
expect_err "cannot read response file .*flags.rsp" "the FIFO response file named"

# ---- a configuration whose glob would backtrack exponentially
mkdir -p "$T/glob/.git" "$T/glob/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a" && cd "$T/glob" || exit 1
write_bad_ext a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/good.c
printf 'exclude: ["%s/z"]\n' "$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "%s**", (i ? "/" : "") }')" >.nogvl-lint.yml
rc=0
"$RUN_LIMITED" 60 "$T/report" -- "$BIN" --no-progress . >"$OUT" 2>"$ERR" || rc=$?
[ "$rc" = 1 ] || fail "a glob of 40 '**': exit status $rc (124: it hung)"
good_finding a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/good.c "a glob of 40 '**'"
exit 0
