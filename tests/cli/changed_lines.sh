# --changed-lines REF / -: only findings whose line or call chain touches a
# line changed since REF (git diff -U0 REF, run in the analysed tree) or in a
# unified diff on stdin. Outside a git tree, an unknown revision, stdin that
# is not a diff: exit status 2 with the reason. The repository's own git
# settings (fsmonitor hook, external diff) never run.
. "$(dirname "$0")/lib/common.sh"
command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }

G="git -c user.name=t -c user.email=t@example.invalid -c init.defaultBranch=main"
mkdir -p "$T/gem/ext"
cp "$SRC"/corpus/examples/digest_ext/* "$T/gem/ext/"
cd "$T/gem" || exit 1
$G init -q . && $G add -A && $G commit -qm base || fail "git setup"
slugs() { sed -n 's/^[^ ]*:\([0-9]*\):[0-9]*: [a-z]*: .*\[\([a-z-]*\)\]$/\1 \2/p' "$OUT" | sort | tr '\n' ';'; }

run --changed-lines HEAD ext
expect_rc 0 "nothing changed"
[ -z "$(slugs)" ] || fail "nothing changed: findings shown: $(slugs)"
expect_out "^2 files analysed (0 with parse errors), 0 findings" "nothing changed: summary"

# a change on the offload candidate's line: that finding only
sed -i '91s|$| /* changed */|' ext/digest_ext.c
run --changed-lines HEAD ext
expect_rc 0 "candidate line changed (a note)"
is_="$(slugs)"
[ "$is_" = "91 offload-candidate;" ] || fail "candidate line changed: got $is_"
$G commit -qam second

# a change on the release site of check_nogvl: the findings whose chain passes there
sed -i '63s|$| /* changed */|' ext/digest_ext.c
run --changed-lines HEAD ext
expect_rc 1 "release site changed"
[ "$(slugs)" = "48 value-access-without-gvl;56 ruby-api-without-gvl;" ] || fail "chain: got $(slugs)"
# the same from a diff on stdin, run from the repository's root
git diff HEAD >"$T/change.diff"
rc=0
"$BIN" --changed-lines - ext <"$T/change.diff" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 1 "stdin diff"
[ "$(slugs)" = "48 value-access-without-gvl;56 ruby-api-without-gvl;" ] || fail "stdin diff: got $(slugs)"
# older revision: both changes
run --changed-lines HEAD~1 ext
[ "$(slugs)" = "48 value-access-without-gvl;56 ruby-api-without-gvl;91 offload-candidate;" ] || fail "HEAD~1: got $(slugs)"
# a deleted line next to a finding counts (the lines either side of it)
$G commit -qam third
sed -i '57d' ext/digest_ext.c
run --changed-lines HEAD ext
slugs | grep -q "56 ruby-api-without-gvl" || fail "deletion after line 56: got $(slugs)"
git checkout -q ext/digest_ext.c
# a plain diff -u with context lines, names relative to the current directory
cp ext/digest_ext.c "$T/old.c"
sed -i '35s|$| /* changed */|' ext/digest_ext.c
(diff -u "$T/old.c" ext/digest_ext.c | sed "1s|^--- .*|--- ext/digest_ext.c|") >"$T/ctx.diff"
rc=0
"$BIN" --changed-lines - ext <"$T/ctx.diff" >"$OUT" 2>"$ERR" || rc=$?
[ "$(slugs)" = "35 unfrozen-input;37 missing-gc-guard;" ] || fail "diff -u with context: got $(slugs)"
git checkout -q ext/digest_ext.c

# JSON and SARIF carry only those too
sed -i '63s|$| /* changed */|' ext/digest_ext.c
run --changed-lines HEAD --format json ext
[ "$(jq '.findings | length' "$OUT")" = 2 ] || fail "json: not 2 findings"

# bad input: exit 2, one line with the reason, before any analysis
mkdir -p "$T/nogit/ext"
cp "$SRC"/corpus/examples/digest_ext/* "$T/nogit/ext/"
GIT_CEILING_DIRECTORIES=$T run --changed-lines HEAD "$T/nogit/ext"
expect_rc 2 "outside a git tree"
expect_one_line_error
expect_err "not a git repository" "outside a git tree: git's reason"
run --changed-lines no-such-ref ext
expect_rc 2 "unknown ref"
expect_one_line_error
expect_err "^nogvl-lint: error: --changed-lines no-such-ref: git diff: .*no-such-ref" "unknown ref: reason"
printf 'hello\nthis is not a diff\n' >"$T/notdiff"
rc=0
"$BIN" --changed-lines - ext <"$T/notdiff" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 2 "stdin not a diff"
expect_one_line_error
expect_err "not a unified diff" "stdin not a diff: reason"
printf -- '--- a/x.c\n+++ b/x.c\n@@ -1,3 +1,3 @@\n-a\n' >"$T/trunc"
rc=0
"$BIN" --changed-lines - ext <"$T/trunc" >"$OUT" 2>"$ERR" || rc=$?
expect_rc 2 "truncated diff"
rc=0
"$BIN" --changed-lines - ext </dev/null >"$OUT" 2>"$ERR" || rc=$?
expect_rc 0 "empty stdin: no changes"
run --changed-lines --output=x ext
expect_rc 2 "a revision that looks like an option"
expect_one_line_error

# the repository's settings run nothing
git config core.fsmonitor "touch $T/fsmonitor-ran; false"
git config diff.external "sh -c 'touch $T/extdiff-ran'"
printf '*.c diff=evil\n' >.gitattributes
git config diff.evil.textconv "sh -c 'touch $T/textconv-ran; cat'"
git config diff.noprefix true
run --changed-lines HEAD ext
expect_rc 1 "hostile git config"
[ "$(slugs)" = "48 value-access-without-gvl;56 ruby-api-without-gvl;" ] || fail "hostile git config: got $(slugs)"
for f in fsmonitor-ran extdiff-ran textconv-ran; do
	[ ! -e "$T/$f" ] || fail "the repository's $f setting ran"
done
echo ok
