/* Traps: the owning VALUE is kept alive, or needs no guard. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct ctx {
	unsigned char state[64];
	long n;
};

static const rb_data_type_t ctx_type = {
	"Ctx", {NULL, RUBY_TYPED_DEFAULT_FREE, NULL}, NULL, NULL, RUBY_TYPED_FREE_IMMEDIATELY,
};

struct step_args {
	struct ctx *ctx;
	const unsigned char *in;
	long len;
	VALUE keep;
};

void ctx_step(struct ctx *c, const unsigned char *in, long len);

static void *step_nogvl(void *p)
{
	struct step_args *a = p;
	ctx_step(a->ctx, a->in, a->len);
	return NULL;
}

/* Pointers into the receiver's own typed data: the method frame holds self. */
static VALUE step_self(VALUE self)
{
	struct step_args a = {0};
	struct ctx *c;
	TypedData_Get_Struct(self, struct ctx, &ctx_type, c);
	a.ctx = c;
	rb_thread_call_without_gvl(step_nogvl, &a, NULL, NULL);
	a.ctx = rb_check_typeddata(self, &ctx_type);
	rb_thread_call_without_gvl(step_nogvl, &a, NULL, NULL);
	a.ctx = DATA_PTR(self);
	rb_thread_call_without_gvl(step_nogvl, &a, NULL, NULL);
	return self;
}

/* A later real use keeps the VALUE alive: returning it, or using it again. */
static VALUE step_return(VALUE self, VALUE str)
{
	struct step_args a = {0};
	VALUE fz = rb_str_new_frozen(str);
	a.ctx = rb_check_typeddata(self, &ctx_type);
	a.in = (const unsigned char *)RSTRING_PTR(fz);
	a.len = RSTRING_LEN(fz);
	rb_thread_call_without_gvl(step_nogvl, &a, NULL, NULL);
	return fz;
}

static VALUE step_use(VALUE self, VALUE str)
{
	struct step_args a = {0};
	VALUE fz = rb_str_new_frozen(str);
	a.ctx = rb_check_typeddata(self, &ctx_type);
	a.in = (const unsigned char *)RSTRING_PTR(fz);
	a.len = RSTRING_LEN(fz);
	rb_thread_call_without_gvl(step_nogvl, &a, NULL, NULL);
	return LONG2NUM(RSTRING_LEN(fz));
}

/* The VALUE itself is stored in the data struct on the stack, next to its pointer. */
static VALUE step_in_struct(VALUE self, VALUE str)
{
	struct step_args a = {0};
	a.keep = rb_str_new_frozen(str);
	a.ctx = rb_check_typeddata(self, &ctx_type);
	a.in = (const unsigned char *)RSTRING_PTR(a.keep);
	a.len = RSTRING_LEN(a.keep);
	rb_thread_call_without_gvl(step_nogvl, &a, NULL, NULL);
	return self;
}

/* Copied into a local buffer: the callback never sees the string. */
static VALUE step_copied(VALUE self, VALUE str)
{
	struct step_args a = {0};
	unsigned char buf[64];
	long n = RSTRING_LEN(str) < 64 ? RSTRING_LEN(str) : 64;
	memcpy(buf, RSTRING_PTR(str), n);
	a.ctx = rb_check_typeddata(self, &ctx_type);
	a.in = buf;
	a.len = n;
	rb_thread_call_without_gvl(step_nogvl, &a, NULL, NULL);
	return self;
}

void Init_traps(void)
{
	VALUE c = rb_define_class("Stepper", rb_cObject);
	rb_define_method(c, "step_self", step_self, 0);
	rb_define_method(c, "step_return", step_return, 1);
	rb_define_method(c, "step_use", step_use, 1);
	rb_define_method(c, "step_in_struct", step_in_struct, 1);
	rb_define_method(c, "step_copied", step_copied, 1);
}
