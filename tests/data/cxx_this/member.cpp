/* A method that reads one member of its object (count) and hands another
 * (slots) to the callback: the inputs gate's missing fact names this->slots
 * and points at `slots` as written (line 32), not at the method's first use
 * of a member (count, line 30). tests/cli/cxx_this_fact.sh */
#include <ruby.h>
#include <ruby/thread.h>

struct fill_args {
	int *slots;
	long n;
};

static void *fill_nogvl(void *p)
{
	struct fill_args *a = (struct fill_args *)p;
	for (long i = 0; i < a->n; i++)
		a->slots[i] = (int)i;
	return NULL;
}

class Poller {
public:
	long count;
	int slots[32];
	void run();
};

void Poller::run()
{
	long c = count;
	struct fill_args a = {0, c};
	a.slots = slots;
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL);
}
