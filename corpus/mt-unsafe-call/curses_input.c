/* A curses binding that reads a key without the GVL: the curses library is
 * not thread-safe (rules/models/ncurses.yml, curs_threads(3X)), so while the
 * callback waits in wgetch another Ruby thread may call curses (addstr,
 * refresh) on the same screen at the same time. The same call made with the
 * GVL held is fine. The library is declared here. */
#include <ruby.h>
#include <ruby/thread.h>

typedef struct screen_window WINDOW;
extern WINDOW *stdscr;
int wgetch(WINDOW *win);
int wget_wch(WINDOW *win, int *wch);
int wgetnstr(WINDOW *win, char *str, int n);
int waddstr(WINDOW *win, const char *str);

struct key_read {
	WINDOW *win;
	int c;
};

static void *read_key(void *p)
{
	struct key_read *k = p;
	k->c = wgetch(k->win); /* expect: mt-unsafe-call */ /* expect-msg: 'wgetch' is not thread-safe (it works on the curses screen, process-wide state with no lock) */
	return NULL;
}

struct line_read {
	WINDOW *win;
	char buf[256];
};

static void *read_line(void *p)
{
	struct line_read *l = p;
	wgetnstr(l->win, l->buf, (int)sizeof(l->buf) - 1); /* expect: mt-unsafe-call */
	return NULL;
}

static VALUE win_getch(VALUE self)
{
	struct key_read k = {stdscr, 0};
	rb_thread_call_without_gvl(read_key, &k, RUBY_UBF_IO, NULL);
	return INT2FIX(k.c);
}

static VALUE win_getstr(VALUE self)
{
	struct line_read l = {stdscr, {0}};
	rb_thread_call_without_gvl(read_line, &l, RUBY_UBF_IO, NULL);
	return rb_str_new_cstr(l.buf);
}

/* trap: with the GVL held no other Ruby thread runs curses meanwhile */
static VALUE win_getch_locked(VALUE self)
{
	int wch = 0;
	waddstr(stdscr, "> ");
	wget_wch(stdscr, &wch);
	return INT2FIX(wgetch(stdscr));
}

void Init_curses_input(void)
{
	VALUE c = rb_define_class("Win", rb_cObject);
	rb_define_method(c, "getch", win_getch, 0);
	rb_define_method(c, "getstr", win_getstr, 0);
	rb_define_method(c, "getch_locked", win_getch_locked, 0);
}
