/* The candidate is right for this site, but the call is written in a macro
 * that the main file names as another macro's argument: its location here is
 * that argument, and a patch there would rewrite the macro's name. No
 * automatic fix (the flag belongs in the macro, if every site it makes
 * qualifies). */
#include "ops.h"

EACH_OPERATION(MAKE_CALLBACK)
EACH_OPERATION(MAKE_WRAPPER) /* expect: offload-candidate */ /* expect-note: no automatic fix: the call is written inside a macro */

VALUE copy_large(VALUE self)
{
	char in[65536], out[65536];
	memset(in, 1, sizeof(in));
	struct copy_job j = {out, in, sizeof(in)};
	bulk_copy_released(&j);
	return self;
}
