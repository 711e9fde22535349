/* link_steps.h: what the files of the linker share (link.c, link_callbacks.c,
 * link_sites.c, link_graph.c): its vectors and the steps model_link calls.
 * Private to src/model/. */
#ifndef NOGVL_LINK_STEPS_H
#define NOGVL_LINK_STEPS_H

#include "model.h"

#include <stdbool.h>
#include <stdint.h>

typedef VEC(uint32_t) u32vec;

typedef VEC(const struct binding *) binding_vec;

typedef VEC(struct call_at) call_at_vec;

/* link.c */
int32_t fn_id_from(const struct model *m, const char *usr, const struct tu_facts *from);
int32_t local_fn_index(const struct mfunc *mf);

/* link_callbacks.c */
void add_binding(struct model *m, const struct binding *b);
void index_calls(struct model *m);
struct cbres resolve_fn_expr(struct model *m, const struct mfunc *mf, uint32_t before, const struct expr *e);

/* model_iter.c: m->fn_refs (filled by find_address_taken's walk) */
void index_fn_ref(struct model *m, const char *usr, uint32_t fi, uint32_t ei);
void fn_refs_free(struct model *m);
void model_memo_free(struct model *m);

/* link_sites.c */
bool is_param_of(const struct mfunc *mf, const struct expr *e, int *index);
const struct expr *arg_at(const struct call *c, int i);
void find_sites(struct model *m);
void add_token_sites(struct model *m);
int site_cmp(const void *a, const void *b);

/* link_graph.c */
void build_edges(struct model *m);
void add_library_callback_edges(struct model *m);
int param_via_cmp(const void *a, const void *b);
void index_edges(struct model *m);
bool add_param_edges(struct model *m);

#endif
