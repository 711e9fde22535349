#include <ruby.h>
#include "amb/amb.h"
#include "nowhere/missing_header.h"
int b_value(void) { return AMB + missing_fn(); }
