/* nogvl-lint-test: --enable debug-offload-verdict */
/* A mutex counts as the object's guard only when it is the same member of
 * the same object struct: here #clear takes a mutex that is also called
 * `lock`, but it belongs to another kind of object (the journal), so it does
 * not stop another fiber from freeing the grid's cells while the worker runs. */
#include <ruby.h>
#include <ruby/thread.h>
#include <stdlib.h>

struct grid {
	long *cells;
	long ncells;
	VALUE lock;
};

struct journal {
	long entries;
	VALUE lock;
};

static const rb_data_type_t grid_type = {"grid", {NULL, NULL, NULL}, NULL, NULL, 0};
static const rb_data_type_t journal_type = {"journal", {NULL, NULL, NULL}, NULL, NULL, 0};
static VALUE the_journal;

static void *grid_nogvl(void *p)
{
	struct grid *g = p;
	for (long i = 1; i < g->ncells; i++)
		g->cells[i] += g->cells[i - 1];
	return NULL;
}

static VALUE grid_scan(VALUE self)
{
	struct grid *g;
	TypedData_Get_Struct(self, struct grid, &grid_type, g);
	rb_mutex_lock(g->lock);
	rb_nogvl(grid_nogvl, g, NULL, NULL, 0); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; inputs fail: 'grid_nogvl' uses 'g->ncells' (field 'ncells' of struct grid) under the mutex 'g->lock', but 'grid_clear' touches the same field without it */
	rb_mutex_unlock(g->lock);
	return self;
}

/* the journal's lock, not the grid's */
static VALUE grid_clear(VALUE self)
{
	struct grid *g;
	struct journal *j;
	TypedData_Get_Struct(self, struct grid, &grid_type, g);
	TypedData_Get_Struct(the_journal, struct journal, &journal_type, j);
	rb_mutex_lock(j->lock);
	free(g->cells);
	g->cells = NULL;
	g->ncells = 0;
	j->entries++;
	rb_mutex_unlock(j->lock);
	return self;
}

void Init_mutex_other_object(void)
{
	VALUE c = rb_define_class("Grid", rb_cObject);
	rb_define_method(c, "scan", grid_scan, 0);
	rb_define_method(c, "clear", grid_clear, 0);
	rb_gc_register_address(&the_journal);
}
