/* pch_scan.h: which files may take the shared preamble (pch.h): the text
 * before ruby.h, read without the preprocessor. Internal to pch.c. */
#ifndef NOGVL_PCH_SCAN_H
#define NOGVL_PCH_SCAN_H

#include "util.h"

struct prefix {
	strlist conds; /* identifiers tested by #if lines before ruby.h */
	strlist defs;  /* names #defined or #undefined before ruby.h */
};

#endif
