/* reachable.c: release sites in functions nothing in the gem calls.
 *
 * A function is unreachable only when it is `static` C, defined in its
 * translation unit's main file, and nothing refers to it: no call edge from a
 * reachable function, its address never taken (rb_define_method, a callback
 * argument, a field or variable binding), and its name spelled in none of the
 * translation unit's project files except where it is declared or defined
 * (a prototype or the definition at file scope). The spelling check is what
 * keeps a function used only in a preprocessor branch not compiled here, in a
 * macro body, or in code the parser lost, reachable. Anything else (non-static
 * and so exported, C++, defined in a header) is reachable. A function called
 * only from unreachable functions is unreachable too (the spellings inside
 * their bodies do not count). */
#include <stdlib.h>
#include <string.h>

#include "c_scan.h"
#include "model.h"

#define REACH_MAX_SOURCE (16u * 1024 * 1024)

/* A spelling of a name in a file: at file scope followed by '(' (a
 * declaration or the definition) or anything else (a use). */
struct spelling {
	const char *file;
	uint32_t line;
	bool decl;
};
typedef VEC(struct spelling) spellvec;

struct scan_names {
	const char *file;
	struct hmap *names; /* name -> candidate index + 1 */
	spellvec *out;
	const char *text; /* the text scanned, len bytes */
	size_t len;
};

static void spelled_name(const struct c_ident *id, void *arg)
{
	struct scan_names *sn = arg;
	char name[256];
	if (id->n >= sizeof(name))
		return;
	memcpy(name, id->s, id->n);
	name[id->n] = 0;
	uintptr_t k = (uintptr_t)hmap_get(sn->names, name);
	if (!k)
		return;
	const char *text = sn->text;
	size_t j = id->end, len = sn->len;
	while (j < len && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r'))
		j++;
	struct spelling sp = {sn->file, id->line, !id->in_directive && id->depth == 0 && j < len && text[j] == '('};
	vec_push(&sn->out[k - 1], sp);
}

/* Every spelling of any candidate name in text (comments, strings and char
 * literals skipped), appended to per-candidate vectors. */
static void scan_text(const char *file, const char *text, size_t len, struct hmap *names, spellvec *out)
{
	struct scan_names sn = {file, names, out, text, len};
	c_scan_idents(text, len, C_SCAN_C, spelled_name, &sn);
}

static bool inside(const struct func *f, const char *file, uint32_t line)
{
	return f->loc.file && file && strcmp(f->loc.file, file) == 0 && line >= f->loc.line && line <= f->end.line;
}

typedef VEC(uint32_t) cand_vec;

/* Every candidate of tu stays reachable: a use of unknown place. */
static void keep_candidates_of(const struct model *m, const cand_vec *cands, const struct tu_facts *tu, spellvec *sp)
{
	for (size_t c = 0; c < cands->n; c++)
		if (m->fns.v[cands->v[c]].tu == tu) {
			struct spelling use = {NULL, 0, false};
			vec_push(&sp[c], use);
		}
}

/* the spellings of each candidate's name in its translation unit's files */
static void spell_candidates(const struct model *m, const cand_vec *cands, spellvec *sp)
{
	for (size_t t = 0; t < m->ntus; t++) {
		struct tu_facts *tu = m->tus[t];
		struct hmap names = {0};
		bool any = false;
		for (size_t c = 0; c < cands->n; c++)
			if (m->fns.v[cands->v[c]].tu == tu) {
				/* two statics of one name in one TU cannot be: one key each */
				hmap_put(&names, m->fns.v[cands->v[c]].f->name, (void *)(uintptr_t)(c + 1));
				any = true;
			}
		if (!any) {
			hmap_free(&names);
			continue;
		}
		bool main_seen = false;
		for (size_t k = 0; k < tu->files.n; k++) {
			size_t len = 0;
			char *text = read_file(tu->files.v[k].path, &len, REACH_MAX_SOURCE);
			if (!text) {
				/* unreadable: every candidate of this TU stays reachable */
				keep_candidates_of(m, cands, tu, sp);
				continue;
			}
			main_seen = main_seen || tu->files.v[k].is_main;
			scan_text(tu->files.v[k].path, text, len, &names, sp);
			free(text);
		}
		if (!main_seen)
			keep_candidates_of(m, cands, tu, sp);
		hmap_free(&names);
	}
}

/* fixed point: a candidate is reachable once a reachable function calls
 * it or it is spelled as a use outside every still-unreachable body */
static void settle_dead(const struct model *m, const cand_vec *cands, const spellvec *sp, uint8_t *dead)
{
	for (bool changed = true; changed;) {
		changed = false;
		for (size_t c = 0; c < cands->n; c++) {
			uint32_t fi = cands->v[c];
			if (!dead[fi])
				continue;
			const struct mfunc *mf = &m->fns.v[fi];
			bool live = false;
			struct caller_walk w;
			for (caller_walk_init(&w, m, mf); !live && caller_walk_next(&w);)
				live = !dead[w.edge->from];
			for (size_t s = 0; s < sp[c].n && !live; s++) {
				const struct spelling *p = &sp[c].v[s];
				if (p->decl)
					continue;
				bool in_dead = false;
				for (size_t d = 0; d < cands->n && !in_dead && p->file; d++)
					in_dead =
						dead[cands->v[d]] && inside(m->fns.v[cands->v[d]].f, p->file, p->line);
				live = !in_dead;
			}
			if (live) {
				dead[fi] = 0;
				changed = true;
			}
		}
	}
}

void model_mark_unreachable(struct model *m)
{
	size_t nf = m->fns.n;
	if (!nf)
		return;
	/* candidates: static C functions of a main file */
	int32_t *cand = xmalloc(nf * sizeof(*cand)); /* candidate index, -1 */
	cand_vec cands = {0};
	for (uint32_t i = 0; i < nf; i++) {
		const struct mfunc *mf = &m->fns.v[i];
		const struct func *f = mf->f;
		cand[i] = -1;
		if (!(f->flags & FN_STATIC) || (f->flags & (FN_CXX | FN_IN_HEADER)) || mf->address_taken ||
		    mf->protected_body || mf->wrapper >= 0 || !f->name || !f->loc.file || !mf->tu->path ||
		    strcmp(f->loc.file, mf->tu->path) != 0 || mf->tu->cxx)
			continue;
		cand[i] = (int32_t)cands.n;
		vec_push(&cands, i);
	}
	if (!cands.n) {
		free(cand);
		return;
	}
	spellvec *sp = xcalloc(cands.n, sizeof(*sp));
	spell_candidates(m, &cands, sp);
	uint8_t *dead = xmalloc(nf);
	for (uint32_t i = 0; i < nf; i++)
		dead[i] = cand[i] >= 0;
	settle_dead(m, &cands, sp, dead);
	for (uint32_t i = 0; i < nf; i++)
		m->fns.v[i].unreachable = dead[i];
	for (size_t i = 0; i < m->sites.n; i++)
		m->sites.v[i].unreachable = m->fns.v[m->sites.v[i].fn].unreachable;
	for (size_t c = 0; c < cands.n; c++)
		vec_free(&sp[c]);
	free(sp);
	free(dead);
	free(cand);
	vec_free(&cands);
}
