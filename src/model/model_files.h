/* model_files.h: the library models (rules/models/<library>.yml), embedded at build
 * time by cmake/embed.cmake. */
#ifndef NOGVL_MODEL_FILES_H
#define NOGVL_MODEL_FILES_H

#include <stddef.h>

struct model_file {
	const char *name; /* "zlib.yml" */
	const char *text;
	size_t len;
};

/* Sorted by name; terminated by {NULL, NULL, 0}. */
extern const struct model_file model_files[];
extern const unsigned model_file_count;

#endif
