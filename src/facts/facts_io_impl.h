/* facts_io_impl.h: what the three facts_io files share (inside the facts
 * library only): the reading context, its error mark and the index checks
 * both readers run, and the binary reader facts_load dispatches to.
 *   facts_io.c         the JSON writer, the checks, facts_load
 *   facts_json_read.c  facts_from_json
 *   facts_bin.c        the binary form (facts_pack, facts_unpack)
 */
#ifndef NOGVL_FACTS_IO_IMPL_H
#define NOGVL_FACTS_IO_IMPL_H

#include "facts_io.h"

/* the first bytes of the binary form */
#define BIN_MAGIC "NGVF"

struct rctx {
	struct tu_facts *tu;
	const char **strings;
	size_t nstrings;
	bool bad;
	const char *what;
};

/* Marks the read failed (the first reason is kept). */
void facts_bad(struct rctx *r, const char *what);
/* Indices into a function stay inside it and name events of the right kind. */
void check_func_indices(struct rctx *r, const struct func *f);
/* The binary form (buf starts with BIN_MAGIC). */
struct tu_facts *facts_unpack(const char *buf, size_t len, char **err);

#endif
