/* nogvl-lint-test: --enable debug-release-site */
/* A file that does not parse as given: the library header is not installed
 * and its types and constants are unknown. Recovery stubs let the release
 * site and the callback still be analysed. */
#include <ruby.h>
#include <ruby/thread.h>
#include <nogvl_test_missing_library.h>

struct query {
	nlib_conn *conn;
	nlib_result *res;
	VALUE sql;
};

static void *query_nogvl(void *p)
{
	struct query *q = p;
	q->res = nlib_query(q->conn, NLIB_FLAG_DEFAULT);
	rb_str_resize(q->sql, 0); /* expect: ruby-api-without-gvl */
	return NULL;
}

VALUE recovery_query(VALUE self, VALUE sql)
{
	struct query q = {0};
	q.sql = sql;
	nlib_result *r = (nlib_result *)rb_thread_call_without_gvl(query_nogvl, &q, RUBY_UBF_IO, NULL); /* expect: debug-release-site */
	return r ? Qtrue : Qfalse;
}
