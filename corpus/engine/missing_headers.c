/* nogvl-lint-test: --enable debug-release-site,debug-no-gvl --disable small-work-nogvl */
/* A driver whose library headers are not installed: the types and functions
 * of the library are unknown to clang. The release sites must still be
 * found (recovery stubs), including one whose result is cast to an unknown
 * type and one whose callback is a library function without a body. */
#include <ruby.h>
#include <ruby/thread.h>
#include <dbclient.h> /* not installed anywhere */

struct query_args {
	DB_CONN *conn;
	const char *sql;
	DB_RESULT *result;
	int status;
};

static void *query_nogvl(void *p) /* expect: debug-no-gvl */
{
	struct query_args *a = p;
	a->status = db_send_query(a->conn, a->sql);
	if (a->status == DB_OK)
		a->result = db_store_result(a->conn);
	return a->result;
}

VALUE run_query(VALUE self, DB_CONN *conn)
{
	struct query_args a = {conn, "select 1", NULL, 0};
	DB_RESULT *res = (DB_RESULT *)rb_thread_call_without_gvl(query_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'query_nogvl' (direct) */
	rb_thread_call_without_gvl((void *(*)(void *))db_ping, conn, RUBY_UBF_IO, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'db_ping' (no body) (cast) */
	return res ? Qtrue : Qfalse;
}

#ifdef HAVE_RB_THREAD_BLOCKING_REGION
/* removed API, in a branch a modern build does not compile: not analysed */
VALUE old_path(VALUE self, DB_CONN *conn)
{
	return rb_thread_blocking_region((rb_blocking_function_t *)db_ping, conn, RUBY_UBF_IO, NULL);
}
#endif
