#!/bin/sh
# SARIF output checked by the official validator (schema + GitHub's ingestion
# rules): results with call chains, several rules, a parse failure
# notification, a baseline run. Skipped (77) when the validator is not
# installed: scripts/setup --test-tools installs it, and scripts/test does that.
. "$(dirname "$0")/lib/common.sh"
checklist
. "$TESTDIR/lib/sarif.sh"
if ! sarif_validator_found; then
	echo "SKIP: the SARIF validator is not installed (scripts/setup --test-tools)"
	exit 77
fi
write_ext
cat >removed.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>
static void *work(void *p) { return p; }
static VALUE m(VALUE self)
{
	rb_nogvl(work, NULL, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE);
	return Qnil;
}
static void old(void) { TRAP_BEG; TRAP_END; }
void Init_removed(void) { rb_define_method(rb_cObject, "m", m, 0); old(); }
CEOF
printf 'int broken( {\n' >broken.c

run --format sarif -o all.sarif --no-recover ext.c removed.c broken.c
check "findings written" is "$(jq '.runs[0].results | length' all.sarif)" 6
check "all findings: validates" sarif_validate all.sarif

run --format sarif -o clean.sarif removed.c --disable removed-api,offload-flag-unguarded
check "no findings: validates" sarif_validate clean.sarif
check "no findings: empty results" is "$(jq -c '.runs[0].results' clean.sarif)" "[]"

run --write-baseline b.json ext.c
sed -i '/(void)p;/a\	rb_gc();' ext.c
run --format sarif -o base.sarif --baseline b.json ext.c
check "baseline run: validates" sarif_validate base.sarif

run --format sarif -o debug.sarif --enable debug-release-site ext.c
check "debug rules: validates" sarif_validate debug.sarif

# the unit test's SARIF with fixes (tests/unit/test_output.c writes it when asked)
if [ -x "$(dirname "$BIN")/tests/test_output" ]; then
	NOGVL_SARIF_OUT="$T/fixes.sarif" "$(dirname "$BIN")/tests/test_output" >/dev/null 2>&1
	check "fixes and notes: validates" sarif_validate fixes.sarif
fi
finish
