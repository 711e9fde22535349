#!/bin/sh
# --write-baseline / --baseline: a round trip hides old findings, shows a new
# one, survives unrelated edits, and lists entries that are fixed.
. "$(dirname "$0")/lib/common.sh"
checklist
write_ext

run --write-baseline base.json ext.c
check "write: exit 0 (the findings are recorded)" is "$rc" 0
check "write: says so" has out.txt "recorded 3 findings in base.json"
check "write: a baseline file" is "$(jq -r '[.nogvl_lint_baseline, .tool_version, (.findings | length)] | @tsv' base.json)" \
	"$(printf '1\t%s\t3' "$("$BIN" --version | awk '{print $2}')")"
check "write: no line numbers in it" is "$(jq '[.findings[] | has("line")] | any' base.json)" false

run --baseline base.json ext.c
check "same code: exit 0" is "$rc" 0
check "same code: nothing reported" hasnt out.txt "error:"
check "same code: summary says they are in the baseline" has out.txt "0 findings (0 errors, 0 warnings, 0 notes), 3 in the baseline"

# unrelated edits: lines added above, reindented, a comment on the line
sed -i '3i\/* a new comment block\n   over two lines */\nstatic int unrelated;' ext.c
sed -i 's|^\trb_raise(rb_eArgError, "b");|        rb_raise(rb_eArgError, "b");   /* TODO */|' ext.c
run --baseline base.json ext.c
check "unrelated edits: still exit 0" is "$rc" 0

# a new finding: only it is reported, and it fails the run
sed -i '/(void)p;/a\	rb_gc();' ext.c
run --format json --baseline base.json ext.c
check "new finding: exit 1" is "$rc" 1
check "new finding: the only one reported" is "$(jq -r '[.findings[] | .source | gsub("^\\s+"; "")] | join(",")' out.txt)" 'rb_gc();'
check "new finding: baseline summary" is "$(jq -c '.baseline | [.entries, .hidden, (.fixed | length)]' out.txt)" "[3,3,0]"
run --format sarif --baseline base.json ext.c
check "new finding: SARIF has it alone, marked new" is "$(jq -r '[.runs[0].results[] | .baselineState] | join(",")' out.txt)" new
run --format github --baseline base.json ext.c
check "new finding: GitHub has it alone" is "$(wc -l <out.txt | tr -d ' ')" 1

# a fixed finding: listed, so the file can shrink
sed -i 's|RSTRING_LEN(j->str)|0|' ext.c
run --baseline base.json ext.c
check "fixed: listed" has out.txt "1 finding recorded in base.json is fixed"
check "fixed: which one" has out.txt "fixed: ext.c: cb_a: \[value-access-without-gvl\]"
run --format json --baseline base.json ext.c
check "fixed: in the JSON" is "$(jq -r '.baseline.fixed[0] | .rule + " " + .code' out.txt)" "value-access-without-gvl j->n = RSTRING_LEN(j->str);"

# rewriting the baseline shrinks it
run --write-baseline base.json ext.c
check "rewrite: 3 entries (2 old, 1 new)" is "$(jq '.findings | length' base.json)" 3
run --baseline base.json ext.c
check "rewrite: clean" is "$rc" 0

# entries of files outside the run are not called fixed
write_ext other.c
sed -i 's/Init_ext/Init_other/' other.c
run --write-baseline both.json ext.c other.c
run --baseline both.json ext.c
check "subset run: no 'fixed' for the file not analysed" hasnt out.txt "fixed"

# bad baselines: exit 2
run --baseline missing.json ext.c
check "missing baseline: exit 2" is "$rc" 2
check "missing baseline: says so" has err.txt "missing.json: cannot read the baseline"
printf '{"runs": []}\n' >notone.json
run --baseline notone.json ext.c
check "not a baseline: exit 2" is "$rc" 2
run --write-baseline /nonexistent/dir/b.json ext.c
check "unwritable baseline: exit 2" is "$rc" 2
finish
