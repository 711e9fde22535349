/* nogvl-lint-test: --enable debug-offload-verdict */
/* C++ member functions that hand state of the object they run on to a
 * callback. A data member reached through `this` (explicit `this->m`, a bare
 * member name, `(*this).m`) belongs to whoever holds the object: other fibers
 * of the thread can reach it, and free it, while a worker runs the callback,
 * exactly as with `self->m` through a struct pointer parameter in C. None of
 * these is an offload candidate. A static data member is one object for the
 * whole process (a static array fails the outputs gate; what a static pointer
 * points to cannot be verified, as with a global pointer in C). A plain local of a member function is the method's own (the
 * last two cases stay candidates). */
#include <ruby.h>
#include <ruby/thread.h>

struct fill_args {
	int fd;
	int *slots;
	long n;
	long done;
};

static void *fill_nogvl(void *p)
{
	struct fill_args *a = (struct fill_args *)p;
	for (long i = 0; i < a->n; i++)
		a->slots[i] = a->fd + (int)i;
	a->done = a->n;
	return NULL;
}

class Poller;
static void *scan_nogvl(void *p);

class Poller {
public:
	int fd;
	int slots[32];
	int *spill;
	long done;
	static int common[32];
	static int *common_ptr;

	void bare_member();
	void explicit_this();
	void deref_this();
	void pointer_member();
	void static_member();
	void static_pointer_member();
	void whole_object();
	void scalar_local();
	void array_local();
};

int Poller::common[32];
int *Poller::common_ptr;

void Poller::bare_member()
{
	struct fill_args a = {0, slots, 32, 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: cannot verify; inputs cannot verify: the callback's data holds 'this->slots', a member of the object the method runs on */
	done = a.done;
}

void Poller::explicit_this()
{
	struct fill_args a = {0, this->slots, 32, 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: [missing: this->slots] */
}

void Poller::deref_this()
{
	struct fill_args a = {0, (*this).slots, 32, 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: [missing: this->slots] */
}

void Poller::pointer_member()
{
	struct fill_args a = {0, spill, 32, 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: [missing: this->spill] */
}

void Poller::static_member()
{
	struct fill_args a = {0, common, 32, 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: offload verdict: not offload-safe; outputs fail: 'common' is a static buffer handed to the callback */
}

void Poller::static_pointer_member()
{
	struct fill_args a = {0, Poller::common_ptr, 32, 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: inputs cannot verify: the callback's data holds what the global or static pointer 'common_ptr' points to */
}

static void *scan_nogvl(void *p)
{
	Poller *self = (Poller *)p;
	for (int i = 0; i < 32; i++)
		self->slots[i] = i;
	return NULL;
}

void Poller::whole_object()
{
	rb_thread_call_without_gvl(scan_nogvl, this, NULL, NULL); /* expect: debug-offload-verdict */ /* expect-msg: inputs cannot verify: the callback's data comes from the caller ('this') */
}

void Poller::scalar_local()
{
	int mine[32];
	struct fill_args a = {3, mine, 32, 0};
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: offload-candidate:note, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
}

void Poller::array_local()
{
	int mine[32];
	struct fill_args a;
	a.fd = 1;
	a.slots = mine;
	a.n = 32;
	a.done = 0;
	rb_thread_call_without_gvl(fill_nogvl, &a, NULL, NULL); /* expect: offload-candidate:note, debug-offload-verdict */ /* expect-msg: offload verdict: candidate */
	done = a.done;
}
