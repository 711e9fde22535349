/* The gem's release macro lives in a header and hard-codes RUBY_UBF_PROCESS. */
#ifndef BLUR_GVL_H
#define BLUR_GVL_H
#include <ruby/thread.h>

#define BLUR_NOGVL(fp, args) rb_thread_call_without_gvl((fp), (args), RUBY_UBF_PROCESS, NULL)

#endif
