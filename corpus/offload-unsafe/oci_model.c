/* nogvl-lint-test: --enable debug-offload-verdict */
/* The OCI model (rules/models/oci.yml): a statement executed without the GVL
 * on the service context the Ruby object owns, cancelled by a UBF that calls
 * OCIBreak. OCIStmtExecute is per-handle, and the handle is a field of the
 * object's typed data that #close frees with no guard: the inputs gate fails.
 * OCIBreak is documented as the asynchronous cancel of another thread's call,
 * but nothing says it does not depend on the thread that runs it: the UBF
 * gate stays "cannot verify", named by the call. The declarations are ours
 * (OCI is not in Debian). */
#include <ruby.h>
#include <ruby/thread.h>

typedef int sword;
typedef unsigned int ub4;
typedef struct OCISvcCtx OCISvcCtx;
typedef struct OCIStmt OCIStmt;
typedef struct OCIError OCIError;
typedef struct OCISnapshot OCISnapshot;
extern sword OCIStmtExecute(OCISvcCtx *svchp, OCIStmt *stmtp, OCIError *errhp, ub4 iters, ub4 rowoff,
			    const OCISnapshot *snap_in, OCISnapshot *snap_out, ub4 mode);
extern sword OCIBreak(void *hndlp, OCIError *errhp);
extern sword OCIHandleFree(void *hndlp, ub4 type);

struct conn {
	OCISvcCtx *svc;
	OCIStmt *stmt;
	OCIError *err;
};

static const rb_data_type_t conn_type = {"oci-conn", {0, 0, 0}, 0, 0, 0};

struct exec_arg {
	OCISvcCtx *svc;
	OCIStmt *stmt;
	OCIError *err;
	sword rv;
};

static void *exec_nogvl(void *p)
{
	struct exec_arg *a = p;
	a->rv = OCIStmtExecute(a->svc, a->stmt, a->err, 1, 0, NULL, NULL, 0);
	return NULL;
}

static void exec_ubf(void *p)
{
	struct exec_arg *a = p;
	OCIBreak(a->svc, a->err);
}

static VALUE conn_exec(VALUE self)
{
	struct conn *c = rb_check_typeddata(self, &conn_type);
	struct exec_arg a = {c->svc, c->stmt, c->err, 0};
	rb_thread_call_without_gvl(exec_nogvl, &a, exec_ubf, &a); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'exec_nogvl' uses 'c->svc' of struct conn */ /* expect-msg: unblocking function cannot verify: the unblocking function 'exec_ubf' calls 'OCIBreak' */ /* expect-msg: [missing: OCIBreak]; models: OCIStmtExecute (oci) */
	return INT2NUM(a.rv);
}

static VALUE conn_close(VALUE self)
{
	struct conn *c = rb_check_typeddata(self, &conn_type);
	OCIHandleFree(c->svc, 3);
	c->svc = NULL;
	return Qnil;
}

void Init_oci_model(void)
{
	VALUE k = rb_define_class("Conn", rb_cObject);
	rb_define_method(k, "exec", conn_exec, 0);
	rb_define_method(k, "close", conn_close, 0);
}
