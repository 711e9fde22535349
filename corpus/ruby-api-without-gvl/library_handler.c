/* A library that calls back into the gem: a busy handler registered with
 * sqlite3_busy_handler runs inside sqlite3_backup_step (and sqlite3_step ...),
 * so a handler that calls Ruby is reached without the GVL when the step runs
 * in a callback (the extralite shape). The library is declared here. */
#include <ruby.h>
#include <ruby/thread.h>

typedef struct sqlite3 sqlite3;
typedef struct sqlite3_backup sqlite3_backup;
int sqlite3_busy_handler(sqlite3 *db, int (*fn)(void *, int), void *arg);
int sqlite3_backup_step(sqlite3_backup *b, int pages);
int sqlite3_exec(sqlite3 *db, const char *sql, void *cb, void *arg, char **err);

struct db {
	sqlite3 *h;
	VALUE on_busy;
};

static int busy_handler(void *p, int count)
{
	struct db *d = p;
	return RTEST(rb_funcall(d->on_busy, rb_intern("call"), 1, INT2NUM(count))); /* expect: ruby-api-without-gvl */
}

struct step {
	sqlite3_backup *b;
	int rc;
};

static void *step_nogvl(void *p)
{
	struct step *s = p;
	s->rc = sqlite3_backup_step(s->b, 16);
	return NULL;
}

VALUE db_open(VALUE self, VALUE handler)
{
	static struct db d;
	d.on_busy = handler;
	sqlite3_busy_handler(d.h, busy_handler, &d);
	sqlite3_exec(d.h, "select 1", NULL, NULL, NULL); /* with the GVL: the handler may run here, fine */
	return self;
}

VALUE db_backup(VALUE self, VALUE b)
{
	struct step s = {(sqlite3_backup *)NUM2PTR(b), 0};
	rb_thread_call_without_gvl(step_nogvl, &s, RUBY_UBF_IO, NULL);
	return INT2NUM(s.rc);
}
