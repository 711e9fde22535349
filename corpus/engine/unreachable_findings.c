/* Findings inside a function nothing in the gem calls are still reported
 * (the code is compiled and may be revived), as its release sites are, but
 * marked: a note at the function, JSON "unreachable", summary
 * findings_unreachable. The same finding in a registered method gets no
 * note. */
#include <ruby.h>
#include <ruby/thread.h>
#include <unistd.h>

struct rd {
	int fd;
	char buf[64];
	long n;
};

static void *read_nogvl(void *p)
{
	struct rd *r = p;
	r->n = read(r->fd, r->buf, sizeof(r->buf));
	return NULL;
}

static void close_fd(void *p)
{
	struct rd *r = p;
	close(r->fd); /* expect: ubf-destroys-state */
}

struct rd *rd_of(VALUE self);

/* trap: nothing refers to it, but the finding's line is in 'close_fd',
 * which the registered method below reaches too: no note */
static VALUE old_read(VALUE self)
{
	struct rd *r = rd_of(self);
	rb_thread_call_without_gvl(read_nogvl, r, close_fd, r);
	return LONG2NUM(r->n);
}

static VALUE do_read(VALUE self)
{
	struct rd *r = rd_of(self);
	rb_thread_call_without_gvl(read_nogvl, r, close_fd, r);
	return LONG2NUM(r->n);
}

static void *count_nogvl(void *p)
{
	long *n = p;
	for (long i = 0; i < 1000000; i++)
		*n += i;
	return NULL;
}

/* nothing refers to it: its ubf-on-cpu-work finding is at the release call */
static VALUE old_count(VALUE self) /* expect-note: 'old_count' is static and nothing in the gem refers to it */
{
	long n = 0;
	rb_thread_call_without_gvl(count_nogvl, &n, RUBY_UBF_IO, NULL); /* expect: ubf-on-cpu-work, offload-candidate */
	return LONG2NUM(n);
}

void Init_unreachable_findings(void)
{
	rb_define_method(rb_cObject, "do_read", do_read, 0);
}
