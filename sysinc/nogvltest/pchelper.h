#include <ruby.h>
static inline long helper_len(VALUE s) { return RSTRING_LEN(s); }
