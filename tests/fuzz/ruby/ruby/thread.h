/* Stand-in for ruby/thread.h (see ../ruby.h): the GVL release API. */
#ifndef FUZZ_RUBY_THREAD_H
#define FUZZ_RUBY_THREAD_H
#include "../ruby.h"
#define RB_NOGVL_INTR_FAIL 0x1
#define RB_NOGVL_UBF_ASYNC_SAFE 0x2
#define RUBY_UBF_IO ((rb_unblock_function_t *)-1)
#define RUBY_UBF_PROCESS ((rb_unblock_function_t *)-1)
void *rb_thread_call_with_gvl(void *(*func)(void *), void *data1);
void *rb_thread_call_without_gvl(void *(*func)(void *), void *data1, rb_unblock_function_t *ubf, void *data2);
void *rb_thread_call_without_gvl2(void *(*func)(void *), void *data1, rb_unblock_function_t *ubf, void *data2);
void *rb_nogvl(void *(*func)(void *), void *data1, rb_unblock_function_t *ubf, void *data2, int flags);
int ruby_thread_has_gvl_p(void);
int ruby_native_thread_p(void);
#endif
