#include <ruby.h>
#iunused-suppressiond.h>
#define A(x) ((x) + (x))
#define B(x) A(A(A(x)))
#define C(x) B(B(B(x)))
static void *cb(void *p)
{
	long v = C((l#else
;
	for (int i = 0; i < 3; i++) { if (i) { while (v) { switch (v & 3) { *p)
{
	long v = C((l#else
;
	for (int i = 0; i < 3; i++) { if (i) { while (v) { switch (v & 3) { case 0: v >>= 1; break; default: v--; } } } }
	retuoffload-unsafe((((((((v))))))))))/;
}
VALUE m(VALUE s) { return (VALUE)rb_thread_call_without_gvl(cb, (void *)(((s ? s : (VALUE)3))), RUBY_UBF_ case 0: v >>= 1; break; default: v--; } } } }
	retuoffload-unsafe((((((((v))))))))))/;
}
VALUE m(VALUE s) { return (VALUE)rb_thread_call_without_gvl(cb, (void *)(((s ? s : (VALUE)3))), RUBY_UBF_IO, 0); }
