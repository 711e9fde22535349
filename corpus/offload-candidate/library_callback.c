/* nogvl-lint-test: --enable debug-offload-verdict */
/* A library function run directly as the callback (tiny_tds passes dbsqlok
 * and dbresults themselves): its model decides what can be said. Not
 * thread-safe: the gate fails. Thread-safe per handle: what is open is the
 * handle, the data argument, which the gates do not follow into a library
 * function. No model: the model is the missing fact. Prototypes stand in for
 * the libraries' headers. */
#include <ruby.h>
#include <ruby/thread.h>

typedef struct screen_window WINDOW;
int wgetch(WINDOW *win);                 /* ncurses.yml: thread_safe: never */
typedef struct sqlite3_stmt sqlite3_stmt;
int sqlite3_step(sqlite3_stmt *stmt);    /* sqlite.yml: per_handle */
int unmodelled_library_run(void *handle); /* no model */

typedef void *(*nogvl_fn)(void *);

static VALUE run_direct(VALUE self, VALUE w, VALUE st, VALUE h)
{
	WINDOW *win = (WINDOW *)NUM2PTR(w);
	sqlite3_stmt *stmt = (sqlite3_stmt *)NUM2PTR(st);
	void *handle = (void *)NUM2PTR(h);
	(void)self;
	rb_thread_call_without_gvl((nogvl_fn)wgetch, win, RUBY_UBF_IO, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; opaque callees fail: the callback 'wgetch' is a library function that is not thread-safe (model rules/models/ncurses.yml: */
	rb_thread_call_without_gvl((nogvl_fn)sqlite3_step, stmt, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: the callback 'sqlite3_step' is a library function (model rules/models/sqlite.yml:11: thread-safe per_handle): the gates do not follow the data argument 'stmt' into it [missing: stmt] */
	rb_thread_call_without_gvl((nogvl_fn)unmodelled_library_run, handle, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: the callback 'unmodelled_library_run' has no body in the project (a library function) [missing: unmodelled_library_run] */
	return Qnil;
}

void Init_library_callback(void)
{
	rb_define_method(rb_cObject, "run_direct", run_direct, 3);
}
