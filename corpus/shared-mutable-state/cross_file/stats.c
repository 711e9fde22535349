/* The shared counters live in this file; the callback is in ext.c. */
#include "stats.h"

size_t stats_total;
static size_t stats_calls;

void stats_add(size_t n)
{
	stats_total += n; /* expect: shared-mutable-state */ /* expect-msg: 'stats_add' writes global 'stats_total' */
	stats_calls++;    /* one finding per function: a note on the first write */
}

size_t stats_read(void)
{
	return stats_total + stats_calls; /* reads: fine */
}
