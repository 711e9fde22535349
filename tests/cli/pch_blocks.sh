# The second preamble (src/frontend/pch.h): when a project header includes
# ruby.h and then system headers (ext/openssl's ossl.h), the files that reach
# ruby.h through it share a preamble that holds those system headers too,
# from the second file that asks for the same lines with the same arguments.
# Only a speed-up: facts and findings are the same with it, with Ruby's
# headers alone, and with no preamble. Its safety conditions: a file that
# defines, before the header, a macro those system headers mention does not
# use it; a header whose lines differ (another include order) is another
# preamble, not built for one file; a file whose directory holds one of the
# added headers does not use it.
. "$(dirname "$0")/lib/common.sh"
command -v jq >/dev/null 2>&1 || { echo "jq is not installed"; exit 77; }

G=$T/gem
mkdir -p "$G/ext/g" "$G/ext/h" "$G/ext/s/netinet"
cat >"$G/ext/g/g.h" <<'C'
#ifndef G_H
#define G_H
#include <ruby.h>
#include <ruby/thread.h>
#include <sys/socket.h>
#include <netinet/in.h>
#ifdef __linux__
#  include <sys/un.h>
#endif
#define G_PORT 80
static inline int g_family(void) { return AF_INET; }
#endif
C
for f in a b c; do
	cat >"$G/ext/g/$f.c" <<C
#include "g.h"
static void *${f}_work(void *p)
{
	struct sockaddr_in *sa = p;
	sa->sin_port = htons(G_PORT + g_family());
	return (void *)rb_str_new_cstr("x"); /* Ruby API without the GVL */
}
VALUE ${f}_run(VALUE self)
{
	struct sockaddr_in sa;
	return (VALUE)rb_thread_call_without_gvl(${f}_work, &sa, RUBY_UBF_IO, NULL);
}
C
done
# a define, before the header, of a name <netinet/in.h> mentions (and
# Ruby's headers do not): not the second preamble
cat >"$G/ext/g/d.c" <<'C'
#define INET_ADDRSTRLEN 16
#include "g.h"
static void *d_work(void *p) { return (void *)rb_ary_new(); }
VALUE d_run(VALUE self) { return (VALUE)rb_thread_call_without_gvl(d_work, NULL, RUBY_UBF_IO, NULL); }
C
# the same headers in another order, in one file: no preamble of its own
# (and d.c above: Ruby's headers alone)
cat >"$G/ext/h/h.h" <<'C'
#ifndef H_H
#define H_H
#include <ruby.h>
#include <ruby/thread.h>
#include <netinet/in.h>
#include <sys/socket.h>
#endif
C
cat >"$G/ext/h/e.c" <<'C'
#include "h.h"
static void *e_work(void *p) { return (void *)rb_ary_new(); }
VALUE e_run(VALUE self) { return (VALUE)rb_thread_call_without_gvl(e_work, NULL, RUBY_UBF_IO, NULL); }
C
# a directory holding its own netinet/in.h (found through -I<dir>): the
# second preamble stops before it (s2.c's holds <sys/socket.h> only), and
# the file still reads the directory's own
cp "$G/ext/g/g.h" "$G/ext/s/g.h"
printf '#define S_LOCAL_IN 1\n#include_next <netinet/in.h>\n' >"$G/ext/s/netinet/in.h"
for f in s1 s2; do
	printf '#include "g.h"\nint %s_local(void) { return S_LOCAL_IN; }\n' "$f" >"$G/ext/s/$f.c"
done

run -vv --jobs 1 --format json --fail-level none "$G"
expect_rc 0 "with the second preamble"
grep "one preamble" "$ERR" | sed "s|^nogvl-lint: $G/||; s/:.*//" | sort >"$T/used.txt"
printf 'ext/g/b.c\next/g/c.c\next/s/s2.c\n' >"$T/want.txt"
cmp -s "$T/used.txt" "$T/want.txt" || {
	cat "$T/used.txt"
	fail "expected b.c, c.c and s2.c (not the first of each, a.c and s1.c; not d.c, e.c) to use the second preamble"
}
grep -q "ext/g/d.c: defines INET_ADDRSTRLEN, which its project header's system includes mention" "$ERR" ||
	fail "d.c: expected the define before g.h to be named"
[ "$(jq '.sites | length' "$OUT")" = 5 ] || fail "expected 5 release sites"
[ "$(jq '[.findings[] | select(.rule == "ruby-api-without-gvl")] | length' "$OUT")" -ge 3 ] ||
	fail "expected the Ruby API calls without the GVL in a.c, b.c and c.c"

same_without_pch "$G"

# Ruby's headers alone (a test hook): the same facts, and no second preamble
NOGVL_LINT_TEST_NO_PCH_BLOCKS=1 "$BIN" -vv --jobs 1 --dump-facts "$G" >"$T/facts-ruby.txt" 2>"$T/err-ruby.txt"
if ! grep -q "one preamble" "$T/err-ruby.txt"; then
	cmp -s "$T/facts-on.txt" "$T/facts-ruby.txt" || { diff "$T/facts-on.txt" "$T/facts-ruby.txt" | head -30; fail "facts differ from Ruby's headers alone"; }
fi
exit 0
