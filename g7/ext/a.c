#include <ruby.h>
#include <ruby/thread.h>
void *b_work(void *p);
VALUE go(VALUE self, VALUE s) { rb_thread_call_without_gvl(b_work, &s, RUBY_UBF_IO, NULL); return s; }
