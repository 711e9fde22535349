# --fix is safe on files it does not own: it never writes outside the analysed
# tree or through a symlink that leaves it; it leaves alone a file that
# changed after it was analysed; it keeps each file's permissions; and a
# process killed at any moment leaves every file either as it was or fully
# fixed, with no temporary file behind.
#
# The test hook NOGVL_LINT_FIX_DELAY_MS=N (fix.h) makes --fix wait N ms before
# each file, after announcing it on stderr: the test changes a file, or kills
# the process, at those points (and at fixed offsets after them, to land in
# the middle of writing, syncing and re-parsing).
. "$(dirname "$0")/lib/common.sh"
# the test hooks are compiled in only with -DNOGVL_TEST_HOOKS=ON (scripts/setup)
if [ "${NOGVL_BUILT_WITH_TEST_HOOKS:-1}" != 1 ]; then
	echo "SKIP: built without the test hooks (NOGVL_TEST_HOOKS)"
	exit 77
fi

# write_candidate FILE K: a callback that can take RB_NOGVL_OFFLOAD_SAFE (the
# fix rewrites the call and adds the fallback define), padded to ~100 KB so
# writing and syncing it takes a moment
write_candidate() {
	{
		printf '#include <ruby.h>\n#include <ruby/thread.h>\n\nstruct args%s { long n; long sum; };\n\n' "$2"
		printf 'static void *sum%s_nogvl(void *p)\n{\n\tstruct args%s *a = p;\n' "$2" "$2"
		printf '\tfor (long i = 0; i < a->n; i++)\n\t\ta->sum += i * %s;\n\treturn NULL;\n}\n\n' "$2"
		printf 'VALUE sum%s(VALUE self, VALUE n)\n{\n\tstruct args%s a = {NUM2LONG(n), 0};\n' "$2" "$2"
		printf '\trb_nogvl(sum%s_nogvl, &a, NULL, NULL, 0);\n\treturn LONG2NUM(a.sum);\n}\n' "$2"
		pad=0
		while [ $pad -lt 1500 ]; do
			printf '/* padding line %05d ................................................ */\n' $pad
			pad=$((pad + 1))
		done
	} >"$1"
}
temps() { find "$1" -name '.*.nogvl-lint.*' | wc -l | tr -d ' '; }

N=6
mkdir -p "$T/orig/ext" "$T/fixed"
i=1
while [ $i -le $N ]; do
	write_candidate "$T/orig/ext/f$i.c" $i
	i=$((i + 1))
done
chmod 0600 "$T/orig/ext/f1.c"
chmod 0755 "$T/orig/ext/f2.c"
mkdir "$T/orig/.git"
# the reference: an uninterrupted --fix
cp -a "$T/orig/." "$T/fixed/"
cd "$T/fixed" || exit 1
run --fix ext
expect_rc 0 "--fix"
i=1
while [ $i -le $N ]; do
	cmp -s "ext/f$i.c" "$T/orig/ext/f$i.c" && fail "f$i.c was not fixed"
	grep -q 'rb_nogvl(sum'$i'_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);' "ext/f$i.c" || fail "f$i.c: no flag"
	i=$((i + 1))
done
[ "$(stat -c %a ext/f1.c)" = 600 ] || fail "--fix lost mode 0600"
[ "$(stat -c %a ext/f2.c)" = 755 ] || fail "--fix lost mode 0755"
[ "$(temps .)" = 0 ] || fail "temporary files left by an uninterrupted --fix"

# ---- a file changed between its analysis and its fix is left alone
rm -rf "$T/w" && cp -a "$T/orig" "$T/w" && cd "$T/w" || exit 1
NOGVL_LINT_FIX_DELAY_MS=1500 "$BIN" --fix ext >"$OUT" 2>"$ERR" &
pid=$!
n=0
until grep -q 'waiting 1500 ms before ext/f3.c' "$ERR"; do
	sleep 0.05
	n=$((n + 1))
	[ $n -lt 1200 ] || { kill -9 $pid; fail "--fix never reached f3.c"; }
done
printf '/* edited by someone else meanwhile */\n' >>ext/f3.c
cp ext/f3.c "$T/f3.edited"
rc=0
wait $pid || rc=$?
expect_rc 2 "--fix with a file changed meanwhile"
expect_err "ext/f3.c: changed since it was analysed; not fixing it" "the changed file named"
cmp -s ext/f3.c "$T/f3.edited" || fail "the changed file was overwritten"
for k in 1 2 4 5 6; do
	cmp -s "ext/f$k.c" "$T/fixed/ext/f$k.c" || fail "f$k.c was not fixed next to the changed one"
done
[ "$(temps .)" = 0 ] || fail "temporary files left"

# ---- symbolic links: one to a file outside the tree is never written through;
# one inside the tree fixes its target once and stays a link
mkdir -p "$T/outside" "$T/w2/.git" "$T/w2/ext"
write_candidate "$T/outside/x.c" 7
cp "$T/outside/x.c" "$T/outside.orig"
write_candidate "$T/w2/ext/real.c" 8
ln -s ../../outside/x.c "$T/w2/ext/out_link.c"
ln -s real.c "$T/w2/ext/in_link.c"
cd "$T/w2" || exit 1
run --fix ext
cmp -s "$T/outside/x.c" "$T/outside.orig" || fail "--fix wrote through a symlink to outside the tree"
[ -L ext/out_link.c ] && [ -L ext/in_link.c ] || fail "--fix replaced a symbolic link by a file"
grep -q 'rb_nogvl(sum8_nogvl, &a, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);' ext/real.c || fail "real.c not fixed"
[ "$(grep -c '^#define RB_NOGVL_OFFLOAD_SAFE 0' ext/real.c)" = 1 ] || fail "real.c fixed twice (once per name)"
# the link named on its own: the file behind it is analysed (and its findings
# shown), but --fix writes only below the directory the link was named in
run --fix ext/out_link.c
expect_rc 2 "--fix through a named link to outside"
expect_err "outside/x.c: outside the analysed tree (reached through a symlink?); not fixing it" "refusal said"
cmp -s "$T/outside/x.c" "$T/outside.orig" || fail "--fix ext/out_link.c wrote outside the tree"
[ "$(temps "$T/outside")" = 0 ] || fail "temporary files next to the outside file"

# ---- killed at any moment: every file old or new, no temporary file
# (iteration k kills after the pause before file (k mod N)+1, at a growing
# offset past the pause)
k=0
while [ $k -lt 12 ]; do
	rm -rf "$T/w" && cp -a "$T/orig" "$T/w" && cd "$T/w" || exit 1
	target=$((k % N + 1))
	NOGVL_LINT_FIX_DELAY_MS=200 "$BIN" --fix ext >"$OUT" 2>"$ERR" &
	pid=$!
	n=0
	until grep -q "waiting 200 ms before ext/f$target.c" "$ERR"; do
		sleep 0.02
		n=$((n + 1))
		[ $n -lt 3000 ] || { kill -9 $pid; fail "--fix never reached f$target.c"; }
	done
	# 0.2 s of pause, then 0 to 0.22 s into the work on that file
	sleep "0.$((20 + (k * 7) % 23))"
	kill -9 $pid 2>/dev/null
	wait $pid 2>/dev/null
	i=1
	while [ $i -le $N ]; do
		if ! cmp -s "ext/f$i.c" "$T/orig/ext/f$i.c" && ! cmp -s "ext/f$i.c" "$T/fixed/ext/f$i.c"; then
			fail "kill $k: f$i.c is neither the original nor the fixed file"
		fi
		i=$((i + 1))
	done
	[ "$(stat -c %a ext/f1.c)" = 600 ] || fail "kill $k: f1.c lost its mode"
	[ "$(temps .)" = 0 ] || { ls -la ext; fail "kill $k: a temporary file was left"; }
	# a later run finishes the job
	run --fix ext
	expect_rc 0 "kill $k: --fix again"
	i=1
	while [ $i -le $N ]; do
		cmp -s "ext/f$i.c" "$T/fixed/ext/f$i.c" || fail "kill $k: f$i.c not fixed by the next run"
		i=$((i + 1))
	done
	k=$((k + 1))
done

# ---- a temporary file left by an interrupted --fix (where O_TMPFILE is not
# available) is removed by the next --fix of that file
rm -rf "$T/w" && cp -a "$T/orig" "$T/w" && cd "$T/w" || exit 1
printf 'partial' >ext/.f4.c.nogvl-lint.AbC123
printf 'not ours' >ext/.f4.c.nogvl-lint.keep
run --fix ext
expect_rc 0 "--fix with a stale temporary file"
[ ! -e ext/.f4.c.nogvl-lint.AbC123 ] || fail "the stale temporary file stayed"
[ -e ext/.f4.c.nogvl-lint.keep ] || fail "a file that is not ours was removed"
exit 0
