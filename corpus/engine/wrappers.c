/* nogvl-lint-test: --enable debug-release-site,debug-no-gvl --disable small-work-nogvl */
/* Callbacks reached through wrapper functions, a macro-generated wrapper
 * (pg style: one macro defines a struct, a skeleton and a wrapper per library
 * call), an ops table and a function-pointer field. */
#include <ruby.h>
#include <ruby/thread.h>

/* a plain wrapper: forwards its function-pointer parameter */
static void *without_gvl(void *(*fn)(void *), void *arg)
{
	return rb_thread_call_without_gvl(fn, arg, RUBY_UBF_IO, NULL); /* expect: debug-release-site */ /* expect-msg: wrapper site */
}

/* a wrapper of the wrapper */
static void *blocking(void *(*fn)(void *), void *arg)
{
	return without_gvl(fn, arg); /* expect: debug-release-site */ /* expect-msg: wrapper site */
}

static void *sleep_cb(void *p) /* expect: debug-no-gvl */
{
	return p;
}

static void *read_cb(void *p) /* expect: debug-no-gvl */
{
	return p;
}

/* pg-style generated wrappers */
static int lib_connect(int port) { return port + 1; } /* expect: debug-no-gvl */
static int lib_query(int q) { return q * 2; } /* expect: debug-no-gvl */

#define DEFINE_GVL_WRAPPER(name)                                                       \
	struct name##_params {                                                         \
		int in;                                                                \
		int out;                                                               \
	};                                                                             \
	static void *gvl_##name##_skeleton(void *data)                                 \
	{                                                                              \
		struct name##_params *p = data;                                        \
		p->out = name(p->in);                                                  \
		return NULL;                                                           \
	}                                                                              \
	static int gvl_##name(int in)                                                  \
	{                                                                              \
		struct name##_params params = {in, 0};                                 \
		rb_thread_call_without_gvl(gvl_##name##_skeleton, &params, NULL, NULL); \
		return params.out;                                                     \
	}

DEFINE_GVL_WRAPPER(lib_connect) /* expect: debug-release-site, debug-no-gvl */
DEFINE_GVL_WRAPPER(lib_query) /* expect: debug-release-site, debug-no-gvl */

/* an ops table */
struct io_ops {
	const char *name;
	void *(*run)(void *);
};

static void *ops_read(void *p) /* expect: debug-no-gvl */
{
	return p;
}

static void *ops_write(void *p) /* expect: debug-no-gvl */
{
	return p;
}

static const struct io_ops read_ops = {"read", ops_read};
static const struct io_ops write_ops = {.name = "write", .run = ops_write};

static VALUE run_ops(const struct io_ops *ops, void *arg)
{
	rb_thread_call_without_gvl(ops->run, arg, NULL, NULL); /* expect: debug-release-site */ /* expect-msg: callback 'ops_read'|'ops_write' (struct field) */
	return Qnil;
}

VALUE entry(VALUE self)
{
	int x = 0;
	blocking(sleep_cb, &x); /* expect: debug-release-site */ /* expect-msg: via 'blocking', callback 'sleep_cb' (direct), ubf RUBY_UBF_IO */
	without_gvl(read_cb, &x); /* expect: debug-release-site */ /* expect-msg: callback 'read_cb' (direct) */
	gvl_lib_connect(5);
	gvl_lib_query(7);
	run_ops(&read_ops, &x);
	run_ops(&write_ops, &x);
	return INT2FIX(x);
}
