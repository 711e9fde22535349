#!/bin/sh
# C++: the missing fact of data that holds a member of the object a method
# runs on (this->m) points at the member as written in the data, not at the
# method's first use of any member (where the extraction made its hidden
# `this` parameter).
. "$(dirname "$0")/lib/common.sh"
checklist

cp "$SRC/tests/data/cxx_this/member.cpp" .
run --no-progress --format json member.cpp
check "json: parses" isjson out.txt
fact() { jq -r ".sites[0].offload.missing_fact.$1" out.txt; }
check "the fact names the member written" is "$(fact name)" "this->slots"
check "at the member written (line 32, column 12), not the first member used (line 30)" is \
	"$(fact line):$(fact column)" "32:12"
run --no-progress --explain-callback fill_nogvl member.cpp
check "explain: the evidence at the member written" has out.txt "member.cpp:32:12: the callback's data holds 'this->slots'"
finish
