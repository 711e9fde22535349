/* nogvl-lint-test: --enable debug-offload-verdict */
/* A per-handle library call in the callback (thread_safe: per_handle): the
 * handle is followed out of the callback's data struct to where it is made.
 * A context the method makes itself two helper calls above the release, and
 * never hands to anyone else, is this call's own (a candidate); one that is
 * stored where other code can reach it, handed to Ruby, or read from a Ruby
 * object's C struct is not. Prototypes stand in for zstd.h. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

typedef struct ZSTD_CCtx_s ZSTD_CCtx;
typedef struct {
	const void *src;
	size_t size;
	size_t pos;
} ZSTD_inBuffer;
typedef struct {
	void *dst;
	size_t size;
	size_t pos;
} ZSTD_outBuffer;
ZSTD_CCtx *ZSTD_createCCtx(void);
size_t ZSTD_freeCCtx(ZSTD_CCtx *c);
size_t ZSTD_CCtx_setParameter(ZSTD_CCtx *c, int param, int value);
size_t ZSTD_compressStream2(ZSTD_CCtx *c, ZSTD_outBuffer *out, ZSTD_inBuffer *in, int end);

struct pack_args {
	ZSTD_CCtx *ctx;
	ZSTD_inBuffer *in;
	ZSTD_outBuffer *out;
	size_t result;
};

static void *pack_nogvl(void *data)
{
	struct pack_args *args = data;
	args->result = ZSTD_compressStream2(args->ctx, args->out, args->in, 2);
	return NULL;
}

/* the helper that fills the struct and releases: `ctx` is its parameter */
static size_t pack_chunk(ZSTD_CCtx *ctx, unsigned char *src, size_t n, unsigned char *dst, size_t cap)
{
	ZSTD_inBuffer in = {.src = src, .size = n, .pos = 0};
	ZSTD_outBuffer out = {.dst = dst, .size = cap, .pos = 0};
	struct pack_args args = {.ctx = ctx, .in = &in};
	args.out = &out;
	rb_thread_call_without_gvl(pack_nogvl, &args, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: candidate (withheld: cleanup-not-ensured, the cleanup at line 74 runs outside rb_ensure); models: ZSTD_compressStream2 (zstd) */ /* (pack frees its buffers two frames up, outside rb_ensure) */
	return args.result;
}

static int configure(ZSTD_CCtx *c, int level) /* uses the handle, keeps nothing */
{
	return (int)ZSTD_CCtx_setParameter(c, 100, level);
}

static size_t pack_all(ZSTD_CCtx *ctx, unsigned char *src, size_t n, unsigned char *dst, size_t cap)
{
	return pack_chunk(ctx, src, n, dst, cap);
}

/* the method makes the context two calls above the release: its own */
static VALUE pack(VALUE self, VALUE len)
{
	size_t n = (size_t)(NUM2LONG(len) & 255);
	unsigned char *src = calloc(1, 256), *dst = calloc(1, 512);
	ZSTD_CCtx *ctx = ZSTD_createCCtx();
	(void)self;
	configure(ctx, 3);
	size_t r = pack_all(ctx, src, n, dst, 512);
	ZSTD_freeCCtx(ctx);
	free(src); /* expect: cleanup-not-ensured */
	free(dst);
	return SIZET2NUM(r);
}

/* trap: the same helper, but this caller also parks the context in a
 * static where any other call can find it */
static ZSTD_CCtx *last_ctx;

struct shared_args {
	ZSTD_CCtx *ctx;
	ZSTD_inBuffer *in;
	ZSTD_outBuffer *out;
	size_t result;
};

static void *shared_nogvl(void *data)
{
	struct shared_args *args = data;
	args->result = ZSTD_compressStream2(args->ctx, args->out, args->in, 2);
	return NULL;
}

static size_t shared_chunk(ZSTD_CCtx *ctx, unsigned char *buf, size_t n)
{
	ZSTD_inBuffer in = {.src = buf, .size = n, .pos = 0};
	ZSTD_outBuffer out = {.dst = buf + n, .size = n, .pos = 0};
	struct shared_args args = {.ctx = ctx, .in = &in, .out = &out};
	rb_thread_call_without_gvl(shared_nogvl, &args, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: its handle comes from 'ctx' (in 'pack_kept'), made there but also stored or handed out: */
	return args.result;
}

static VALUE pack_kept(VALUE self)
{
	unsigned char *buf = calloc(1, 512);
	ZSTD_CCtx *ctx = ZSTD_createCCtx();
	(void)self;
	last_ctx = ctx;
	size_t r = shared_chunk(ctx, buf, 256);
	free(buf); /* expect: cleanup-not-ensured */
	return SIZET2NUM(r);
}

/* trap: a context kept in a Ruby object's C struct, fetched through a getter */
struct packer {
	ZSTD_CCtx *ctx;
	long level;
};
static const rb_data_type_t packer_type = {"packer", {NULL, NULL, NULL}, NULL, NULL, 0};

static ZSTD_CCtx *packer_ctx(VALUE obj)
{
	struct packer *pk;
	TypedData_Get_Struct(obj, struct packer, &packer_type, pk);
	return pk->ctx;
}

struct obj_args {
	ZSTD_CCtx *ctx;
	ZSTD_inBuffer *in;
	ZSTD_outBuffer *out;
	size_t result;
};

static void *obj_nogvl(void *data)
{
	struct obj_args *args = data;
	args->result = ZSTD_compressStream2(args->ctx, args->out, args->in, 2);
	return NULL;
}

static VALUE packer_write(VALUE self)
{
	unsigned char buf[512];
	ZSTD_inBuffer in = {.src = buf, .size = 256, .pos = 0};
	ZSTD_outBuffer out = {.dst = buf + 256, .size = 256, .pos = 0};
	struct obj_args args;
	memset(buf, 0, sizeof(buf));
	args.ctx = packer_ctx(self);
	args.in = &in;
	args.out = &out;
	rb_thread_call_without_gvl(obj_nogvl, &args, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'obj_nogvl' uses 'pk->ctx' of struct packer, a Ruby object's C struct, with no in-progress flag or mutex held across the call */ /* (the inputs gate follows the returned handle into packer_ctx; the object-state gate finds no guard) */
	return SIZET2NUM(args.result);
}

/* trap: the context is made here, but handed to Ruby (wrapped in an object
 * other code can reach) before the call */
struct wrap_args {
	ZSTD_CCtx *ctx;
	ZSTD_inBuffer *in;
	ZSTD_outBuffer *out;
	size_t result;
};

static void *wrap_nogvl(void *data)
{
	struct wrap_args *args = data;
	args->result = ZSTD_compressStream2(args->ctx, args->out, args->in, 2);
	return NULL;
}

static VALUE pack_wrapped(VALUE self)
{
	unsigned char buf[512];
	ZSTD_inBuffer in = {.src = buf, .size = 256, .pos = 0};
	ZSTD_outBuffer out = {.dst = buf + 256, .size = 256, .pos = 0};
	ZSTD_CCtx *ctx = ZSTD_createCCtx();
	VALUE holder = rb_data_typed_object_wrap(rb_cObject, ctx, &packer_type);
	struct wrap_args args = {.ctx = ctx, .in = &in, .out = &out};
	memset(buf, 0, sizeof(buf));
	rb_iv_set(self, "@holder", holder);
	rb_thread_call_without_gvl(wrap_nogvl, &args, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: its handle comes from 'ctx' (in 'pack_wrapped'), made there but also stored or handed out: */
	return SIZET2NUM(args.result);
}

void Init_handle_flows(void)
{
	rb_define_method(rb_cObject, "pack", pack, 1);
	rb_define_method(rb_cObject, "pack_kept", pack_kept, 0);
	rb_define_method(rb_cObject, "packer_write", packer_write, 0);
	rb_define_method(rb_cObject, "pack_wrapped", pack_wrapped, 0);
}
