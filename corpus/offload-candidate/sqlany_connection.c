/* nogvl-lint-test: --enable debug-offload-verdict */
/* SQL Anywhere's C API allows one request at a time per connection
 * (rules/models/sqlanywhere.yml): a callback that makes, uses and frees a
 * connection of its own is an offload candidate; a commit on the connection a
 * Ruby object keeps is "cannot verify", naming that connection (another fiber
 * may use the object meanwhile), not the library call; a statement call stays
 * unmodelled (the rule is per connection, which a statement does not show).
 * The prototypes stand in for the SDK's sacapi.h. */
#include <ruby.h>
#include <ruby/thread.h>

typedef struct a_sqlany_connection a_sqlany_connection;
typedef struct a_sqlany_stmt a_sqlany_stmt;
typedef int sacapi_bool;
a_sqlany_connection *sqlany_new_connection(void);
void sqlany_free_connection(a_sqlany_connection *conn);
sacapi_bool sqlany_connect(a_sqlany_connection *conn, const char *str);
sacapi_bool sqlany_disconnect(a_sqlany_connection *conn);
sacapi_bool sqlany_execute_immediate(a_sqlany_connection *conn, const char *sql);
sacapi_bool sqlany_commit(a_sqlany_connection *conn);
sacapi_bool sqlany_fetch_next(a_sqlany_stmt *stmt);

struct probe {
	const char *opts; /* a copy the caller owns */
	int ok;
};

static void *probe_nogvl(void *p)
{
	struct probe *pr = p;
	a_sqlany_connection *conn = sqlany_new_connection();
	pr->ok = sqlany_connect(conn, pr->opts) && sqlany_execute_immediate(conn, "SELECT 1");
	sqlany_disconnect(conn);
	sqlany_free_connection(conn);
	return NULL;
}

VALUE sa_probe(VALUE self, VALUE opts)
{
	VALUE copy = rb_str_new_frozen(opts);
	struct probe pr = {StringValueCStr(copy), 0};
	rb_thread_call_without_gvl(probe_nogvl, &pr, RUBY_UBF_IO, NULL); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate; models: sqlany_new_connection (sqlanywhere), sqlany_connect (sqlanywhere) */
	RB_GC_GUARD(copy);
	return pr.ok ? Qtrue : Qfalse;
}

struct sa_conn {
	a_sqlany_connection *conn;
	a_sqlany_stmt *stmt;
};

static const rb_data_type_t sa_conn_type = {"SqlAny::Connection", {NULL, RUBY_TYPED_DEFAULT_FREE, NULL}, NULL, NULL, 0};

static void *commit_nogvl(void *p)
{
	return (void *)(intptr_t)sqlany_commit(p);
}

static void *fetch_nogvl(void *p)
{
	return (void *)(intptr_t)sqlany_fetch_next(p);
}

VALUE sa_commit(VALUE self)
{
	struct sa_conn *c;
	TypedData_Get_Struct(self, struct sa_conn, &sa_conn_type, c);
	rb_thread_call_without_gvl(commit_nogvl, c->conn, RUBY_UBF_IO, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: 'c->conn' is state kept in a Ruby object's C struct; other fibers can use that object during the call unless an in-progress guard stops them: cannot verify [missing: c->conn]; models: sqlany_commit (sqlanywhere) */
	return Qnil;
}

VALUE sa_fetch(VALUE self)
{
	struct sa_conn *c;
	TypedData_Get_Struct(self, struct sa_conn, &sa_conn_type, c);
	rb_thread_call_without_gvl(fetch_nogvl, c->stmt, RUBY_UBF_IO, NULL); /* expect: debug-offload-verdict */ /* expect-msg: 'fetch_nogvl' calls 'sqlany_fetch_next', which has no body here and is not a known thread-safe library call */
	return Qnil;
}
