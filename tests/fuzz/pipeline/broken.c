#include <ruby.h>
#include <ruby/thread.h>
static void *cb(void *p) { undeclared_call(p); return missing_type_t x; }
VALUE m(VALUE s) { rb_thread_call_without_gvl(cb, (void *)s, RUBY_UBF_IO, 0 ; return s }
#if 0
rb_thread_call_without_gvl(never, 0, 0, 0);
#endif
struct { int (*f)(void); } s = { .f = (int (*)(void))rb_thread_call_without_gvl };
