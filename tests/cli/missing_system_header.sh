# Issue 14: a gem whose library headers are not installed is incomplete, not
# clean. A small gem of ours uses libpq (pkg_config("libpq"), <libpq-fe.h>);
# with /usr/include/postgresql hidden (a private mount namespace with an
# empty directory bound over it) the run exits 3 and names libpq-fe.h. Skips
# when libpq-fe.h is not installed or mount namespaces are not permitted.
. "$(dirname "$0")/lib/common.sh"
checklist

PGINC=/usr/include/postgresql
if [ ! -f "$PGINC/libpq-fe.h" ]; then
	echo "SKIP: $PGINC/libpq-fe.h is not installed (libpq-dev)"
	exit 77
fi
if ! command -v unshare >/dev/null 2>&1 || ! unshare -m true 2>/dev/null && ! unshare -rm true 2>/dev/null; then
	echo "SKIP: unshare -m is not permitted here"
	exit 77
fi
UNSHARE="unshare -m"
unshare -m true 2>/dev/null || UNSHARE="unshare -rm"

mkdir -p gem/ext/pqx empty
: >gem/pqx.gemspec
cat >gem/ext/pqx/extconf.rb <<'EOR'
require "mkmf"
pkg_config("libpq")
have_header("libpq-fe.h")
create_makefile("pqx")
EOR
cat >gem/ext/pqx/pqx.c <<'CEOF'
#include <ruby.h>
#include <ruby/thread.h>
#include <libpq-fe.h>

struct q { PGconn *conn; const char *sql; PGresult *res; };

static void *exec_nogvl(void *p)
{
	struct q *q = p;
	q->res = PQexec(q->conn, q->sql);
	return NULL;
}

VALUE pqx_exec(VALUE self, VALUE conn)
{
	struct q q = {(PGconn *)NUM2ULONG(conn), "SELECT 1", NULL};
	rb_thread_call_without_gvl(exec_nogvl, &q, RUBY_UBF_IO, NULL);
	return q.res ? Qtrue : Qfalse;
}
CEOF

# control: with the headers visible, nothing is missing
# (PQexec under RUBY_UBF_IO is an uninterruptible-blocking warning: not what this test is about)
run --disable uninterruptible-blocking --format json -o visible.json gem/ext
check "headers visible: nothing missing" is "$(jq '.summary.files_missing_headers' visible.json)" 0
check "... no parse error" is "$(jq '.summary.files_with_errors' visible.json)" 0
check "... exit 0" is "$rc" 0

# hidden: exit 3, libpq-fe.h named in the summary and in JSON
cat >hidden.sh <<EOS
mount --bind "$T/empty" "$PGINC" || exit 99
"$BIN" --disable uninterruptible-blocking --format json -o "$T/hidden.json" "$T/gem/ext" >"$T/out.txt" 2>"$T/err.txt"
EOS
$UNSHARE sh hidden.sh
rc=$?
if [ "$rc" -eq 99 ]; then
	echo "SKIP: the bind mount is not permitted here"
	exit 77
fi
check "headers hidden: exit 3" is "$rc" 3
check "... libpq-fe.h named in the summary" has err.txt "missing header 'libpq-fe.h'"
check "... with the hint" has err.txt "hint: install the library's -dev package"
check "... and in JSON" is "$(jq -r '.summary.missing_headers | join(",")' hidden.json)" libpq-fe.h
check "... the directory is back outside the namespace" test -f "$PGINC/libpq-fe.h"

finish
