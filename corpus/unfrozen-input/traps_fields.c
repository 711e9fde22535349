/* Traps: a C pointer read out of an object's struct is not a pointer into a
 * Ruby object, even when the struct belongs to an object made just now (the
 * mysql2 prepare shape). */
#include <ruby.h>
#include <ruby/thread.h>

struct stmt_wrapper {
	void *stmt;
	VALUE client;
};

static const rb_data_type_t stmt_type = {
	"Stmt", {NULL, RUBY_TYPED_DEFAULT_FREE, NULL}, NULL, NULL, RUBY_TYPED_FREE_IMMEDIATELY,
};

struct prepare_args {
	void *stmt;
	const char *sql;
	long len;
	int ok;
};

void *lib_stmt_init(void);
int lib_prepare(void *stmt, const char *sql, long len);

static void *prepare_nogvl(void *p)
{
	struct prepare_args *a = p;
	a->ok = lib_prepare(a->stmt, a->sql, a->len);
	return NULL;
}

static VALUE stmt_new(VALUE klass, VALUE sql)
{
	struct stmt_wrapper *w;
	VALUE obj = TypedData_Make_Struct(klass, struct stmt_wrapper, &stmt_type, w);
	struct prepare_args args;
	VALUE fz = rb_str_new_frozen(sql);
	w->stmt = lib_stmt_init();
	args.stmt = w->stmt;
	args.sql = RSTRING_PTR(fz);
	args.len = RSTRING_LEN(fz);
	args.ok = 0;
	rb_thread_call_without_gvl(prepare_nogvl, &args, NULL, NULL);
	RB_GC_GUARD(fz);
	return args.ok ? obj : Qnil;
}

void Init_traps_fields(void)
{
	VALUE c = rb_define_class("Stmt", rb_cObject);
	rb_define_singleton_method(c, "new", stmt_new, 1);
}
