#!/bin/sh
# Inline suppressions on real findings: same line, line before, block, inside a
# macro expansion (at the use and at the #define), and unused ones reported.
. "$(dirname "$0")/lib/common.sh"
checklist
write_ext

# 1. the rb_raise on line 20, suppressed on its own line
sed -i '20s|$| // nogvl-lint: ignore[ruby-api-without-gvl] raised after re-acquiring, see #12|' ext.c
run --format json ext.c
check "same line: exit still 1 (two others)" is "$rc" 1
check "same line: finding gone" is "$(jq '[.findings[] | select(.line == 20)] | length' out.txt)" 0
check "same line: listed as suppressed with its reason" is "$(jq -r '.suppressed[0] | "\(.line) \(.suppression.line) \(.suppression.reason)"' out.txt)" \
	"20 20  raised after re-acquiring, see #12"
check "same line: summary counts it" has err.txt "2 findings (2 errors, 0 warnings, 0 notes), 1 suppressed"
run ext.c
check "same line: text output omits it" hasnt out.txt "ext.c:20:"

# 2. the line before, for the value access on line 11
write_ext
sed -i '11i\	/* nogvl-lint: ignore[value-access-without-gvl] the string is frozen and guarded */' ext.c
run --format json ext.c
check "line before: finding gone" is "$(jq '[.findings[] | select(.rule == "value-access-without-gvl")] | length' out.txt)" 0
check "line before: still two others" is "$(jq '.findings | length' out.txt)" 2

# 3. inside a macro expansion: at the use (line 13) ...
write_ext
sed -i '13s|$|  // nogvl-lint: ignore[ruby-api-without-gvl]|' ext.c
run --format json ext.c
check "macro use: suppressed" is "$(jq -r '[.suppressed[] | .macro] | join(",")' out.txt)" RAISE_EMPTY
check "macro use: not reported" is "$(jq '[.findings[] | select(.line == 13)] | length' out.txt)" 0
# ... and at the #define (line 4), covering every expansion
write_ext
sed -i '4s|$| /* nogvl-lint: ignore[ruby-api-without-gvl] only used on error paths */|' ext.c
run --format json ext.c
check "macro definition: the expansion on line 13 is suppressed" is "$(jq -r '[.suppressed[] | "\(.line):\(.suppression.line)"] | join(",")' out.txt)" "13:4"
check "macro definition: the plain rb_raise on line 20 is not" is "$(jq '[.findings[] | select(.line == 20)] | length' out.txt)" 1

# 4. a block around cb_b
write_ext
sed -i '17i\// nogvl-lint: ignore-begin[ruby-api-without-gvl] legacy callback, rewritten in #34' ext.c
sed -i '23i\// nogvl-lint: ignore-end[ruby-api-without-gvl]' ext.c
run --format json ext.c
check "block: rb_raise inside is suppressed" is "$(jq -r '.suppressed[0] | "\(.line) \(.suppression.kind)"' out.txt)" "21 block"
check "block: findings outside remain" is "$(jq '.findings | length' out.txt)" 2

# 5. wrong rule named: the finding stays
write_ext
sed -i '20s|$| // nogvl-lint: ignore[value-access-without-gvl]|' ext.c
run --format json ext.c
check "other rule named: still reported" is "$(jq '[.findings[] | select(.line == 20)] | length' out.txt)" 1

# 6. unused suppressions
write_ext
sed -i '20s|$| // nogvl-lint: ignore[ruby-api-without-gvl,removed-api] two rules, one used|' ext.c
sed -i '10i\	// nogvl-lint: ignore[with-gvl-escape] stale' ext.c
run --format json ext.c
check "unused: not reported without the option" is "$(jq '[.findings[] | select(.rule == "unused-suppression")] | length' out.txt)" 0
run --format json --report-unused-suppressions ext.c
check "unused: the stale comment and the unused slug are reported" is "$(jq -r '[.findings[] | select(.rule == "unused-suppression") | "\(.line):\(.severity)"] | join(",")' out.txt)" \
	"10:warning,21:warning"
check "unused: the message names the rule" is "$(jq -r '.findings[] | select(.rule == "unused-suppression" and .line == 21) | .message' out.txt)" \
	"unused suppression: no 'removed-api' finding on line 21; remove 'removed-api' from the comment"
# only the unused ones left: they alone decide the exit status
sed -i 's|RSTRING_LEN(j->str)|0|; s|RAISE_EMPTY();|return NULL;|' ext.c
run ext.c
check "unused: clean run without the option exits 0" is "$rc" 0
run --report-unused-suppressions ext.c
check "unused: exits 1 with the option" is "$rc" 1
check "unused: text output" has out.txt "ext.c:10:2: warning: unused suppression: no 'with-gvl-escape' finding on line 11.*\[unused-suppression\]"
run --report-unused-suppressions --disable with-gvl-escape,removed-api ext.c
check "unused: suppressions of rules that did not run are not unused" is "$rc" 0

# 7. mistakes in directives are warned about on stderr
write_ext
sed -i '20s|$| // nogvl-lint: ignore[ruby-api-without-gvI]|' ext.c
run ext.c
check "typo in a rule: warned" has err.txt "ext.c:20:31: unknown rule 'ruby-api-without-gvI' in a suppression"
check "typo in a rule: nothing suppressed" has out.txt "ext.c:20:2: error"
finish
