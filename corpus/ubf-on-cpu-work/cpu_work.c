/* ubf-on-cpu-work: RUBY_UBF_IO / RUBY_UBF_PROCESS around work a signal cannot
 * interrupt, and the uses that are fine. */
#include <ruby.h>
#include <ruby/thread.h>
#include <string.h>
#include <unistd.h>

struct buf {
	const unsigned char *p;
	size_t n;
	unsigned long sum;
	int fd;
	char out[256];
	long got;
};

static unsigned long fold(unsigned long h, unsigned char c)
{
	return (h ^ c) * 1099511628211UL;
}

static void *checksum_nogvl(void *p)
{
	struct buf *b = p;
	for (size_t i = 0; i < b->n; i++)
		b->sum = fold(b->sum, b->p[i]);
	return NULL;
}

static void *copy_nogvl(void *p)
{
	struct buf *b = p;
	memmove(b->out, b->p, b->n < sizeof(b->out) ? b->n : sizeof(b->out));
	b->sum = strlen(b->out);
	return NULL;
}

/* a real read: the signal interrupts it */
static void *read_nogvl(void *p)
{
	struct buf *b = p;
	b->got = read(b->fd, b->out, sizeof(b->out));
	return NULL;
}

/* blocking through a helper */
static long fill(struct buf *b)
{
	return read(b->fd, b->out, sizeof(b->out));
}

static void *fill_nogvl(void *p)
{
	struct buf *b = p;
	b->got = fill(b);
	return NULL;
}

static void *nap_nogvl(void *p)
{
	(void)p;
	usleep(1000);
	return NULL;
}

VALUE cpu_sites(VALUE self, VALUE str)
{
	struct buf b = {0};
	b.p = (const unsigned char *)RSTRING_PTR(str); /* expect: unfrozen-input */
	b.n = (size_t)RSTRING_LEN(str);
	rb_thread_call_without_gvl(checksum_nogvl, &b, RUBY_UBF_IO, NULL); /* expect: ubf-on-cpu-work */ /* expect-msg: RUBY_UBF_IO cannot interrupt 'checksum_nogvl' */ /* expect-msg: it makes no blocking system call */
	rb_thread_call_without_gvl(copy_nogvl, &b, RUBY_UBF_PROCESS, NULL); /* expect: ubf-on-cpu-work */ /* expect-msg: discards its result */
	rb_thread_call_without_gvl2(checksum_nogvl, &b, RUBY_UBF_IO, NULL); /* expect: ubf-on-cpu-work */ /* expect-msg: cancelling waits for the whole computation */
	rb_nogvl(checksum_nogvl, &b, RUBY_UBF_PROCESS, NULL, 0); /* expect: ubf-on-cpu-work */ /* expect-msg: RUBY_UBF_PROCESS cannot interrupt */
	rb_thread_call_without_gvl(checksum_nogvl, &b, (rb_unblock_function_t *)-1, NULL); /* expect: ubf-on-cpu-work */
	/* traps */
	rb_thread_call_without_gvl(read_nogvl, &b, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(fill_nogvl, &b, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(nap_nogvl, &b, RUBY_UBF_IO, NULL);
	rb_thread_call_without_gvl(checksum_nogvl, &b, NULL, NULL); /* NULL UBF on CPU work is the right choice */
	RB_GC_GUARD(str);
	return ULONG2NUM(b.sum);
}
