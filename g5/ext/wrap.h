#include <ruby/thread.h>
#define RUN_NOGVL(f, d) rb_thread_call_without_gvl((f), (d), RUBY_UBF_IO, NULL)
