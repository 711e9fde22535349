#include <ruby.h>
void *b_work(void *p) { VALUE *s = p; return (void *)RSTRING_LEN(*s); }
