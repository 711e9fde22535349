/* facts.c: helpers over struct tu_facts. */
#include "facts.h"

#include <stdlib.h>
#include <string.h>

void tu_facts_free(struct tu_facts *tu)
{
	if (!tu)
		return;
	vec_free(&tu->funcs);
	vec_free(&tu->vars);
	vec_free(&tu->bindings);
	vec_free(&tu->macro_exps);
	vec_free(&tu->macro_defs);
	vec_free(&tu->includes);
	vec_free(&tu->pp_conds);
	vec_free(&tu->pp_defines);
	vec_free(&tu->token_sites);
	vec_free(&tu->diags);
	vec_free(&tu->files);
	vec_free(&tu->dropped_flags);
	strpool_free(&tu->pool);
	arena_free(&tu->arena);
	free(tu);
}

const struct var *tu_var(const struct tu_facts *tu, int32_t idx)
{
	if (idx < 0 || (size_t)idx >= tu->vars.n)
		return NULL;
	return &tu->vars.v[idx];
}

const struct var *ref_var(const struct tu_facts *tu, const struct ref *r)
{
	return r ? tu_var(tu, r->var) : NULL;
}

bool ref_same(const struct ref *a, const struct ref *b)
{
	return a->var >= 0 && a->var == b->var && str_eq(a->path ? a->path : "", b->path ? b->path : "");
}

bool ref_path_prefix(const char *p, const char *q)
{
	p = p ? p : "";
	q = q ? q : "";
	size_t n = strlen(p);
	if (!n)
		return true;
	return strncmp(p, q, n) == 0 && (q[n] == '\0' || q[n] == '.' || q[n] == '[');
}

bool ref_within(const struct ref *a, const struct ref *b)
{
	return a->var >= 0 && a->var == b->var && ref_path_prefix(b->path, a->path);
}

bool ref_related(const struct ref *a, const struct ref *b)
{
	return a->var >= 0 && a->var == b->var &&
	       (ref_path_prefix(a->path, b->path) || ref_path_prefix(b->path, a->path));
}

bool expr_reads_var(const struct expr *x, int32_t var)
{
	if (x->kind == EX_REF && x->ref.var == var)
		return true;
	for (uint32_t k = 0; k < x->nreads; k++)
		if (x->reads[k].var == var)
			return true;
	return false;
}

const char *ref_text(struct tu_facts *tu, const struct ref *r)
{
	const struct var *v = ref_var(tu, r);
	if (!v)
		return r->field ? r->field : "?";
	if (!r->path || !*r->path)
		return v->name;
	/* an element of an array (argv[i], binds[i].buf): "argv[]", "binds[].buf" */
	const char *sep = r->path[0] == '[' ? "" : r->deref ? "->" : ".";
	return arena_printf(&tu->arena, "%s%s%s", v->name, sep, r->path);
}
