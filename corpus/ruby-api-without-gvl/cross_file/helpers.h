#ifndef CROSS_HELPERS_H
#define CROSS_HELPERS_H
#include <ruby.h>
struct job {
	VALUE out;
	long n;
};
void level1(struct job *j);
void level2(struct job *j);
void level3(struct job *j);
long fill_with_gvl_only(struct job *j);
#endif
