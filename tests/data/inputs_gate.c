/* Sites for the inputs/outputs offload gates (tests/unit/test_inputs.c). Each
 * function's name says the expected gate states. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>

struct args {
	const char *p;
	long n;
	char *out;
	void *ctx;
};

void work(const char *p, long n, char *out, void *ctx);

static void *cb(void *x)
{
	struct args *a = x;
	work(a->p, a->n, a->out, a->ctx);
	return NULL;
}

static const rb_data_type_t t = {"T", {NULL, RUBY_TYPED_DEFAULT_FREE, NULL}, NULL, NULL, 0};

VALUE inputs_pass_frozen(VALUE self, VALUE s)
{
	struct args a = {0};
	char out[8];
	VALUE fz = rb_str_new_frozen(s);
	a.p = RSTRING_PTR(fz);
	a.n = RSTRING_LEN(fz);
	a.out = out;
	rb_nogvl(cb, &a, NULL, NULL, 0);
	RB_GC_GUARD(fz);
	return rb_str_new(out, 8);
}

VALUE inputs_fail_shared(VALUE self, VALUE s)
{
	struct args a = {0};
	char out[8];
	a.p = RSTRING_PTR(s);
	a.n = RSTRING_LEN(s);
	a.out = out;
	rb_nogvl(cb, &a, NULL, NULL, 0);
	RB_GC_GUARD(s);
	return rb_str_new(out, 8);
}

VALUE inputs_fail_unguarded(VALUE self, VALUE s)
{
	struct args a = {0};
	char out[8];
	VALUE fz = rb_str_new_frozen(s);
	a.p = RSTRING_PTR(fz);
	a.out = out;
	rb_nogvl(cb, &a, NULL, NULL, 0);
	return rb_str_new(out, 8);
}

VALUE inputs_unknown_receiver(VALUE self)
{
	struct args a = {0};
	char out[8];
	a.ctx = rb_check_typeddata(self, &t);
	a.out = out;
	rb_nogvl(cb, &a, NULL, NULL, 0);
	return rb_str_new(out, 8);
}

static void *run_from_caller(struct args *a)
{
	return rb_nogvl(cb, a, NULL, NULL, 0);
}

VALUE inputs_unknown_caller(VALUE self)
{
	struct args a = {0};
	char out[8];
	a.out = out;
	run_from_caller(&a);
	return rb_str_new(out, 8);
}

static char shared_out[64];

VALUE outputs_fail_static(VALUE self)
{
	struct args a = {0};
	a.out = shared_out;
	rb_nogvl(cb, &a, NULL, NULL, 0);
	return rb_str_new(shared_out, 8);
}

static void *nothing(void *x)
{
	(void)x;
	return NULL;
}

VALUE inputs_pass_no_data(VALUE self)
{
	rb_nogvl(nothing, NULL, NULL, NULL, 0);
	return self;
}

struct handle_holder {
	void *handle;
};

VALUE inputs_unknown_object_state(VALUE self)
{
	struct args a = {0};
	char out[8];
	struct handle_holder *h = rb_check_typeddata(self, &t);
	a.ctx = h->handle;
	a.out = out;
	rb_nogvl(cb, &a, NULL, NULL, 0);
	return rb_str_new(out, 8);
}

/* Called through a pointer too: not every caller is known. */
static void *run_opaque(struct args *a)
{
	return rb_nogvl(cb, a, NULL, NULL, 0);
}

void *(*run_opaque_ptr)(struct args *) = run_opaque;

/* A stub that takes the pointer itself (ruby-pg's gvl_PQexec shape). */
static void *run_stub(const char *p, long n)
{
	struct args a = {0};
	char out[8];
	a.p = p;
	a.n = n;
	a.out = out;
	return rb_nogvl(cb, &a, NULL, NULL, 0);
}

VALUE stub_caller(VALUE self, VALUE s)
{
	run_stub(RSTRING_PTR(s), RSTRING_LEN(s));
	return s;
}

#include <pthread.h>

struct locked_args {
	pthread_mutex_t *mu;
	long n;
};

static void *locked_cb(void *x)
{
	struct locked_args *a = x;
	a->n++;
	return NULL;
}

/* A static mutex is shared on purpose: not an output buffer. */
VALUE outputs_pass_static_mutex(VALUE self)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct locked_args a = {&mu, 0};
	rb_nogvl(locked_cb, &a, NULL, NULL, 0);
	return LONG2NUM(a.n);
}
