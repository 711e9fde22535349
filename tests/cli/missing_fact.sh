#!/bin/sh
# Every release site ends safe, unsafe, or "cannot verify" with one named
# missing fact (verdict.h): the JSON's offload.missing_fact and the
# --explain-callback "next step" line name the library function to model,
# the function pointer to resolve, the header to install.
. "$(dirname "$0")/lib/common.sh"
checklist

cp -r "$SRC/tests/data/missing_fact" ext
run --no-progress --format json ext
check "json: exit 0 (only a note)" is "$rc" 0
check "json: parses" isjson out.txt
fact() { # fact CALLBACK FIELD
	jq -r --arg cb "$1" --arg f "$2" '.sites[] | select(.callback.text == $cb) | .offload.missing_fact[$f] // "null"' out.txt
}
state() { jq -r --arg cb "$1" '.sites[] | select(.callback.text == $cb) | .offload.verdict' out.txt; }
check "library call: cannot verify" is "$(state lib_cb)" "cannot verify"
check "library call: the model to add" is "$(fact lib_cb kind):$(fact lib_cb name)" "library model:frob_compress"
check "library call: where" is "$(fact lib_cb line)" 19
check "pointer: the pointer to resolve" is "$(fact ptr_cb kind):$(fact ptr_cb name)" "function pointer:hook"
check "header: the header to install" is "$(fact hdr_cb kind):$(fact hdr_cb name)" \
	"header:nogvl_test_missing_lib.h"
check "header: wins over the library calls the stubs made" is "$(fact hdr_cb gate)" "opaque callees"
check "decided site: candidate, no missing fact" is "$(state sum_cb):$(jq -c '.sites[] | select(.callback.text == "sum_cb") | .offload.missing_fact' out.txt)" "candidate:null"
check "every cannot-verify site has a missing fact, every other none" is \
	"$(jq '[.sites[] | select((.offload.verdict | test("cannot verify")) != (.offload.missing_fact != null))] | length' out.txt)" 0

run --no-progress --explain-callback lib_cb ext
check "explain: exit 0" is "$rc" 0
check "explain: the next step names the model" has out.txt "^  next step: add a library model for 'frob_compress'"
run --no-progress --explain-callback hdr_cb ext
check "explain: the next step names the header" has out.txt "^  next step: install the header 'nogvl_test_missing_lib.h'"
run --no-progress --explain-callback sum_cb ext
check "explain: no next step for a candidate" hasnt out.txt "next step"
run --no-progress --explain-callback twice_cb ext
check "explain: two calls spelled at one place are one line of evidence" is \
	"$(grep -c "^      .*macro_twice.c:26:2: 'twice_cb' calls 'frob_expand'" out.txt)" 1
check "explain: and no phantom 'more' item" hasnt out.txt "more cannot-verify item"

# evidence of no other kind (a UBF that takes a lock) is named by the call it
# names, in the JSON's missing fact, its gate evidence and the text
mkdir ubf && cp "$SRC/tests/data/missing_fact_ubf/ubf_lock.c" ubf/
run --no-progress --format json ubf
check "evidence: json parses" isjson out.txt
check "evidence: cannot verify, named by the UBF's call" is \
	"$(jq -r '.sites[0].offload | "\(.verdict):\(.missing_fact.kind):\(.missing_fact.name):\(.missing_fact.gate)"' out.txt)" \
	"cannot verify:evidence:pthread_mutex_lock:unblocking function"
check "evidence: the gate's evidence line names it too" is \
	"$(jq -r '[.sites[0].offload.gates[] | select(.gate == "unblocking function") | .evidence[].missing_fact] | join(",")' out.txt)" \
	"pthread_mutex_lock"
run --no-progress --enable debug-offload-verdict ubf
check "evidence: text says it" has out.txt "unblocking function cannot verify: .*\[missing: pthread_mutex_lock\]"
run --no-progress --enable debug-offload-verdict --format sarif ubf
check "evidence: sarif says it" is "$(jq -r '[.runs[0].results[] | select(.ruleId == "debug-offload-verdict") | .message.text | test("\\[missing: pthread_mutex_lock\\]")] | any' out.txt)" true
finish
