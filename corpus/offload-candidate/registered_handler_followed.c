/* nogvl-lint-test: --enable debug-offload-verdict */
/* A library call that runs a handler the gem registered with another call of
 * the library (sqlite3_backup_step runs the sqlite3_busy_handler handler).
 * The handler is linked and followed like the callback's own code: one that
 * calls Ruby fails the Ruby API gate. Still, the opaque-callee gate cannot
 * pass: it does not follow the data the registration hands the handler, nor
 * a handler that does not resolve. The library is declared here. */
#include <ruby.h>
#include <ruby/thread.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_backup sqlite3_backup;
int sqlite3_busy_handler(sqlite3 *db, int (*fn)(void *, int), void *arg);
int sqlite3_backup_step(sqlite3_backup *b, int pages);

static int waits;

/* registered below: calls Ruby when the library runs it */
static int busy_wait(void *p, int count)
{
	(void)p;
	rb_gc_start(); /* expect: ruby-api-without-gvl */
	return count < 3;
}

struct job {
	sqlite3_backup *b;
	int rc;
};

static void *backup_nogvl(void *p)
{
	struct job *j = p;
	j->rc = sqlite3_backup_step(j->b, 8);
	return NULL;
}

VALUE watch_db(VALUE self, VALUE db)
{
	sqlite3_busy_handler((sqlite3 *)NUM2PTR(db), busy_wait, &waits);
	return self;
}

VALUE backup_step(VALUE self, VALUE b)
{
	struct job j;
	j.b = (sqlite3_backup *)NUM2PTR(b);
	j.rc = 0;
	rb_thread_call_without_gvl(backup_nogvl, &j, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: Ruby API fail: 'busy_wait' calls Ruby API 'rb_gc_start' */ /* expect-msg: which may run the handler registered with 'sqlite3_busy_handler' */ /* expect-msg: handlers that resolve to the gem's functions are followed like the callback's own code, but not the data a registration hands them, nor a handler that does not resolve */
	return INT2NUM(j.rc);
}
