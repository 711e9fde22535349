/* measures: small-work-nogvl. Second held-out batch. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>
#include <unistd.h>
#include <stdint.h>
#include <time.h>

struct hdr {
	uint32_t magic, len;
	unsigned char tag[16];
};

struct sw2 {
	int fd;
	long n, out;
	struct hdr in, copy;
	unsigned char *buf;
	struct timespec ts;
};

static uint32_t swap32(uint32_t v)
{
	return (v >> 24) | ((v >> 8) & 0xff00) | ((v << 8) & 0xff0000) | (v << 24);
}

static void *h_copy_struct(void *p)
{
	struct sw2 *a = p;
	memcpy(&a->copy, &a->in, sizeof(a->in));
	return NULL;
}

static void *h_swap(void *p)
{
	struct sw2 *a = p;
	a->in.magic = swap32(a->in.magic);
	a->in.len = swap32(a->in.len);
	return NULL;
}

static void *h_cmp_tag(void *p)
{
	struct sw2 *a = p;
	a->out = memcmp(a->in.tag, a->copy.tag, sizeof(a->in.tag));
	return NULL;
}

static void *h_rewind(void *p)
{
	struct sw2 *a = p;
	a->out = lseek(a->fd, 0, SEEK_SET);
	return NULL;
}

static void *h_now(void *p)
{
	struct sw2 *a = p;
	a->out = (long)time(NULL);
	return NULL;
}

/* traps */
static void *g_write(void *p)
{
	struct sw2 *a = p;
	a->out = write(a->fd, &a->in, sizeof(a->in));
	return NULL;
}

static void *g_scan(void *p)
{
	struct sw2 *a = p;
	const unsigned char *q = memchr(a->buf, 0, (size_t)a->n);
	a->out = q ? q - a->buf : -1;
	return NULL;
}

static void *g_recursive(void *p)
{
	struct sw2 *a = p;
	if (a->n-- > 0)
		g_recursive(p);
	return NULL;
}

static void *g_big_copy(void *p)
{
	struct sw2 *a = p;
	memset(a->buf, 0, 1 << 24);
	return NULL;
}

static void *g_sleep(void *p)
{
	struct sw2 *a = p;
	a->out = usleep(1000);
	return NULL;
}

static VALUE h_run(VALUE self, VALUE fd)
{
	struct sw2 a = {0};
	a.fd = NUM2INT(fd);
	rb_thread_call_without_gvl(h_copy_struct, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(h_swap, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(h_cmp_tag, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(h_rewind, &a, RUBY_UBF_IO, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(h_now, &a, NULL, NULL); /* want: small-work-nogvl */
	rb_thread_call_without_gvl(g_write, &a, RUBY_UBF_IO, NULL); /* trap */
	rb_thread_call_without_gvl(g_scan, &a, NULL, NULL); /* trap */
	rb_thread_call_without_gvl(g_recursive, &a, NULL, NULL); /* trap */
	rb_thread_call_without_gvl(g_big_copy, &a, NULL, NULL); /* trap */
	rb_thread_call_without_gvl(g_sleep, &a, RUBY_UBF_IO, NULL); /* trap */
	return LONG2NUM(a.out);
}

void Init_small_work2(void)
{
	rb_define_method(rb_cObject, "h_run", h_run, 1);
}
