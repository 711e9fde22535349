/* libmodel.c: loads and answers library models (libmodel.h). */
#include "libmodel.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/ipc.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef F_OFD_SETLKW
#define F_OFD_SETLKW F_SETLKW
#endif

#include "model_files.h"
#include "libmodel_yaml.h"
#include "util.h"

/* ---- the registry ---- */

struct registry {
	bool loaded;
	struct arena a;
	struct hmap exact; /* name -> struct lib_model* */
	VEC(struct lib_model *) prefixes;
	VEC(struct lib_model *) all;
	size_t nuser;
};

static struct registry reg;

typedef VEC(struct lib_model *) model_vec;

void models_reset(void)
{
	hmap_free(&reg.exact);
	vec_free(&reg.prefixes);
	vec_free(&reg.all);
	arena_free(&reg.a);
	memset(&reg, 0, sizeof(reg));
}

static struct lib_model *lookup_entry(const char *name)
{
	struct lib_model *lm = hmap_get(&reg.exact, name);
	if (lm)
		return lm;
	for (size_t i = 0; i < reg.prefixes.n; i++)
		if (str_eq(reg.prefixes.v[i]->name, name))
			return reg.prefixes.v[i];
	return NULL;
}

static void replace_entry(struct lib_model *old, struct lib_model *nu)
{
	size_t n = strlen(nu->name);
	if (n && nu->name[n - 1] == '*') {
		for (size_t i = 0; i < reg.prefixes.n; i++)
			if (reg.prefixes.v[i] == old)
				reg.prefixes.v[i] = nu;
	} else {
		hmap_put(&reg.exact, nu->name, nu);
	}
	for (size_t i = 0; i < reg.all.n; i++)
		if (reg.all.v[i] == old)
			reg.all.v[i] = nu;
}

/* The top of a model file: library, about, functions. Returns the
 * functions mapping (*library set), or NULL with y->err. */
static const struct ynode *file_top(struct yload *y, const struct ynode *root, const char **library_out)
{
	const char *library = NULL;
	const struct ynode *fns = NULL;
	if (root->kind != YN_MAP) {
		yfail(y, root->line, root->col, "a model file must be a mapping with 'library' and 'functions'");
		return NULL;
	}
	for (size_t i = 0; i + 1 < root->nkids; i += 2) {
		const struct ynode *k = root->kids[i], *v = root->kids[i + 1];
		if (k->kind != YN_SCALAR) {
			yfail(y, k->line, k->col, "a key must be a scalar");
			return NULL;
		}
		if (str_eq(k->text, "library")) {
			if (library) {
				yfail(y, k->line, k->col, "'library' given twice");
				return NULL;
			}
			if (want_scalar(y, v, "library"))
				return NULL;
			library = v->text;
		} else if (str_eq(k->text, "functions")) {
			if (fns) {
				yfail(y, k->line, k->col, "'functions' given twice");
				return NULL;
			}
			if (v->kind != YN_MAP) {
				yfail(y, v->line, v->col, "'functions' must be a mapping of function names, not %s",
				      kind_text(v));
				return NULL;
			}
			fns = v;
		} else if (str_eq(k->text, "about")) {
			if (want_scalar(y, v, "about"))
				return NULL;
		} else {
			yfail(y, k->line, k->col, "unknown key '%s' (expected library, about, functions)", k->text);
			return NULL;
		}
	}
	if (!library || !*library) {
		yfail(y, root->line, root->col, "a model file needs 'library: NAME'");
		return NULL;
	}
	if (!fns) {
		yfail(y, root->line, root->col, "a model file needs 'functions:'");
		return NULL;
	}
	*library_out = library;
	return fns;
}

/* The entries of the functions mapping into *added (none yet registered);
 * stops at the first bad one (y->err). */
static void file_entries(struct yload *y, const struct ynode *fns, const char *library, const char *path, bool user,
			 model_vec *added)
{
	struct hmap here = {0};
	for (size_t i = 0; i + 1 < fns->nkids && !y->err; i += 2) {
		const struct ynode *k = fns->kids[i], *v = fns->kids[i + 1];
		if (k->kind != YN_SCALAR || !valid_name(k->text)) {
			yfail(y, k->line, k->col, "'%s' is not a C function name (or a prefix ending in '*')",
			      k->kind == YN_SCALAR ? k->text : kind_text(k));
			break;
		}
		struct lib_model *prev_here = hmap_get(&here, k->text);
		if (prev_here) {
			yfail(y, k->line, k->col, "'%s' is modelled twice in this file (first at line %u)", k->text,
			      prev_here->line);
			break;
		}
		struct lib_model *lm = arena_alloc(&reg.a, sizeof(*lm));
		lm->name = k->text;
		lm->library = library;
		lm->file = arena_strdup(&reg.a, path);
		lm->line = k->line;
		lm->col = k->col;
		lm->user = user;
		lm->pure = lm->ruby_alloc = lm->async_signal_safe = lm->cheap = lm->dequeues = -1;
		lm->size_arg = lm->null_arg = lm->registers_handler = -1;
		lm->handle_arg = 0;
		if (parse_props(y, v, lm, true))
			break;
		hmap_put(&here, lm->name, lm);
		vec_push(added, lm);
	}
	hmap_free(&here);
}

/* Checks the new entries against what is loaded (a user file may override a
 * shipped model, not another user file), then registers them. */
static void file_commit(struct yload *y, model_vec *added, bool user)
{
	/* every entry is valid: now check them against what is loaded, then commit */
	for (size_t i = 0; i < added->n; i++) {
		struct lib_model *lm = added->v[i], *old = lookup_entry(lm->name);
		if (old && (!user || old->user)) {
			yfail(y, lm->line, lm->col, "'%s' is already modelled at %s:%u", lm->name, old->file,
			      old->line);
			return;
		}
	}
	for (size_t i = 0; i < added->n; i++) {
		struct lib_model *lm = added->v[i], *old = lookup_entry(lm->name);
		if (old) {
			lm->overrides = true;
			replace_entry(old, lm);
			continue;
		}
		size_t n = strlen(lm->name);
		if (lm->name[n - 1] == '*')
			vec_push(&reg.prefixes, lm);
		else
			hmap_put(&reg.exact, lm->name, lm);
		vec_push(&reg.all, lm);
	}
	if (user)
		reg.nuser += added->n;
}

int models_load_text(const char *path, const char *text, size_t len, bool user, char **err)
{
	if (user && !reg.loaded && models_init(err))
		return -1;
	struct yload y = {path, &reg.a, 0, NULL};
	struct ynode *root = yparse(&y, text, len);
	if (!root) {
		if (!y.err)
			yfail(&y, 1, 1, "empty model file");
		*err = y.err;
		return -1;
	}
	const char *library = NULL;
	model_vec added = {0};
	const struct ynode *fns = file_top(&y, root, &library);
	if (fns) {
		file_entries(&y, fns, library, path, user, &added);
		if (!y.err)
			file_commit(&y, &added, user);
	}
	vec_free(&added);
	ytree_free(root);
	if (y.err) {
		*err = y.err;
		return -1;
	}
	return 0;
}

int models_init(char **err)
{
	if (reg.loaded)
		return 0;
	reg.loaded = true;
	for (unsigned i = 0; i < model_file_count; i++) {
		char *path = xasprintf("rules/models/%s", model_files[i].name);
		int rc = models_load_text(path, model_files[i].text, model_files[i].len, false, err);
		free(path);
		if (rc)
			return -1;
	}
	return 0;
}

int models_load_file(const char *path, char **err)
{
	char *e = NULL;
	if (models_init(&e)) {
		*err = e;
		return -1;
	}
	size_t len = 0;
	char *text = read_bounded_text(path, MODEL_MAX_BYTES, "model file", &len, err);
	if (!text)
		return -1;
	int rc = models_load_text(path, text, len, true, err);
	free(text);
	return rc;
}

const struct lib_model *model_find(const char *fn)
{
	if (!fn || !*fn)
		return NULL;
	if (!reg.loaded) {
		char *err = NULL;
		if (models_init(&err)) {
			/* a broken built-in model is a build defect (tests/unit checks
			 * them); answer "no model" rather than guess */
			free(err);
		}
	}
	struct lib_model *lm = hmap_get(&reg.exact, fn);
	if (lm)
		return lm;
	const struct lib_model *best = NULL;
	size_t best_len = 0;
	for (size_t i = 0; i < reg.prefixes.n; i++) {
		const char *p = reg.prefixes.v[i]->name;
		size_t n = strlen(p) - 1;
		if (n > best_len && strncmp(fn, p, n) == 0) {
			best = reg.prefixes.v[i];
			best_len = n;
		}
	}
	return best;
}

const char *model_where(const struct lib_model *lm, char *buf, size_t n)
{
	snprintf(buf, n, "%s:%u", lm ? lm->file : "?", lm ? lm->line : 0);
	return buf;
}

size_t models_user_count(void)
{
	return reg.nuser;
}

const struct lib_model *const *models_all(size_t *n)
{
	if (!reg.loaded) {
		char *err = NULL;
		if (models_init(&err))
			free(err);
	}
	*n = reg.all.n;
	return (const struct lib_model *const *)reg.all.v;
}
