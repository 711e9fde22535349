/* nogvl-lint-test: --enable debug-offload-verdict */
/* State kept in a Ruby object's C struct (gvl-semantics.md 2.9): with
 * RB_NOGVL_OFFLOAD_SAFE other fibers of the calling thread keep running while
 * the worker runs the callback, and any of them may call #close on the same
 * object. The gate passes only a guard that every method touching the state
 * takes. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>
#include <string.h>

#ifndef RB_NOGVL_OFFLOAD_SAFE
#define RB_NOGVL_OFFLOAD_SAFE 0
#endif

struct codec {
	char *window; /* the codec's state */
	long size;
	int busy;     /* in-progress flag */
	VALUE mutex;
};

static void codec_free(void *p)
{
	struct codec *c = p;
	free(c->window);
	free(c);
}

static const rb_data_type_t codec_type = {"codec", {NULL, codec_free, NULL}, NULL, NULL, 0};

static void *work_nogvl(void *p)
{
	struct codec *c = p;
	for (long i = 0; i < c->size; i++)
		c->window[i] ^= 0x5a;
	return NULL;
}

/* no guard at all: unsafe */
static VALUE codec_run(VALUE self)
{
	struct codec *c;
	TypedData_Get_Struct(self, struct codec, &codec_type, c);
	rb_nogvl(work_nogvl, c, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: uses 'c->size' and 1 more field of struct codec, a Ruby object's C struct, with no in-progress flag or mutex */
	return self;
}

static VALUE codec_close(VALUE self)
{
	struct codec *c;
	TypedData_Get_Struct(self, struct codec, &codec_type, c);
	free(c->window);
	c->window = NULL;
	return Qnil;
}

/* ---- a second object: an in-progress flag that every method checks ---- */

struct stream {
	char *buf;
	long len;
	int busy;
};

static void stream_free(void *p)
{
	struct stream *s = p;
	free(s->buf);
	free(s);
}

static const rb_data_type_t stream_type = {"stream", {NULL, stream_free, NULL}, NULL, NULL, 0};

static void *stream_nogvl(void *p)
{
	struct stream *s = p;
	for (long i = 0; i < s->len; i++)
		s->buf[i] = (char)(s->buf[i] + 1);
	return NULL;
}

static VALUE stream_run(VALUE self)
{
	struct stream *s;
	TypedData_Get_Struct(self, struct stream, &stream_type, s);
	if (s->busy)
		rb_raise(rb_eRuntimeError, "stream in use");
	s->busy = 1;
	rb_nogvl(stream_nogvl, s, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: already flagged */ /* the flag guards every method: verified (corpus/offload-candidate/object_guarded.c offers the unflagged call) */
	s->busy = 0;
	return self;
}

static VALUE stream_close(VALUE self)
{
	struct stream *s;
	TypedData_Get_Struct(self, struct stream, &stream_type, s);
	if (s->busy)
		rb_raise(rb_eRuntimeError, "stream in use");
	free(s->buf);
	s->buf = NULL;
	return Qnil;
}

/* ---- a third: a mutex around the call that #reset does not take ---- */

struct conn {
	char *query;
	long qlen;
	VALUE mutex;
};

static const rb_data_type_t conn_type = {"conn", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *conn_nogvl(void *p)
{
	struct conn *c = p;
	for (long i = 0; i < c->qlen; i++)
		c->query[i] = (char)(c->query[i] | 0x20);
	return NULL;
}

static VALUE conn_run_locked(VALUE arg)
{
	struct conn *c = (struct conn *)arg;
	rb_nogvl(conn_nogvl, c, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: offload-unsafe, debug-offload-verdict */ /* expect-msg: under the mutex 'c->mutex', but 'conn_reset' touches the same field without it */
	return Qnil;
}

static VALUE conn_run(VALUE self)
{
	struct conn *c;
	TypedData_Get_Struct(self, struct conn, &conn_type, c);
	return rb_mutex_synchronize(c->mutex, conn_run_locked, (VALUE)c);
}

static VALUE conn_reset(VALUE self)
{
	struct conn *c;
	TypedData_Get_Struct(self, struct conn, &conn_type, c);
	free(c->query);
	c->query = NULL;
	c->qlen = 0;
	return Qnil;
}

/* ---- a fourth: the flag holds the fiber using the object (mysql2's shape) ---- */

struct client {
	char *packet;
	long plen;
	VALUE active_fiber;
};

static const rb_data_type_t client_type = {"client", {NULL, NULL, NULL}, NULL, NULL, 0};

static void *client_nogvl(void *p)
{
	struct client *c = p;
	for (long i = 0; i < c->plen; i++)
		c->packet[i] = (char)(c->packet[i] + 1);
	return NULL;
}

static VALUE client_query(VALUE self)
{
	struct client *c;
	TypedData_Get_Struct(self, struct client, &client_type, c);
	if (!NIL_P(c->active_fiber))
		rb_raise(rb_eRuntimeError, "client in use");
	c->active_fiber = rb_fiber_current();
	rb_nogvl(client_nogvl, c, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: already flagged */ /* guarded: verified */
	c->active_fiber = Qnil;
	return self;
}

static VALUE client_close(VALUE self)
{
	struct client *c;
	TypedData_Get_Struct(self, struct client, &client_type, c);
	if (!NIL_P(c->active_fiber))
		rb_raise(rb_eRuntimeError, "client in use");
	free(c->packet);
	c->packet = NULL;
	return Qnil;
}

void Init_object_state(void)
{
	VALUE k = rb_define_class("Codec", rb_cObject);
	rb_define_method(k, "run", codec_run, 0);
	rb_define_method(k, "close", codec_close, 0);
	VALUE s = rb_define_class("Stream", rb_cObject);
	rb_define_method(s, "run", stream_run, 0);
	rb_define_method(s, "close", stream_close, 0);
	VALUE c = rb_define_class("Conn", rb_cObject);
	rb_define_method(c, "run", conn_run, 0);
	rb_define_method(c, "reset", conn_reset, 0);
	VALUE q = rb_define_class("Client", rb_cObject);
	rb_define_method(q, "query", client_query, 0);
	rb_define_method(q, "close", client_close, 0);
}
