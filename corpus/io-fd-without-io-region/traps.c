/* Not reported: a descriptor the extension opened itself, an IO's descriptor
 * used only for a non-blocking call, and the IO region API. */
#include <ruby.h>
#include <ruby/io.h>
#include <ruby/thread.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct rd {
	int fd;
	char buf[256];
	ssize_t n;
	struct stat st;
};

static void *read_nogvl(void *p)
{
	struct rd *r = p;
	r->n = read(r->fd, r->buf, sizeof(r->buf)); /* the extension's own descriptor */
	return NULL;
}

static void *stat_nogvl(void *p)
{
	struct rd *r = p;
	r->n = fstat(r->fd, &r->st); /* does not block on the descriptor */
	return NULL;
}

VALUE read_own(VALUE self, VALUE path)
{
	struct rd r = {0};
	r.fd = open(StringValueCStr(path), O_RDONLY);
	rb_thread_call_without_gvl(read_nogvl, &r, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	close(r.fd);
	return LONG2NUM(r.n);
}

VALUE stat_io(VALUE self, VALUE io)
{
	struct rd r = {0};
	r.fd = rb_io_descriptor(io);
	rb_thread_call_without_gvl(stat_nogvl, &r, NULL, NULL);
	return LONG2NUM(r.n);
}
