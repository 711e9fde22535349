#!/bin/sh
# .nogvl-lint.yml: a rule switched off, a severity changed, the command line
# winning, per-directory files, globs, defines, and bad files (exit 2 with the
# file and line).
. "$(dirname "$0")/lib/common.sh"
checklist
mkdir -p ext/sub
write_ext ext/ext.c
write_ext ext/sub/other.c
sed -i 's/Init_ext/Init_other/' ext/sub/other.c

run --format json ext
check "no config: 6 findings" is "$(jq '.findings | length' out.txt)" 6

cat >.nogvl-lint.yml <<'YEOF'
# project settings
rules:
  value-access-without-gvl: false
  ruby-api-without-gvl:
    severity: warning
YEOF
run --format json ext
check "config: rule disabled" is "$(jq '[.findings[] | select(.rule == "value-access-without-gvl")] | length' out.txt)" 0
check "config: severity changed" is "$(jq -r '[.findings[].severity] | unique | join(",")' out.txt)" warning
check "config: still fails at the default level (warning)" is "$rc" 1
run --fail-level error ext
check "CLI --fail-level wins" is "$rc" 0
run --format json --enable value-access-without-gvl ext
check "CLI --enable wins over the config" is "$(jq '[.findings[] | select(.rule == "value-access-without-gvl")] | length' out.txt)" 2
run --format json --no-config ext
check "--no-config ignores it" is "$(jq '[.findings[] | select(.severity == "error")] | length' out.txt)" 6

cat >>.nogvl-lint.yml <<'YEOF'
fail_level: error
YEOF
run ext
check "config fail_level: warnings do not fail" is "$rc" 0
run --fail-level warning ext
check "CLI --fail-level wins over fail_level" is "$rc" 1

# a nearer file replaces the outer one unless it inherits
cat >ext/sub/.nogvl-lint.yml <<'YEOF'
rules:
  ruby-api-without-gvl: false
YEOF
run --format json ext
check "nearest file: sub/ has only its own settings" is "$(jq -r '[.findings[] | "\(.file):\(.rule):\(.severity)"] | join(" ")' out.txt)" \
	"ext/ext.c:ruby-api-without-gvl:warning ext/ext.c:ruby-api-without-gvl:warning ext/sub/other.c:value-access-without-gvl:error"
printf 'inherit: true\n' >>ext/sub/.nogvl-lint.yml
run --format json ext
check "inherit: sub/ also takes the outer settings" is "$(jq -r '[.findings[] | .file] | join(" ")' out.txt)" "ext/ext.c ext/ext.c"

# excluded files are not analysed
rm ext/sub/.nogvl-lint.yml
printf 'exclude: [sub]\n' >>.nogvl-lint.yml
run --format json ext
check "exclude: the directory is skipped" is "$(jq -r '[.inputs.files[].file] | join(" ")' out.txt)" "ext/ext.c"

# defines from the config reach the parser; the command line's -D wins
cat >ext/sub/.nogvl-lint.yml <<'YEOF'
defines: [USE_RAISE=1]
YEOF
cat >ext/sub/def.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>
static void *cb(void *p)
{
#if USE_RAISE
	rb_raise(rb_eArgError, "x");
#endif
	return p;
}
static VALUE m(VALUE self) { rb_thread_call_without_gvl(cb, NULL, NULL, NULL); return Qnil; }
void Init_def(void) { rb_define_method(rb_cObject, "m", m, 0); }
CEOF
run --format json --disable small-work-nogvl ext/sub/def.c
check "config defines: the branch is analysed" is "$(jq '.findings | length' out.txt)" 1
run --format json --disable small-work-nogvl -DUSE_RAISE=0 ext/sub/def.c
check "CLI -D wins over the config's" is "$(jq '.findings | length' out.txt)" 0

# bad files: exit 2, file:line: what is wrong
cat >.nogvl-lint.yml <<'YEOF'
rules:
  value-access-without-gvl: false
  no-such-rule: true
YEOF
run ext
check "unknown rule: exit 2" is "$rc" 2
check "unknown rule: file and line" has err.txt "nogvl-lint: error: $T/.nogvl-lint.yml:3:3: unknown rule 'no-such-rule'"
printf 'rules:\n  removed-api: [true\n' >.nogvl-lint.yml
run ext
check "YAML syntax error: exit 2" is "$rc" 2
check "YAML syntax error: file and line" has err.txt "\.nogvl-lint.yml:3:1: YAML syntax error"
printf 'fail_level: sometimes\n' >.nogvl-lint.yml
run --format json ext
check "wrong value: exit 2" is "$rc" 2
check "wrong value: says what is allowed" has err.txt ".nogvl-lint.yml:1:13: 'fail_level' takes note, warning, error or none, not 'sometimes'"
check "wrong value: no partial output" is "$(wc -c <out.txt | tr -d ' ')" 0
printf 'exclude: 3\nfail_levle: error\n' >.nogvl-lint.yml
run ext
check "misspelt key: exit 2 with the line" has err.txt ".nogvl-lint.yml:2:1: unknown key 'fail_levle'"
rm .nogvl-lint.yml
printf 'rules: {removed-api: maybe}\n' >ext/sub/.nogvl-lint.yml
run ext
check "a bad file in a subdirectory: exit 2" is "$rc" 2
check "a bad file in a subdirectory: named" has err.txt "ext/sub/.nogvl-lint.yml:1:22: rule 'removed-api'"
run --config "$T/nothere.yml" ext
check "--config missing file: exit 2" is "$rc" 2
# library models: a bad model file is a configuration error with path:line:col
rm -f ext/sub/.nogvl-lint.yml
printf 'library: x\nfunctions:\n  f: {thread_safe: sometimes, source: s}\n' >"$T/bad-model.yml"
run --models "$T/bad-model.yml" ext
check "bad --models file: exit 2" is "$rc" 2
check "bad --models file: path:line:col" has err.txt "bad-model.yml:3:20: 'thread_safe' must be one of always, per_handle, never, not 'sometimes'"
printf 'library: x\nfunctions:\n  f: &a {source: s}\n  g: *a\n' >"$T/bomb.yml"
run --models "$T/bomb.yml" ext
check "a YAML alias bomb in a model: exit 2" is "$rc" 2
check "a YAML alias bomb in a model: refused" has err.txt "bomb.yml:3:6: YAML anchors are not allowed in model files"
mkdir -p models
printf 'library: x\nfunctions:\n  f: {source: a}\n  f: {source: b}\n' >models/dup.yml
printf 'models: [models/dup.yml]\n' >.nogvl-lint.yml
run ext
check "a model named in .nogvl-lint.yml: duplicate function, exit 2" is "$rc" 2
check "a model named in .nogvl-lint.yml: duplicate named" has err.txt "models/dup.yml:4:3: 'f' is modelled twice in this file"
printf 'models: [../outside.yml]\n' >.nogvl-lint.yml
run ext
check "models outside the configuration's directory: exit 2" is "$rc" 2
check "models outside the configuration's directory: said" has err.txt "is not below the directory of this file"
rm -f .nogvl-lint.yml models/dup.yml
printf 'library: x\nfunctions:\n  some_fn: {thread_safe: always, source: "our docs"}\n' >models/ok.yml
printf 'models: [models/ok.yml]\n' >.nogvl-lint.yml
run -v ext
check "a good model: runs" is "$rc" 1
check "a good model: loaded" has err.txt "library models: .*models/ok.yml"
rm -f .nogvl-lint.yml
finish
