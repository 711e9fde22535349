#!/bin/sh
# --format text|json|sarif|github and -o: each format's content, machine output
# alone on its stream, several formats in one run.
. "$(dirname "$0")/lib/common.sh"
checklist
write_ext

run ext.c
check "text: exit 1 on errors" is "$rc" 1
check "text: clang-style line" has out.txt "ext.c:20:2: error: 'rb_raise' raises a Ruby exception"
check "text: summary on stdout" has out.txt "1 file analysed (0 with parse errors), 3 findings"

run --format json ext.c
check "json: exit 1" is "$rc" 1
check "json: stdout is one JSON document" isjson out.txt
check "json: summary line on stderr" has err.txt "1 file analysed (0 with parse errors), 3 findings"
check "json: three findings" is "$(jq '.findings | length' out.txt)" 3
check "json: tool version" is "$(jq -r '.tool.version' out.txt)" "$("$BIN" --version | awk '{print $2}')"
check "json: finding fields" is "$(jq -r '.findings[] | select(.line == 20) | [.rule, .severity, .file, .column, .function, (.fingerprint | length), .buildless] | @tsv' out.txt)" \
	"$(printf 'ruby-api-without-gvl\terror\text.c\t2\tcb_b\t32\ttrue')"
check "json: note chain" is "$(jq -r '.findings[] | select(.line == 20) | .notes[0] | "\(.line) \(.message)"' out.txt)" \
	"28 'cb_b' passed to rb_thread_call_without_gvl here"
check "json: macro of a finding" is "$(jq -r '.findings[] | select(.line == 13) | .macro' out.txt)" RAISE_EMPTY
check "json: inputs" is "$(jq -r '.inputs.mode + " " + .inputs.files[0].status' out.txt)" "buildless ok"
check "json: summary" is "$(jq -c '.summary | [.files, .errors, .warnings, .notes, .sites]' out.txt)" "[1,3,0,0,2]"
check "json: release sites" is "$(jq -r '.sites[] | [.line, .api, .callback.text, .callback.how, .callback.resolved, .ubf.kind, .offload.verdict] | @tsv' out.txt)" \
	"$(printf '27\trb_thread_call_without_gvl\tcb_a\tdirect\ttrue\tRUBY_UBF_IO\tnot offload-safe\n28\trb_thread_call_without_gvl\tcb_b\tdirect\ttrue\tRUBY_UBF_IO\tnot offload-safe')"
check "json: gates of the verdict" is "$(jq -c '.sites[0].offload | [.evaluated, (.gates | length), .failed_gates, .gates[0].evidence[0].line]' out.txt)" '[true,12,["Ruby API"],11]'
check "json: empty lists present" is "$(jq -c '[.suppressed, .parse_failures, .baseline]' out.txt)" "[[],[],null]"

# a flagged call is "already flagged"
cat >flag.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>
#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif
static void *work(void *p) { return p; }
static VALUE m(VALUE self)
{
	rb_nogvl(work, NULL, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	return Qnil;
}
void Init_flag(void) { rb_define_method(rb_cObject, "m", m, 0); }
CEOF
run --format json flag.c
check "json: clean exit 0" is "$rc" 0
check "json: offload flag seen" is "$(jq -r '.sites[0] | [.flags.value, .flags.names[0], .offload.flag_set] | @tsv' out.txt)" \
	"$(printf '4\tRB_NOGVL_OFFLOAD_SAFE\ttrue')"
check "json: a flagged call is never a candidate" is "$(jq -r '.sites[0].offload.verdict | IN("already flagged", "cannot verify")' out.txt)" true

run --format sarif ext.c
check "sarif: exit 1" is "$rc" 1
check "sarif: JSON on stdout" isjson out.txt
check "sarif: version and schema" is "$(jq -r '.version + " " + ."$schema"' out.txt)" "2.1.0 https://json.schemastore.org/sarif-2.1.0.json"
check "sarif: three results" is "$(jq '.runs[0].results | length' out.txt)" 3
check "sarif: rule metadata" is "$(jq -r '.runs[0].tool.driver.rules[] | select(.id == "ruby-api-without-gvl") | [.name, .defaultConfiguration.level, (.help.markdown | startswith("# ruby-api-without-gvl"))] | @tsv' out.txt)" \
	"$(printf 'RubyApiWithoutGvl\terror\ttrue')"
check "sarif: ruleIndex points at the rule" is "$(jq -r '.runs[0] as $r | $r.results | map($r.tool.driver.rules[.ruleIndex].id == .ruleId) | all' out.txt)" true
check "sarif: location" is "$(jq -r '.runs[0].results[] | select(.locations[0].physicalLocation.region.startLine == 20) | .locations[0].physicalLocation | .artifactLocation.uri + " " + .artifactLocation.uriBaseId + " " + (.region.startColumn | tostring)' out.txt)" \
	"ext.c %SRCROOT% 2"
check "sarif: codeFlow from the release site to the finding" is "$(jq -r '.runs[0].results[] | select(.locations[0].physicalLocation.region.startLine == 20) | .codeFlows[0].threadFlows[0].locations | map(.location.physicalLocation.region.startLine | tostring) | join(",")' out.txt)" "28,20"
check "sarif: partialFingerprints without line numbers" is "$(jq -r '[.runs[0].results[].partialFingerprints."nogvlLint/v1" | length] | unique | .[0]' out.txt)" 32
check "sarif: fingerprints equal the JSON ones" is "$(jq -r '[.runs[0].results[].partialFingerprints."nogvlLint/v1"] | sort | join(",")' out.txt)" \
	"$("$BIN" --format json ext.c 2>/dev/null | jq -r '[.findings[].fingerprint] | sort | join(",")')"

run --format github ext.c
check "github: exit 1" is "$rc" 1
check "github: one command per finding" is "$(grep -c '^::error file=ext.c,line=[0-9]*,col=[0-9]*,title=' out.txt)" 3
check "github: nothing else on stdout" is "$(wc -l <out.txt | tr -d ' ')" 3
check "github: chain in the message" has out.txt "title=ruby-api-without-gvl::'rb_raise' raises.*%0Anote: ext.c:28:2: 'cb_b' passed to"

run --format json -o report.json ext.c
check "-o: exit 1" is "$rc" 1
check "-o: nothing on stdout" is "$(wc -c <out.txt | tr -d ' ')" 0
check "-o: file is the JSON" is "$(jq '.findings | length' report.json)" 3
check "-o: summary on stderr" has err.txt "3 findings"

run -o early.sarif --format sarif ext.c
check "-o before --format pairs with it" is "$(jq -r '.version' early.sarif)" "2.1.0"

run --format github --format sarif -o both.sarif --format json -o both.json ext.c
check "several formats: github on stdout" is "$(grep -c '^::error' out.txt)" 3
check "several formats: sarif file" is "$(jq '.runs[0].results | length' both.sarif)" 3
check "several formats: json file" is "$(jq '.findings | length' both.json)" 3

run --format json --format sarif ext.c
check "two formats on stdout: usage error" is "$rc" 2
check "two formats on stdout: says why" has err.txt "several --format outputs on stdout"
run --format xml ext.c
check "unknown format: exit 2" is "$rc" 2

run --format json -o /nonexistent/dir/x.json ext.c
check "unwritable -o: exit 2" is "$rc" 2

# machine output stays clean even with -v logs
run -v --format json ext.c
check "json with -v: stdout still parses" isjson out.txt

# parse failures are listed
printf 'this is not C at all {{{\n' >broken.c
run --format json --no-recover broken.c ext.c
check "json: parse failure listed" is "$(jq -r '.parse_failures[0].file + " " + .parse_failures[0].status' out.txt)" "broken.c errors"
run --format sarif --no-recover broken.c ext.c
check "sarif: parse failure as a notification" has out.txt "broken.c has"
finish
