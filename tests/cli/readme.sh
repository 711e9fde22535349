# Every nogvl-lint command in the README's code blocks (```sh lines, and the
# `entry:`/`run:` commands of ```yaml blocks) runs on the bundled example, in
# a git repository laid out as a gem (ext/, and compile databases for `-p
# build/` and `--compile-commands db.json` made with --dump-commands): none is
# a usage error, each exits 0 or 1, and the files they write are there.
# Commands for files the example does not have are listed in SKIP with why.
. "$(dirname "$0")/lib/common.sh"
command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }
mkdir -p "$T/gem/ext" "$T/gem/build" "$T/bin"
cp "$SRC"/corpus/examples/digest_ext/* "$T/gem/ext/"
ln -s "$BIN" "$T/bin/nogvl-lint"
cd "$T/gem" || exit 1
git -c init.defaultBranch=main init -q . && git add -A &&
	git -c user.name=t -c user.email=t@example.invalid commit -qm example || fail "git"
"$BIN" --dump-commands ext/ >build/compile_commands.json 2>/dev/null || fail "dump-commands"
cp build/compile_commands.json db.json
printf 'build/\ndb.json\n' >.git/info/exclude

# the commands, in README order: lines of ```sh and ```yaml blocks
awk '
	/^```/ { if (inb) { inb = 0 } else if ($0 ~ /^```(sh|yaml)$/) { inb = 1 }; next }
	inb {
		line = $0
		entry = line ~ /^ *(- )?entry: /
		sub(/^ *(- )?(entry|run): /, "", line)
		if (line ~ /^nogvl-lint / || line ~ /\| nogvl-lint /) {
			sub(/  +#.*$/, "", line)   # a trailing comment
			# a pre-commit entry: pre-commit appends the changed files
			if (entry)
				line = line " ext/digest_ext.c"
			print line
		}
	}' "$SRC/README.md" >"$T/commands"
n=$(wc -l <"$T/commands")
[ "$n" -ge 15 ] || fail "only $n commands found in the README"
# the README shows these that this example cannot run
SKIP='--ruby-include /opt/'
i=0
while IFS= read -r cmd; do
	i=$((i + 1))
	case $cmd in *"$SKIP"*) echo "skip: $cmd"; continue ;; esac
	rc=0
	PATH="$T/bin:$PATH" sh -c "$cmd" >"$OUT" 2>"$ERR" </dev/null || rc=$?
	case $rc in
	0 | 1) ;;
	*) fail "README command $i exits $rc: $cmd" ;;
	esac
	grep -q '^nogvl-lint: error: \|Sanitizer' "$ERR" && fail "README command $i: an error on stderr: $cmd"
	# what it writes
	for f in $(printf '%s\n' "$cmd" | sed -n 's/.*\(-o\|--write-baseline\|>\) \([^ ]*\).*/\2/p'); do
		[ -s "$f" ] || fail "README command $i did not write $f: $cmd"
	done
	case $cmd in
	*"> report.json"*) jq -e .findings report.json >/dev/null || fail "report.json" ;;
	*--list-rules*) grep -q '^ruby-api-without-gvl ' "$OUT" || fail "--list-rules output" ;;
	*"--explain ruby"*) grep -q '^# ruby-api-without-gvl' "$OUT" || fail "--explain output" ;;
	*--explain-callback*) grep -q 'verdict: ' "$OUT" || fail "--explain-callback output" ;;
	*--fix-dry-run*) grep -q '^+++ b/ext/digest_ext.c' "$OUT" || fail "--fix-dry-run output" ;;
	*--version*) grep -q '(libclang: ' "$OUT" || fail "--version output" ;;
	esac
	echo "ok $i: $cmd (exit $rc)"
done <"$T/commands"
echo ok
