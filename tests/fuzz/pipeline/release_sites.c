#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>
#include <unistd.h>

struct job { VALUE str; const char *p; long n; int fd; ssize_t got; volatile int stop; };
static int counter;
static __thread int tls;

static void *cb_read(void *d) { struct job *j = d; j->got = read(j->fd, (void *)j->p, (size_t)j->n); return NULL; }
static void *cb_bad(void *d)
{
	struct job *j = d;
	j->n = RSTRING_LEN(j->str);
	counter++;
	tls = 1;
	if (!j->n)
		rb_raise(rb_eArgError, "empty");
	return strtok(NULL, ",");
}
static void ubf(void *d) { ((struct job *)d)->stop = 1; }
static void *with(void *d) { rb_str_new_cstr("x"); return d; }
static void *cb_with(void *d) { return rb_thread_call_with_gvl(with, d); }

static VALUE m(VALUE self, VALUE s)
{
	struct job j = {s, RSTRING_PTR(s), RSTRING_LEN(s), 0, 0, 0};
	rb_thread_call_without_gvl(cb_read, &j, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl2(cb_bad, &j, ubf, &j);
	rb_nogvl(cb_with, &j, NULL, NULL, RB_NOGVL_OFFLOAD_SAFE | RB_NOGVL_UBF_ASYNC_SAFE);
	RB_GC_GUARD(s);
	return LONG2NUM(j.got);
}
void Init_x(void) { rb_define_method(rb_cObject, "m", RUBY_METHOD_FUNC(m), 1); }
