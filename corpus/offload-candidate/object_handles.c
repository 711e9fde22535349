/* nogvl-lint-test: --enable debug-offload-verdict */
/* A library handle kept in a Ruby object's C struct and handed to the
 * callback through its data (the callback itself never touches the object):
 * the object-state gate judges that field like one the callback uses. With an
 * in-progress flag that every method checks, the call is offered
 * RB_NOGVL_OFFLOAD_SAFE; when one method (close) frees the handle without
 * checking the flag, another fiber can free it while the worker runs.
 * Prototypes stand in for zstd.h. */
#include <ruby.h>
#include <ruby/thread.h>
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
size_t ZSTD_freeCCtx(ZSTD_CCtx *c);
size_t ZSTD_compressStream2(ZSTD_CCtx *c, ZSTD_outBuffer *out, ZSTD_inBuffer *in, int end);

struct run_args {
	ZSTD_CCtx *ctx;
	ZSTD_inBuffer *in;
	ZSTD_outBuffer *out;
	size_t result;
};

static void *run_nogvl(void *data)
{
	struct run_args *args = data;
	args->result = ZSTD_compressStream2(args->ctx, args->out, args->in, 2);
	return NULL;
}

/* ---- guarded: every method checks the flag the call sets ---- */

struct stream {
	ZSTD_CCtx *ctx;
	int busy;
};
static const rb_data_type_t stream_type = {"stream", {NULL, NULL, NULL}, NULL, NULL, 0};

static VALUE stream_write(VALUE self)
{
	struct stream *st;
	unsigned char buf[512];
	ZSTD_inBuffer in = {.src = buf, .size = 256, .pos = 0};
	ZSTD_outBuffer out = {.dst = buf + 256, .size = 256, .pos = 0};
	struct run_args args;
	TypedData_Get_Struct(self, struct stream, &stream_type, st);
	if (st->busy)
		rb_raise(rb_eRuntimeError, "stream in use");
	memset(buf, 0, sizeof(buf));
	args.ctx = st->ctx;
	args.in = &in;
	args.out = &out;
	st->busy = 1;
	rb_nogvl(run_nogvl, &args, NULL, NULL, 0); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate; models: ZSTD_compressStream2 (zstd) */
	st->busy = 0;
	return SIZET2NUM(args.result);
}

static VALUE stream_close(VALUE self)
{
	struct stream *st;
	TypedData_Get_Struct(self, struct stream, &stream_type, st);
	if (st->busy)
		rb_raise(rb_eRuntimeError, "stream in use");
	ZSTD_freeCCtx(st->ctx);
	st->ctx = NULL;
	return Qnil;
}

/* ---- trap: the same flag, but close frees the handle without checking it ---- */

struct pipe_state {
	ZSTD_CCtx *ctx;
	int busy;
};
static const rb_data_type_t pipe_type = {"pipe_state", {NULL, NULL, NULL}, NULL, NULL, 0};

static VALUE pipe_write(VALUE self)
{
	struct pipe_state *ps;
	unsigned char buf[512];
	ZSTD_inBuffer in = {.src = buf, .size = 256, .pos = 0};
	ZSTD_outBuffer out = {.dst = buf + 256, .size = 256, .pos = 0};
	struct run_args args;
	TypedData_Get_Struct(self, struct pipe_state, &pipe_type, ps);
	if (ps->busy)
		rb_raise(rb_eRuntimeError, "pipe in use");
	memset(buf, 0, sizeof(buf));
	args.ctx = ps->ctx;
	args.in = &in;
	args.out = &out;
	ps->busy = 1;
	rb_nogvl(run_nogvl, &args, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'run_nogvl' uses 'ps->ctx' (field 'ctx' of struct pipe_state) under the in-progress flag 'busy', but 'pipe_close' touches the same field without it */
	ps->busy = 0;
	return SIZET2NUM(args.result);
}

static VALUE pipe_close(VALUE self)
{
	struct pipe_state *ps;
	TypedData_Get_Struct(self, struct pipe_state, &pipe_type, ps);
	ZSTD_freeCCtx(ps->ctx);
	ps->ctx = NULL;
	return Qnil;
}

/* ---- trap: the callback also counts in the object itself, and a setter
 * writes another field of it without checking the flag: the handle alone
 * is guarded, the object is not, so the verdict stays open ---- */

struct meter {
	ZSTD_CCtx *ctx;
	long calls;
	long level;
	int busy;
};
static const rb_data_type_t meter_type = {"meter", {NULL, NULL, NULL}, NULL, NULL, 0};

struct meter_args {
	struct meter *mt;
	ZSTD_CCtx *ctx;
	ZSTD_inBuffer *in;
	ZSTD_outBuffer *out;
	size_t result;
};

static void *meter_nogvl(void *data)
{
	struct meter_args *args = data;
	args->mt->calls++;
	args->result = ZSTD_compressStream2(args->ctx, args->out, args->in, 2);
	return NULL;
}

static VALUE meter_write(VALUE self)
{
	struct meter *mt;
	unsigned char buf[512];
	ZSTD_inBuffer in = {.src = buf, .size = 256, .pos = 0};
	ZSTD_outBuffer out = {.dst = buf + 256, .size = 256, .pos = 0};
	struct meter_args args;
	TypedData_Get_Struct(self, struct meter, &meter_type, mt);
	if (mt->busy)
		rb_raise(rb_eRuntimeError, "meter in use");
	memset(buf, 0, sizeof(buf));
	args.mt = mt;
	args.ctx = mt->ctx;
	args.in = &in;
	args.out = &out;
	mt->busy = 1;
	rb_nogvl(meter_nogvl, &args, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify */
	mt->busy = 0;
	return SIZET2NUM(args.result);
}

static VALUE meter_set_level(VALUE self, VALUE lv)
{
	struct meter *mt;
	TypedData_Get_Struct(self, struct meter, &meter_type, mt);
	mt->level = NUM2LONG(lv);
	return lv;
}

static VALUE meter_close(VALUE self)
{
	struct meter *mt;
	TypedData_Get_Struct(self, struct meter, &meter_type, mt);
	if (mt->busy)
		rb_raise(rb_eRuntimeError, "meter in use");
	ZSTD_freeCCtx(mt->ctx);
	mt->ctx = NULL;
	return Qnil;
}

/* ---- the handle read in a helper given the object's struct: guarded by
 * the method that calls it (a candidate), and the same helper shape with a
 * close that skips the flag (unsafe) ---- */

struct tank {
	ZSTD_CCtx *ctx;
	int busy;
};
static const rb_data_type_t tank_type = {"tank", {NULL, NULL, NULL}, NULL, NULL, 0};

static size_t tank_pack(struct tank *tk, unsigned char *buf)
{
	ZSTD_inBuffer in = {.src = buf, .size = 256, .pos = 0};
	ZSTD_outBuffer out = {.dst = buf + 256, .size = 256, .pos = 0};
	struct run_args args = {.ctx = tk->ctx, .in = &in, .out = &out, .result = 0};
	rb_nogvl(run_nogvl, &args, NULL, NULL, 0); /* expect: offload-candidate, debug-offload-verdict */ /* expect-msg: offload verdict: candidate; models: ZSTD_compressStream2 (zstd) */
	return args.result;
}

static VALUE tank_write(VALUE self)
{
	struct tank *tk;
	unsigned char buf[512];
	TypedData_Get_Struct(self, struct tank, &tank_type, tk);
	if (tk->busy)
		rb_raise(rb_eRuntimeError, "tank in use");
	memset(buf, 0, sizeof(buf));
	tk->busy = 1;
	size_t r = tank_pack(tk, buf);
	tk->busy = 0;
	return SIZET2NUM(r);
}

static VALUE tank_close(VALUE self)
{
	struct tank *tk;
	TypedData_Get_Struct(self, struct tank, &tank_type, tk);
	if (tk->busy)
		rb_raise(rb_eRuntimeError, "tank in use");
	ZSTD_freeCCtx(tk->ctx);
	tk->ctx = NULL;
	return Qnil;
}

struct vat {
	ZSTD_CCtx *ctx;
	int busy;
};
static const rb_data_type_t vat_type = {"vat", {NULL, NULL, NULL}, NULL, NULL, 0};

static size_t vat_pack(struct vat *vt, unsigned char *buf)
{
	ZSTD_inBuffer in = {.src = buf, .size = 256, .pos = 0};
	ZSTD_outBuffer out = {.dst = buf + 256, .size = 256, .pos = 0};
	struct run_args args = {.ctx = vt->ctx, .in = &in, .out = &out, .result = 0};
	rb_nogvl(run_nogvl, &args, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe */
	return args.result;
}

static VALUE vat_write(VALUE self)
{
	struct vat *vt;
	unsigned char buf[512];
	TypedData_Get_Struct(self, struct vat, &vat_type, vt);
	if (vt->busy)
		rb_raise(rb_eRuntimeError, "vat in use");
	memset(buf, 0, sizeof(buf));
	vt->busy = 1;
	size_t r = vat_pack(vt, buf);
	vt->busy = 0;
	return SIZET2NUM(r);
}

static VALUE vat_close(VALUE self)
{
	struct vat *vt;
	TypedData_Get_Struct(self, struct vat, &vat_type, vt);
	ZSTD_freeCCtx(vt->ctx);
	vt->ctx = NULL;
	return Qnil;
}

void Init_object_handles(void)
{
	VALUE c = rb_define_class("HandleStream", rb_cObject);
	rb_define_method(c, "write", stream_write, 0);
	rb_define_method(c, "close", stream_close, 0);
	VALUE p = rb_define_class("HandlePipe", rb_cObject);
	rb_define_method(p, "write", pipe_write, 0);
	rb_define_method(p, "close", pipe_close, 0);
	VALUE mc = rb_define_class("HandleMeter", rb_cObject);
	rb_define_method(mc, "write", meter_write, 0);
	rb_define_method(mc, "level=", meter_set_level, 1);
	rb_define_method(mc, "close", meter_close, 0);
	VALUE tc = rb_define_class("HandleTank", rb_cObject);
	rb_define_method(tc, "write", tank_write, 0);
	rb_define_method(tc, "close", tank_close, 0);
	VALUE vc = rb_define_class("HandleVat", rb_cObject);
	rb_define_method(vc, "write", vat_write, 0);
	rb_define_method(vc, "close", vat_close, 0);
}
