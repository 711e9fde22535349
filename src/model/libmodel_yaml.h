/* libmodel_yaml.h: the model-file reader's insides, shared by libmodel.c
 * (the registry: loading, lookup) and libmodel_yaml.c (a small bounded YAML
 * tree and the entry properties read from it). Inside the model library only. */
#ifndef NOGVL_LIBMODEL_YAML_H
#define NOGVL_LIBMODEL_YAML_H

#include <stdbool.h>
#include <stddef.h>

#include "libmodel.h"
#include "util.h"

enum ynode_kind {
	YN_SCALAR,
	YN_SEQ,
	YN_MAP
};

struct ynode {
	int kind;
	unsigned line, col;
	bool plain;          /* an unquoted scalar */
	const char *text;    /* YN_SCALAR */
	struct ynode **kids; /* YN_SEQ: items; YN_MAP: key, value, key, value ... */
	size_t nkids, cap;
};

struct yload {
	const char *path;
	struct arena *a;
	unsigned nodes;
	char *err;
};

/* Sets y->err to "path:line:col: what" (the first error wins); returns -1. */
PRINTF_LIKE(4, 5)
int yfail(struct yload *y, unsigned line, unsigned col, const char *fmt, ...);
void ytree_free(struct ynode *n);
/* Parses one document into a tree. Returns the root, or NULL with y->err. */
struct ynode *yparse(struct yload *y, const char *text, size_t len);
const char *kind_text(const struct ynode *n);
int want_scalar(struct yload *y, const struct ynode *v, const char *key);
/* Reads the properties of one function entry (map m) into lm. */
int parse_props(struct yload *y, const struct ynode *m, struct lib_model *lm, bool need_source);
/* A C identifier, or a prefix ending in '*'. */
bool valid_name(const char *s);

#endif
