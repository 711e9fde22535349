/* Owners kept alive by something else: an options hash the caller holds, the
 * receiver even when C code calls the method directly. And the converse: a
 * data object only this function holds. */
#include <ruby.h>
#include <ruby/thread.h>

struct diff_opts {
	const char *old_prefix;
	const char *new_prefix;
	int context;
};

struct diff_args {
	struct diff_opts *opts;
	void *repo;
	int error;
};

int lib_diff(void *repo, const struct diff_opts *opts);

static void *diff_nogvl(void *p)
{
	struct diff_args *a = p;
	a->error = lib_diff(a->repo, a->opts);
	return NULL;
}

/* The rugged shape: option strings read out of a hash argument in a helper.
 * The hash keeps them alive (no missing-gc-guard); another thread can still
 * change them (unfrozen-input). */
static void parse_opts(struct diff_opts *o, VALUE rb_options)
{
	VALUE v = rb_hash_aref(rb_options, ID2SYM(rb_intern("old_prefix")));
	if (!NIL_P(v))
		o->old_prefix = StringValueCStr(v); /* expect: unfrozen-input */ /* expect-msg: comes from 'rb_hash_aref' */
	v = rb_hash_aref(rb_options, ID2SYM(rb_intern("new_prefix")));
	if (!NIL_P(v))
		o->new_prefix = StringValueCStr(v); /* expect: unfrozen-input */
}

struct repo {
	void *handle;
};

static const rb_data_type_t repo_type = {
	"Repo", {NULL, RUBY_TYPED_DEFAULT_FREE, NULL}, NULL, NULL, RUBY_TYPED_FREE_IMMEDIATELY,
};

static VALUE repo_diff(VALUE self, VALUE rb_options)
{
	struct diff_opts opts = {0};
	struct diff_args args;
	struct repo *r;
	TypedData_Get_Struct(self, struct repo, &repo_type, r);
	parse_opts(&opts, rb_options);
	args.opts = &opts;
	args.repo = r->handle;
	args.error = 0;
	rb_thread_call_without_gvl(diff_nogvl, &args, NULL, NULL);
	return INT2NUM(args.error);
}

/* The mini_racer shape: a method that C code also calls with an object it just
 * made. Its typed data is the receiver's; nothing to guard. */
void lib_close(void *handle);

static void *close_nogvl(void *p)
{
	struct repo *r = p;
	lib_close(r->handle);
	return NULL;
}

static VALUE repo_close(VALUE self)
{
	struct repo *r;
	TypedData_Get_Struct(self, struct repo, &repo_type, r);
	rb_thread_call_without_gvl(close_nogvl, r, NULL, NULL);
	return Qnil;
}

static VALUE repo_alloc(VALUE klass)
{
	struct repo *r;
	return TypedData_Make_Struct(klass, struct repo, &repo_type, r);
}

static VALUE repo_open_and_close(VALUE klass)
{
	VALUE obj = repo_alloc(klass);
	repo_close(obj);
	return obj;
}

/* A data object made by a Ruby call and used only through its C struct. */
static VALUE repo_scratch_close(VALUE klass)
{
	VALUE obj = rb_funcall(klass, rb_intern("new"), 0);
	struct repo *r = rb_check_typeddata(obj, &repo_type);
	rb_thread_call_without_gvl(close_nogvl, r, NULL, NULL); /* expect: missing-gc-guard */ /* expect-msg: RB_GC_GUARD(obj) */
	return Qnil;
}

void Init_held_elsewhere(void)
{
	VALUE c = rb_define_class("Repo", rb_cObject);
	rb_define_alloc_func(c, repo_alloc);
	rb_define_method(c, "diff", repo_diff, 1);
	rb_define_method(c, "close", repo_close, 0);
	rb_define_singleton_method(c, "open_and_close", repo_open_and_close, 0);
	rb_define_singleton_method(c, "scratch_close", repo_scratch_close, 0);
}
