/* Releasing the GVL around a single lseek (SEEK_SET/SEEK_CUR only move the
 * file offset) or a fixed small block copied in the callback costs more than
 * the work. Not small: an lseek followed by a read, SEEK_END (a network
 * filesystem may be asked for the size), a copy of a caller-given length, a
 * large constant copy, an fsync. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

struct io_args {
	int fd;
	off_t off;
	char block[64];
	const char *src;
	char *big;
	size_t n;
	ssize_t r;
};

static void *tell_nogvl(void *p)
{
	struct io_args *a = p;
	a->off = lseek(a->fd, 0, SEEK_CUR);
	return NULL;
}

static void *seek_nogvl(void *p)
{
	struct io_args *a = p;
	a->off = lseek(a->fd, a->off, SEEK_SET);
	return NULL;
}

static void *block_nogvl(void *p)
{
	struct io_args *a = p;
	memcpy(a->block, a->src, sizeof(a->block));
	return NULL;
}

static void *seek_read_nogvl(void *p)
{
	struct io_args *a = p;
	lseek(a->fd, a->off, SEEK_SET);
	a->r = read(a->fd, a->block, sizeof(a->block));
	return NULL;
}

static void *size_nogvl(void *p)
{
	struct io_args *a = p;
	a->off = lseek(a->fd, 0, SEEK_END);
	return NULL;
}

static void *copy_n_nogvl(void *p)
{
	struct io_args *a = p;
	memcpy(a->big, a->src, a->n);
	return NULL;
}

static void *copy_big_nogvl(void *p)
{
	struct io_args *a = p;
	memcpy(a->big, a->src, 1 << 24);
	return NULL;
}

static void *sync_nogvl(void *p)
{
	struct io_args *a = p;
	a->r = fsync(a->fd);
	return NULL;
}

static VALUE io_ops(VALUE self, VALUE fd)
{
	struct io_args a = {NUM2INT(fd), 0, {0}, "", NULL, 0, 0};
	rb_thread_call_without_gvl(tell_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(seek_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: small-work-nogvl */
	rb_thread_call_without_gvl(block_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: small-work-nogvl, ubf-on-cpu-work */
	rb_thread_call_without_gvl(seek_read_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(size_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	rb_thread_call_without_gvl(copy_n_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: offload-candidate, ubf-on-cpu-work */
	rb_thread_call_without_gvl(copy_big_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: offload-candidate, ubf-on-cpu-work */
	rb_thread_call_without_gvl(sync_nogvl, &a, RUBY_UBF_IO, NULL); /* expect: offload-candidate */
	return LONG2NUM((long)a.off);
}

void Init_seek_and_copy(void)
{
	rb_define_method(rb_cObject, "io_ops", io_ops, 1);
}
