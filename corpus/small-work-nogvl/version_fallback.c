/* Advice that depends on which #if branch was analysed names that branch:
 * here HAVE_LIBFROB_STREAM is not defined, so the version-fallback stub is the
 * callback that was judged small work, and the note says which body and which
 * condition selected it. The same for a body whose real work sits under an
 * #if this configuration does not compile. */
#include <ruby.h>
#include <ruby/thread.h>
#include <unistd.h>

struct frob_args {
	int fd;
	long n;
	long out;
};

#ifdef HAVE_LIBFROB_STREAM
long frob_stream(int fd, long n);
static void *frob_nogvl(void *p)
{
	struct frob_args *a = p;
	a->out = frob_stream(a->fd, a->n);
	return NULL;
}
#else /* expect-note: this judges the 'frob_nogvl' defined under #else of #ifdef HAVE_LIBFROB_STREAM */
/* old libfrob: no streaming, just rewind */
static void *frob_nogvl(void *p)
{
	struct frob_args *a = p;
	a->out = lseek(a->fd, 0, SEEK_SET);
	return NULL;
}
#endif

static void *skip_nogvl(void *p)
{
	struct frob_args *a = p;
#if defined(HAVE_LIBFROB_SKIP) /* expect-note: 'skip_nogvl' was judged on its #else of #if defined(HAVE_LIBFROB_SKIP) branch */
	a->out = frob_skip(a->fd, a->n);
#else
	a->out = lseek(a->fd, a->n, SEEK_CUR);
#endif
	return NULL;
}

static VALUE frob(VALUE self, VALUE fd)
{
	struct frob_args a = {NUM2INT(fd), 0, 0};
	rb_thread_call_without_gvl(frob_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(skip_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: small-work-nogvl */
	return LONG2NUM(a.out);
}

void Init_version_fallback(void)
{
	rb_define_method(rb_cObject, "frob", frob, 1);
}
