#!/bin/sh
# The HTML report in a real headless browser (Debian's chromium, driven over
# the DevTools protocol by tests/browser/html_check.py): the page loads without
# console errors, exceptions or CSP violations, requests nothing, shows the
# JSON's counts and findings, and its filters work. Skipped (77) without
# chromium or python3; scripts/setup --test-tools installs chromium.
. "$(dirname "$0")/lib/common.sh"
checklist
if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP: python3 is not installed"
	exit 77
fi
CHECK="python3 $SRC/tests/browser/html_check.py"
$CHECK --self-test >selftest.txt 2>&1
src=$?
if [ "$src" -eq 77 ]; then
	cat selftest.txt
	exit 77
fi
cat selftest.txt
check "the checker catches console errors, exceptions and requests" is "$src" 0

# page: NAME ARGS...: one run writing NAME.html and NAME.json, then the browser check
page() {
	name=$1
	shift
	"$BIN" --format html -o "$name.html" --format json -o "$name.json" "$@" >/dev/null 2>err.txt
	lrc=$?
	if [ "$lrc" -gt 1 ]; then
		fail "$name: nogvl-lint exited $lrc"
		return
	fi
	$CHECK "$name.html" "$name.json" >"$name.check" 2>&1
	prc=$?
	sed "s/^/  [$name] /" "$name.check"
	check "$name: the page passes in the browser" is "$prc" 0
}

page example "$SRC/corpus/examples/digest_ext"
# every severity, many rules, suppressed findings, a multi-file gem
page corpus "$SRC/corpus"
. "$TESTDIR/lib/html_inject.sh"
write_injection_ext
page injection "$dir"
mkdir clean
cat >clean/c.c <<'CEOF'
#include <ruby.h>
void Init_c(void) { }
CEOF
page clean clean
finish
