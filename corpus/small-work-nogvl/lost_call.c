/* nogvl-lint-test: --enable debug-release-site */
/* A driver whose library header is not installed. The callback's only real
 * work, a blocking library call, sits in a declaration whose type clang
 * cannot complete (the type is also used through a pointer, so recovery can
 * only stub it as an opaque struct): clang drops the whole statement, and the
 * callback looks like it does nothing. A file that does not parse cleanly
 * proves nothing about what a callback does not do: no small-work-nogvl
 * here (mysql2's nogvl_read_query_result, pg's gvl_PQ*_skeleton wrappers,
 * RMagick's *_gvl helpers looked exactly like this). */
#include <ruby.h>
#include <ruby/thread.h>
#include <netclient.h> /* not installed anywhere */

struct fetch_args {
	NET_CONN *conn;
	NET_STATUS *last;
	double done_at;
};

static double now_seconds(void)
{
	return 0.0;
}

static void *fetch_nogvl(void *p)
{
	struct fetch_args *a = p;
	NET_STATUS st = net_read_result(a->conn); /* blocks on the network */
	a->done_at = now_seconds();
	return st.ok ? p : NULL;
}

VALUE fetch(VALUE self, NET_CONN *conn)
{
	struct fetch_args a = {conn, NULL, 0.0};
	if (!rb_thread_call_without_gvl(fetch_nogvl, &a, RUBY_UBF_IO, NULL)) /* expect: debug-release-site */
		return Qnil;
	return DBL2NUM(a.done_at);
}
