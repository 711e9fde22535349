/* safe_calls.c: library functions a callback may call on any thread, and
 * constant-cost calls, answered from the library models (rules/models/<library>.yml,
 * rules/libmodel.h): thread_safe always or per_handle, cheap, size_arg.
 *
 * Used by the offload gate's "opaque callees" check: a reached function
 * without a body must be modelled thread-safe (or be one of Ruby's
 * allowed/pure helpers) for the verdict to be "safe"; anything else is
 * "cannot verify". A per_handle function is safe as far as the library is
 * concerned; whether the handle is shared is the inputs and object-state
 * gates' business.
 */
#include "knowledge.h"
#include "libmodel.h"

bool known_safe_call(const char *name)
{
	const struct lib_model *lm = model_find(name);
	int ts = lm_thread_safety(lm);
	return ts == LM_TS_ALWAYS || ts == LM_TS_PER_HANDLE;
}

bool cheap_call(const char *name)
{
	const struct lib_model *lm = model_find(name);
	return lm && lm->cheap == 1;
}

bool waiting_call(const char *name)
{
	const struct lib_model *lm = model_find(name);
	return lm && (lm->blocking || (lm->kinds & LM_KIND_LOCK) ||
		      (lm->blocks != LM_BLOCKS_UNKNOWN && lm->blocks != LM_BLOCKS_NO));
}

/* Size argument positions of the cheap functions that take one. */
int cheap_call_size_arg(const char *name)
{
	if (!name)
		return -1;
	/* Ruby's helper (ruby/internal/memory.h), classified as Ruby API in C */
	if (str_eq(name, "ruby_nonempty_memcpy"))
		return 2;
	const struct lib_model *lm = model_find(name);
	return lm && lm->cheap == 1 ? lm->size_arg : -1;
}
