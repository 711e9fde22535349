/* ubf-on-cpu-work stays silent unless the callback is proven to be CPU work:
 * a library call without a body here (a database client that blocks on its
 * socket), an unresolved function pointer, or a callback that polls Ruby's
 * interrupt flag itself. */
#include <ruby.h>
#include <ruby/thread.h>

struct conn;
int lib_query(struct conn *c, const char *sql); /* a library: no body in the gem */

struct query {
	struct conn *c;
	const char *sql;
	int rc;
	unsigned long (*step)(unsigned long);
	unsigned long acc;
	VALUE th;
};

static void *query_nogvl(void *p)
{
	struct query *q = p;
	q->rc = lib_query(q->c, q->sql);
	return NULL;
}

static void *step_nogvl(void *p)
{
	struct query *q = p;
	for (int i = 0; i < 1000; i++)
		q->acc = q->step(q->acc);
	return NULL;
}

static void *polling_nogvl(void *p)
{
	struct query *q = p;
	for (long i = 0; i < 100000000L; i++) {
		q->acc += (unsigned long)i;
		if ((i & 0xffff) == 0 && rb_thread_interrupted(q->th))
			break;
	}
	return NULL;
}

/* a library function passed as the callback itself */
void *lib_run(void *arg);

VALUE opaque_sites(VALUE self)
{
	struct query q = {0};
	q.th = rb_thread_current();
	rb_thread_call_without_gvl(query_nogvl, &q, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(step_nogvl, &q, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(polling_nogvl, &q, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(lib_run, &q, RUBY_UBF_IO, NULL);
	return INT2NUM(q.rc);
}
