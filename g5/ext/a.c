#include <ruby.h>
#include "wrap.h"
#include <nogvl_test_absent_lib.h>
static void *work(void *p) { return lib_work(p); }
VALUE go(VALUE self) { lib_t x = LIB_INIT; RUN_NOGVL(work, &x); return Qnil; }
