/* inputs_build.h: what the files that build the inputs share (inputs.c,
 * inputs_discover.c, inputs_buildless.c). Private to src/inputs/. */
#ifndef NOGVL_INPUTS_BUILD_H
#define NOGVL_INPUTS_BUILD_H

#include "inputs.h"

#include <stdbool.h>
#include <sys/stat.h>

struct seen_dir {
	dev_t dev;
	ino_t ino;
};
typedef VEC(struct seen_dir) seen_vec;

/* inputs_discover.c */
void add_dir(strlist *l, const char *d);
bool skipped_dir(const char *name, bool include_vendor);
int str_ptr_cmp(const void *a, const void *b);

/* inputs.c */
bool is_cxx(const char *file);
void add_common_args(const struct options *o, struct inputs *in, struct tu_job *j);
void drop_included_sources(strlist *files, const unsigned char *from_dir, strlist *notes);
int check_named_root(const struct options *o, const char *p, char **err);

/* inputs_buildless.c */
int build_buildless(const struct options *o, struct inputs *in, char **err);

#endif
