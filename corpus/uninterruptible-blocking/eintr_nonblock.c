/* The trap of eintr_retry.c: a client library whose buffer calls restart on
 * EINTR only in a blocking context. This gem opens its context non-blocking
 * (REDIS_OPT_NONBLOCK) and waits on the descriptor itself, so the buffer
 * calls under RUBY_UBF_IO return EAGAIN instead of waiting: not reported. */
#include <ruby.h>
#include <ruby/thread.h>

#define REDIS_OPT_NONBLOCK 0x01

typedef struct redisContext redisContext;
typedef struct {
	int options;
	const char *host;
} redisOptions;
redisContext *redisConnectWithOptions(const redisOptions *options);
int redisBufferRead(redisContext *c);

struct read_args {
	redisContext *ctx;
	int ret;
};

static void *read_nogvl(void *p)
{
	struct read_args *a = p;
	a->ret = redisBufferRead(a->ctx);
	return NULL;
}

static VALUE client_connect(VALUE self, VALUE host)
{
	redisOptions options = {.options = REDIS_OPT_NONBLOCK, .host = StringValueCStr(host)};
	redisContext *ctx = redisConnectWithOptions(&options);
	struct read_args a = {ctx, 0};
	rb_thread_call_without_gvl(read_nogvl, &a, RUBY_UBF_IO, NULL);
	return INT2NUM(a.ret);
}

void Init_eintr_nonblock(void)
{
	rb_define_method(rb_cObject, "client_connect", client_connect, 1);
}
