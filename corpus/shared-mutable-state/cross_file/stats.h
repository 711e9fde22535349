#ifndef CROSS_FILE_STATS_H
#define CROSS_FILE_STATS_H
#include <stddef.h>
extern size_t stats_total;
void stats_add(size_t n);
size_t stats_read(void);
#endif
