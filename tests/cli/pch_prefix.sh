# The shared Ruby-header preamble (src/frontend/pch.h) must not change what a
# file means. A file that includes a system header before ruby.h (here
# <sys/socket.h>) reads it, without the preamble, before ruby/config.h
# defines _GNU_SOURCE: glibc's features.h is read once, so accept4 is not
# declared and connect takes a plain pointer; with the preamble it would be
# the other way round. Such files share a preamble that includes the same
# system headers first (from the second one on: sock2.c); one that reaches a
# header through -I that does not include ruby.h first, and one that defines
# a feature macro first are parsed the ordinary way. A system header in a
# conditional: when the
# parse with the preamble skipped it (#ifdef _WIN32) the preamble is kept,
# when it read it (#ifdef __linux__) the file is parsed again without. The
# facts and findings are the same with and without the preamble.
. "$(dirname "$0")/lib/common.sh"
command -v jq >/dev/null 2>&1 || { echo "jq is not installed"; exit 77; }

G=$T/gem
mkdir -p "$G/ext/p"
for f in sock sock2 cond viaconf; do
	case $f in
	sock | sock2) head='#include <sys/socket.h>' ;;
	cond) head='#ifdef __linux__
#include <sys/socket.h>
#endif' ;;
	viaconf) head='#include <pconf.h>' ;;
	esac
	cat >"$G/ext/p/$f.c" <<C
$head
#include <ruby.h>
#include <ruby/thread.h>
struct ${f}_conn { int fd; int r; };
static void *${f}_accept(void *p)
{
	struct ${f}_conn *c = p;
	c->r = accept4(c->fd, NULL, NULL, 0); /* declared only under _GNU_SOURCE */
	return NULL;
}
VALUE ${f}_run(VALUE self, VALUE fd)
{
	struct ${f}_conn c = {NUM2INT(fd), 0};
	rb_thread_call_without_gvl(${f}_accept, &c, RUBY_UBF_IO, NULL);
	return INT2NUM(c.r);
}
C
done
# a project header found through -I (the file's directory) that includes a
# system header and not ruby.h
cat >"$G/ext/p/pconf.h" <<'C'
#ifndef PCONF_H
#define PCONF_H
#include <sys/socket.h>
#endif
C
cat >"$G/ext/p/gnu.c" <<'C'
#define _GNU_SOURCE 1
#include <ruby.h>
#include <ruby/thread.h>
static void *gwork(void *p) { return p; }
VALUE g_run(VALUE self) { return (VALUE)rb_thread_call_without_gvl(gwork, NULL, RUBY_UBF_IO, NULL); }
C
for f in a b; do
	cat >"$G/ext/p/$f.c" <<C
#ifdef _WIN32
#include <winsock2.h>
#else
#define P_UNIX 1
#endif
#include <ruby.h>
#include <ruby/thread.h>
static void *${f}_work(void *p) { return (void *)rb_ary_new(); /* Ruby API without the GVL */ }
VALUE ${f}_run(VALUE self) { return (VALUE)rb_thread_call_without_gvl(${f}_work, NULL, RUBY_UBF_IO, NULL); }
C
done

run -vv --jobs 1 --format json --fail-level none "$G"
expect_rc 0 "with the preamble"
grep -q "precompiled Ruby headers: 2 built, 3 files used them, 1 fell back, 3 not eligible" "$ERR" ||
	fail "expected a.c and b.c to share Ruby's preamble, sock2.c to use one with <sys/socket.h> first, cond.c to fall back, sock.c, viaconf.c and gnu.c not to use one"
grep -q "sock2.c: a preamble with system headers besides Ruby's" "$ERR" || fail "expected sock2.c to build the preamble with <sys/socket.h> first"
grep -q "cond.c: an #include in a conditional before ruby.h was read; parsed without the preamble" "$ERR" ||
	fail "expected cond.c's parse with the preamble to be dropped"
[ "$(jq '.sites | length' "$OUT")" = 7 ] || fail "expected 7 release sites"
same_without_pch "$G"
# the files this is about: accept4 without _GNU_SOURCE is an implicit declaration
grep -q "call rg=0 accept4 origin=0" "$T/facts-off.txt" || fail "expected accept4 undeclared without the preamble"
[ "$(awk '/^TU /{tu=$2; sub(".*/", "", tu)} /call rg=0 accept4 origin=0/{print tu}' "$T/facts-on.txt" | sort -u | tr '\n' ' ')" = "cond.c sock.c sock2.c viaconf.c " ] ||
	fail "expected accept4 undeclared in sock.c, sock2.c, cond.c and viaconf.c with the preamble"
grep -q "accept4 origin=3" "$T/facts-on.txt" && fail "accept4 declared: a system header was read after ruby.h"
exit 0
