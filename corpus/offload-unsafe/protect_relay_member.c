/* nogvl-lint-test: --enable debug-offload-verdict */
/* A relayed rb_protect body (protect_relay.c's shape) whose data, followed
 * up into the method, is the typed data of an object kept in a member of the
 * receiver's own struct (o->conn). That member holds the object as long as
 * the receiver does: the verdict names what is wrong (another fiber may use
 * the connection meanwhile), not "nothing keeps 'o->conn' alive". */
#include <ruby.h>
#include <ruby/thread.h>

typedef void *(*job_fn)(void *);

struct relay_arg {
	job_fn fn;
	void *data;
};

struct conn {
	long pings;
};

struct owner {
	VALUE conn;
};

static const rb_data_type_t conn_type = {"conn", {0, 0, 0}, 0, 0, 0};
static const rb_data_type_t owner_type = {"owner", {0, 0, 0}, 0, 0, 0};

static void *noop_job(void *d)
{
	(void)d;
	return NULL;
}

static void *ping_nogvl(void *d)
{
	struct conn *c = d;
	c->pings++;
	return NULL;
}

static VALUE ping_body(VALUE arg)
{
	struct relay_arg *r = (struct relay_arg *)arg;
	return (VALUE)rb_nogvl(r->fn, r->data, NULL, NULL, 0); /* expect: debug-offload-verdict, small-work-nogvl */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'ping_nogvl' uses 'c->pings' of struct conn, a Ruby object's C struct, with no in-progress flag or mutex held across the call */
}

static VALUE ping_relay(job_fn fn, void *data)
{
	struct relay_arg r;
	int state = 0;
	r.fn = noop_job;
	r.data = NULL;
	rb_protect(ping_body, (VALUE)&r, &state);
	r.fn = fn;
	r.data = data;
	return rb_protect(ping_body, (VALUE)&r, &state);
}

static VALUE m_ping(VALUE self)
{
	struct owner *o = rb_check_typeddata(self, &owner_type);
	struct conn *c = rb_check_typeddata(o->conn, &conn_type);
	ping_relay(ping_nogvl, c);
	return Qnil;
}

void Init_protect_relay_member(void)
{
	rb_define_method(rb_cObject, "ping", m_ping, 0);
}
