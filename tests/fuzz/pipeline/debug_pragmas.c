#include <ruby.h>
int v = 1;
#pragma clang __debug dump v
_Pragma("clang __debug dump v")
#pragma clang __debug crash
static void *cb(void *p) { return p; }
