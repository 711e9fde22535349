/* nogvl-lint-test: --enable debug-offload-verdict */
/* The object-state gate's traps: each object below is guarded except for one
 * hole, and each hole fails the gate (the guarded objects that pass are in
 * corpus/offload-candidate/object_guarded.c). With RB_NOGVL_OFFLOAD_SAFE the
 * other fibers of the calling thread keep running while the worker runs the
 * callback, so one method that skips the guard is enough. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

/* The callbacks all run over a buffer of the object. */
struct ring {
	char *buf;
	long len;
	int busy;
};

static const rb_data_type_t ring_type = {"ring", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *ring_nogvl(void *p)
{
	struct ring *r = p;
	for (long i = 0; i < r->len; i++)
		r->buf[i] = (char)(r->buf[i] ^ 0x20);
	return NULL;
}

static struct ring *get_ring(VALUE self)
{
	struct ring *r;
	TypedData_Get_Struct(self, struct ring, &ring_type, r);
	return r;
}

/* 1. #close frees the buffer without checking the flag */
static VALUE ring_run(VALUE self)
{
	struct ring *r = get_ring(self);
	if (r->busy)
		rb_raise(rb_eRuntimeError, "in use");
	r->busy = 1;
	rb_nogvl(ring_nogvl, r, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: (field 'buf' of struct ring) under the in-progress flag 'busy', but 'ring_close' touches the same field without it */
	r->busy = 0;
	return self;
}

static VALUE ring_close(VALUE self)
{
	struct ring *r = get_ring(self);
	free(r->buf);
	r->buf = NULL;
	return Qnil;
}

/* 2. a setter without the flag (#close checks it) */
struct gauge {
	char *buf;
	long len;
	int busy;
};

static const rb_data_type_t gauge_type = {"gauge", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *gauge_nogvl(void *p)
{
	struct gauge *g = p;
	for (long i = 0; i < g->len; i++)
		g->buf[i] = 0;
	return NULL;
}

static VALUE gauge_run(VALUE self)
{
	struct gauge *g;
	TypedData_Get_Struct(self, struct gauge, &gauge_type, g);
	if (g->busy)
		rb_raise(rb_eRuntimeError, "in use");
	g->busy = 1;
	rb_nogvl(gauge_nogvl, g, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: 'gauge_set_len' touches the same field without it */
	g->busy = 0;
	return self;
}

static VALUE gauge_set_len(VALUE self, VALUE n)
{
	struct gauge *g;
	TypedData_Get_Struct(self, struct gauge, &gauge_type, g);
	g->len = NUM2LONG(n);
	return n;
}

static VALUE gauge_close(VALUE self)
{
	struct gauge *g;
	TypedData_Get_Struct(self, struct gauge, &gauge_type, g);
	if (g->busy)
		rb_raise(rb_eRuntimeError, "in use");
	free(g->buf);
	g->buf = NULL;
	return Qnil;
}

/* 3. the flag is checked but never set: two fibers both pass the check */
struct probe {
	char *buf;
	long len;
	int busy;
};

static const rb_data_type_t probe_type = {"probe", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *probe_nogvl(void *p)
{
	struct probe *q = p;
	for (long i = 0; i < q->len; i++)
		q->buf[i]++;
	return NULL;
}

static VALUE probe_run(VALUE self)
{
	struct probe *q;
	TypedData_Get_Struct(self, struct probe, &probe_type, q);
	if (q->busy)
		rb_raise(rb_eRuntimeError, "in use");
	rb_nogvl(probe_nogvl, q, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: uses 'q->len' and 1 more field of struct probe, a Ruby object's C struct, with no in-progress flag or mutex held across the call */
	return self;
}

static VALUE probe_close(VALUE self)
{
	struct probe *q;
	TypedData_Get_Struct(self, struct probe, &probe_type, q);
	if (q->busy)
		rb_raise(rb_eRuntimeError, "in use");
	free(q->buf);
	q->buf = NULL;
	return Qnil;
}

/* 4a. the flag is cleared before the call */
struct lane {
	char *buf;
	long len;
	int busy;
};

static const rb_data_type_t lane_type = {"lane", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *lane_nogvl(void *p)
{
	struct lane *l = p;
	for (long i = 0; i < l->len; i++)
		l->buf[i] = 'x';
	return NULL;
}

static VALUE lane_run(VALUE self)
{
	struct lane *l;
	TypedData_Get_Struct(self, struct lane, &lane_type, l);
	if (l->busy)
		rb_raise(rb_eRuntimeError, "in use");
	l->busy = 1;
	l->busy = 0;
	rb_nogvl(lane_nogvl, l, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: (the flag 'busy' is cleared here, before the call returns) */
	l->busy = 0;
	return self;
}

static VALUE lane_close(VALUE self)
{
	struct lane *l;
	TypedData_Get_Struct(self, struct lane, &lane_type, l);
	if (l->busy)
		rb_raise(rb_eRuntimeError, "in use");
	free(l->buf);
	l->buf = NULL;
	return Qnil;
}

/* 4b. the callback clears the flag on the worker, before the call returns:
 * another fiber can start while the worker is still in the callback */
struct pipe_ {
	char *buf;
	long len;
	int busy;
};

static const rb_data_type_t pipe_type = {"pipe", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *pipe_nogvl(void *p)
{
	struct pipe_ *q = p;
	for (long i = 0; i < q->len; i++)
		q->buf[i] = '.';
	q->busy = 0; /* done with the buffer: ready for the next caller */
	q->len = 0;
	return NULL;
}

static VALUE pipe_run(VALUE self)
{
	struct pipe_ *q;
	TypedData_Get_Struct(self, struct pipe_, &pipe_type, q);
	if (q->busy)
		rb_raise(rb_eRuntimeError, "in use");
	q->busy = 1;
	rb_nogvl(pipe_nogvl, q, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: (the flag 'busy' is cleared by 'pipe_nogvl' on the worker, before the call returns) */
	q->busy = 0;
	return self;
}

static VALUE pipe_close(VALUE self)
{
	struct pipe_ *q;
	TypedData_Get_Struct(self, struct pipe_, &pipe_type, q);
	if (q->busy)
		rb_raise(rb_eRuntimeError, "in use");
	free(q->buf);
	q->buf = NULL;
	return Qnil;
}

/* 5a. the guard is in another object's struct: the flag of self, the buffer
 * of the argument (same type) */
struct cell {
	char *buf;
	long len;
	int busy;
};

static const rb_data_type_t cell_type = {"cell", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *cell_nogvl(void *p)
{
	struct cell *c = p;
	for (long i = 0; i < c->len; i++)
		c->buf[i] = '0';
	return NULL;
}

static VALUE cell_copy_from(VALUE self, VALUE other)
{
	struct cell *me, *src;
	TypedData_Get_Struct(self, struct cell, &cell_type, me);
	TypedData_Get_Struct(other, struct cell, &cell_type, src);
	if (me->busy)
		rb_raise(rb_eRuntimeError, "in use");
	me->busy = 1;
	rb_nogvl(cell_nogvl, src, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: (the flag 'busy' set here belongs to another object than the one the callback uses) */
	me->busy = 0;
	return self;
}

static VALUE cell_close(VALUE self)
{
	struct cell *c;
	TypedData_Get_Struct(self, struct cell, &cell_type, c);
	if (c->busy)
		rb_raise(rb_eRuntimeError, "in use");
	free(c->buf);
	c->buf = NULL;
	return Qnil;
}

/* 5b. the guard is in another struct type: the owner's flag, the part's state */
struct part {
	char *buf;
	long len;
};

struct owner {
	struct part *part;
	int busy;
};

static const rb_data_type_t part_type = {"part", {NULL, NULL, NULL}, NULL, NULL, 0};
static const rb_data_type_t owner_type = {"owner", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *part_nogvl(void *p)
{
	struct part *pt = p;
	for (long i = 0; i < pt->len; i++)
		pt->buf[i] = '1';
	return NULL;
}

static VALUE owner_fill(VALUE self, VALUE part)
{
	struct owner *o;
	struct part *pt;
	TypedData_Get_Struct(self, struct owner, &owner_type, o);
	TypedData_Get_Struct(part, struct part, &part_type, pt);
	if (o->busy)
		rb_raise(rb_eRuntimeError, "in use");
	o->busy = 1;
	rb_nogvl(part_nogvl, pt, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: (the flag 'busy' set here is a field of struct owner, not of struct part whose state the callback uses) */
	o->busy = 0;
	return self;
}

static VALUE part_close(VALUE self)
{
	struct part *pt;
	TypedData_Get_Struct(self, struct part, &part_type, pt);
	free(pt->buf);
	pt->buf = NULL;
	return Qnil;
}

/* 6. a method named like a GC callback is still a method: #free_buffer
 * (C name slab_free_buffer) is callable by any fiber */
struct slab {
	char *buf;
	long len;
	int busy;
};

static void slab_free(void *p)
{
	struct slab *s = p;
	free(s->buf);
	free(s);
}

static const rb_data_type_t slab_type = {"slab", {NULL, slab_free, NULL}, NULL, NULL, 0};

static void *slab_nogvl(void *p)
{
	struct slab *s = p;
	for (long i = 0; i < s->len; i++)
		s->buf[i] = 's';
	return NULL;
}

static VALUE slab_run(VALUE self)
{
	struct slab *s;
	TypedData_Get_Struct(self, struct slab, &slab_type, s);
	if (s->busy)
		rb_raise(rb_eRuntimeError, "in use");
	s->busy = 1;
	rb_nogvl(slab_nogvl, s, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: but 'slab_free_buffer' touches the same field without it */
	s->busy = 0;
	return self;
}

static VALUE slab_free_buffer(VALUE self)
{
	struct slab *s;
	TypedData_Get_Struct(self, struct slab, &slab_type, s);
	free(s->buf);
	s->buf = NULL;
	return Qnil;
}

/* 7. a helper initialize calls is not private when a method calls it too */
struct pad {
	char *buf;
	long len;
};

static const rb_data_type_t pad_type = {"pad", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *pad_nogvl(void *p)
{
	struct pad *d = p;
	for (long i = 0; i < d->len; i++)
		d->buf[i] = ' ';
	return NULL;
}

static void pad_fill(struct pad *d)
{
	rb_nogvl(pad_nogvl, d, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: uses 'd->len' and 1 more field of struct pad, a Ruby object's C struct, with no in-progress flag or mutex */
}

static VALUE pad_initialize(VALUE self)
{
	struct pad *d;
	TypedData_Get_Struct(self, struct pad, &pad_type, d);
	pad_fill(d); /* private here ... */
	return self;
}

static VALUE pad_refill(VALUE self)
{
	struct pad *d;
	TypedData_Get_Struct(self, struct pad, &pad_type, d);
	pad_fill(d); /* ... but not here */
	return self;
}

/* 8. mysql2's shape: the in-progress flag (the fiber using the connection) is
 * set by the method that sends a query and cleared by the one that reads its
 * result. Neither call is guarded: while #send's worker runs, another fiber's
 * #result passes its check (the flag is set, by someone) and reads the same
 * connection; while #result's worker runs, a second #result does the same. */
struct sess {
	char *wire;
	long wlen;
	VALUE active_fiber;
};

static const rb_data_type_t sess_type = {"sess", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *sess_write_nogvl(void *p)
{
	struct sess *s = p;
	for (long i = 0; i < s->wlen; i++)
		s->wire[i] = (char)(s->wire[i] + 3);
	return NULL;
}

static void *sess_read_nogvl(void *p)
{
	struct sess *s = p;
	for (long i = 0; i < s->wlen; i++)
		s->wire[i] = (char)(s->wire[i] - 3);
	return NULL;
}

static VALUE sess_send(VALUE self)
{
	struct sess *s;
	TypedData_Get_Struct(self, struct sess, &sess_type, s);
	if (!NIL_P(s->active_fiber))
		rb_raise(rb_eRuntimeError, "still waiting for a result");
	s->active_fiber = rb_fiber_current();
	rb_nogvl(sess_write_nogvl, s, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: (the flag 'active_fiber' set here is not cleared after the call in 'sess_send', so it does not mark this call as in progress (a method that clears it later only checks that it is set)) */
	return self;
}

static VALUE sess_result(VALUE self)
{
	struct sess *s;
	TypedData_Get_Struct(self, struct sess, &sess_type, s);
	if (NIL_P(s->active_fiber))
		return Qnil;
	rb_nogvl(sess_read_nogvl, s, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: ('sess_result' only reads the flag 'active_fiber', which 'sess_send' sets: the flag says the object is in use, not by whom, so a second fiber calling 'sess_result' passes the same check) */
	s->active_fiber = Qnil;
	return self;
}

static VALUE sess_close(VALUE self)
{
	struct sess *s;
	TypedData_Get_Struct(self, struct sess, &sess_type, s);
	if (!NIL_P(s->active_fiber))
		rb_raise(rb_eRuntimeError, "in use");
	free(s->wire);
	s->wire = NULL;
	return Qnil;
}

/* 9. initialize is private to the object being made, not to another object
 * it is given: the state of 'other' stays unverified */
struct twin {
	char *buf;
	long len;
};

static const rb_data_type_t twin_type = {"twin", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *twin_nogvl(void *p)
{
	struct twin *t = p;
	for (long i = 0; i < t->len; i++)
		t->buf[i] = 't';
	return NULL;
}

static VALUE twin_initialize(VALUE self, VALUE other)
{
	struct twin *me, *o;
	TypedData_Get_Struct(self, struct twin, &twin_type, me);
	TypedData_Get_Struct(other, struct twin, &twin_type, o);
	me->len = 0;
	rb_nogvl(twin_nogvl, o, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: already flagged, cannot verify; inputs cannot verify: 'TypedData_Get_Struct' hands the callback memory owned by 'other' */
	return self;
}

static VALUE twin_clear(VALUE self)
{
	struct twin *t;
	TypedData_Get_Struct(self, struct twin, &twin_type, t);
	free(t->buf);
	t->buf = NULL;
	return self;
}

/* 10. the mutex is released again before the call (and taken back after it):
 * the call itself runs unlocked */
struct vault {
	char *buf;
	long len;
	VALUE lock;
};

static const rb_data_type_t vault_type = {"vault", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *vault_nogvl(void *p)
{
	struct vault *v = p;
	for (long i = 0; i < v->len; i++)
		v->buf[i] = 'v';
	return NULL;
}

static VALUE vault_run(VALUE self)
{
	struct vault *v;
	TypedData_Get_Struct(self, struct vault, &vault_type, v);
	rb_mutex_lock(v->lock);
	v->len = 16;
	rb_mutex_unlock(v->lock);
	rb_nogvl(vault_nogvl, v, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: (the mutex 'v->lock' is unlocked again before the call) */
	rb_mutex_lock(v->lock);
	rb_mutex_unlock(v->lock);
	return self;
}

static VALUE vault_clear_locked(VALUE arg)
{
	struct vault *v = (struct vault *)arg;
	free(v->buf);
	v->buf = NULL;
	return Qnil;
}

static VALUE vault_clear(VALUE self)
{
	struct vault *v;
	TypedData_Get_Struct(self, struct vault, &vault_type, v);
	return rb_mutex_synchronize(v->lock, vault_clear_locked, (VALUE)v);
}

/* 11. two fields point at the same memory: the callback writes through
 * 'view', #wipe clears it through 'buf' without the flag. The gate cannot see
 * the alias, so a method using any field of the object without the guard
 * leaves the verdict open ("cannot verify"), never safe */
struct tape {
	char *buf;
	char *view; /* = buf */
	long len;
	int busy;
};

static const rb_data_type_t tape_type = {"tape", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *tape_nogvl(void *p)
{
	struct tape *t = p;
	for (long i = 0; i < t->len; i++)
		t->view[i] = 'r';
	return NULL;
}

static VALUE tape_run(VALUE self)
{
	struct tape *t;
	TypedData_Get_Struct(self, struct tape, &tape_type, t);
	if (t->busy)
		rb_raise(rb_eRuntimeError, "in use");
	t->busy = 1;
	rb_nogvl(tape_nogvl, t, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: already flagged, cannot verify */
	t->busy = 0;
	return self;
}

static VALUE tape_wipe(VALUE self)
{
	struct tape *t;
	TypedData_Get_Struct(self, struct tape, &tape_type, t);
	memset(t->buf, 0, 4);
	return self;
}

/* 12. a thread started by initialize runs after initialize returned: its
 * call is not private to the object's creation */
struct pump {
	char *buf;
	long len;
};

static const rb_data_type_t pump_type = {"pump", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *pump_nogvl(void *p)
{
	struct pump *q = p;
	for (long i = 0; i < q->len; i++)
		q->buf[i] = 'p';
	return NULL;
}

static VALUE pump_thread(void *p)
{
	struct pump *q = p;
	rb_nogvl(pump_nogvl, q, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: uses 'q->len' and 1 more field of struct pump, a Ruby object's C struct, with no in-progress flag or mutex */
	return Qnil;
}

static VALUE pump_initialize(VALUE self)
{
	struct pump *q;
	TypedData_Get_Struct(self, struct pump, &pump_type, q);
	rb_thread_create(pump_thread, q);
	return self;
}

static VALUE pump_drain(VALUE self)
{
	struct pump *q;
	TypedData_Get_Struct(self, struct pump, &pump_type, q);
	free(q->buf);
	q->buf = NULL;
	return self;
}

/* 13. a helper named like a GC callback is a method's work when a method
 * calls it: #grow (no field use of its own) frees the buffer through
 * blob_realloc without the flag */
struct blob {
	char *buf;
	long len;
	int busy;
};

static const rb_data_type_t blob_type = {"blob", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *blob_nogvl(void *p)
{
	struct blob *b = p;
	for (long i = 0; i < b->len; i++)
		b->buf[i] = 'b';
	return NULL;
}

static VALUE blob_run(VALUE self)
{
	struct blob *b;
	TypedData_Get_Struct(self, struct blob, &blob_type, b);
	if (b->busy)
		rb_raise(rb_eRuntimeError, "in use");
	b->busy = 1;
	rb_nogvl(blob_nogvl, b, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: but 'blob_realloc' touches the same field without it */
	b->busy = 0;
	return self;
}

static void blob_realloc(struct blob *b, long n)
{
	free(b->buf);
	b->buf = calloc((size_t)n, 1);
	b->len = b->buf ? n : 0;
}

static VALUE blob_grow(VALUE self, VALUE n)
{
	struct blob *b;
	TypedData_Get_Struct(self, struct blob, &blob_type, b);
	blob_realloc(b, NUM2LONG(n));
	return self;
}

void Init_object_state_traps(void)
{
	VALUE k = rb_define_class("Ring", rb_cObject);
	rb_define_method(k, "run", ring_run, 0);
	rb_define_method(k, "close", ring_close, 0);
	k = rb_define_class("Gauge", rb_cObject);
	rb_define_method(k, "run", gauge_run, 0);
	rb_define_method(k, "len=", gauge_set_len, 1);
	rb_define_method(k, "close", gauge_close, 0);
	k = rb_define_class("Probe", rb_cObject);
	rb_define_method(k, "run", probe_run, 0);
	rb_define_method(k, "close", probe_close, 0);
	k = rb_define_class("Lane", rb_cObject);
	rb_define_method(k, "run", lane_run, 0);
	rb_define_method(k, "close", lane_close, 0);
	k = rb_define_class("Pipe", rb_cObject);
	rb_define_method(k, "run", pipe_run, 0);
	rb_define_method(k, "close", pipe_close, 0);
	k = rb_define_class("Cell", rb_cObject);
	rb_define_method(k, "copy_from", cell_copy_from, 1);
	rb_define_method(k, "close", cell_close, 0);
	k = rb_define_class("Owner", rb_cObject);
	rb_define_method(k, "fill", owner_fill, 1);
	k = rb_define_class("Part", rb_cObject);
	rb_define_method(k, "close", part_close, 0);
	k = rb_define_class("Slab", rb_cObject);
	rb_define_method(k, "run", slab_run, 0);
	rb_define_method(k, "free_buffer", slab_free_buffer, 0);
	k = rb_define_class("Pad", rb_cObject);
	rb_define_method(k, "initialize", pad_initialize, 0);
	rb_define_method(k, "refill", pad_refill, 0);
	k = rb_define_class("Sess", rb_cObject);
	rb_define_method(k, "send_query", sess_send, 0);
	rb_define_method(k, "result", sess_result, 0);
	rb_define_method(k, "close", sess_close, 0);
	k = rb_define_class("Twin", rb_cObject);
	rb_define_method(k, "initialize", twin_initialize, 1);
	rb_define_method(k, "clear", twin_clear, 0);
	k = rb_define_class("Vault", rb_cObject);
	rb_define_method(k, "run", vault_run, 0);
	rb_define_method(k, "clear", vault_clear, 0);
	k = rb_define_class("Tape", rb_cObject);
	rb_define_method(k, "run", tape_run, 0);
	rb_define_method(k, "wipe", tape_wipe, 0);
	k = rb_define_class("Pump", rb_cObject);
	rb_define_method(k, "initialize", pump_initialize, 0);
	rb_define_method(k, "drain", pump_drain, 0);
	k = rb_define_class("Blob", rb_cObject);
	rb_define_method(k, "run", blob_run, 0);
	rb_define_method(k, "grow", blob_grow, 1);
}
