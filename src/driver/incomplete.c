/* incomplete.c: what the parse could not read (issue 14): headers found
 * again in the tree and re-parsed, then what stays missing or unread, for
 * the summary and exit status 3. Part of the driver (run.c). */
#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "run_parts.h"

/* ---- headers the parse could not find (issue 14) ---- */

/* The header search of one run: the index of the trees (built on first
 * use) and each header name's candidate directories. */
struct header_search {
	struct header_index hi;
	bool indexed;
	struct hmap answers; /* header name -> strlist * of candidate directories */
	strlist keys;
};

static void header_search_index(struct header_search *hs, const struct run *r)
{
	hs->hi.deadline = now_seconds() + HEADER_SEARCH_MAX_SECONDS;
	for (size_t i = 0; i < r->in.search_roots.n; i++)
		header_index_add_tree(&hs->hi, r->in.search_roots.v[i]);
	for (size_t i = 0; i < hs->hi.notes.n; i++)
		log_verbose(1, "%s", hs->hi.notes.v[i]);
	if (hs->hi.bounded)
		log_warning("the search for missing headers was bounded (%u files, %.0f s); "
			    "some may not have been found (-v says where it stopped)",
			    hs->hi.max_files, HEADER_SEARCH_MAX_SECONDS);
	hs->indexed = true;
}

/* The directories that hold header name, looked up once per run. */
static const strlist *header_dirs(struct header_search *hs, const struct run *r, const char *name)
{
	strlist *c = hmap_get(&hs->answers, name);
	if (c)
		return c;
	if (!hs->indexed)
		header_search_index(hs, r);
	c = xcalloc(1, sizeof(*c));
	header_candidates(&hs->hi, name, c);
	char *key = xstrdup(name);
	vec_push(&hs->keys, key);
	hmap_put(&hs->answers, key, c);
	if (c->n > 1) {
		struct strbuf sb = {0};
		for (size_t i = 0; i < c->n && i < 4; i++)
			sb_printf(&sb, "%s%s", i ? ", " : "", c->v[i]);
		log_verbose(1, "'%s' is in %zu directories (%s%s): ambiguous, not guessed", name, c->n, sb_str(&sb),
			    c->n > 4 ? ", ..." : "");
		sb_free(&sb);
	} else if (!c->n) {
		log_verbose(1, "'%s': not found in the gem or the system's include trees", name);
	}
	return c;
}

/* -I DIR for each missing header of file t found in exactly one directory;
 * whether one was added. */
static bool add_found_dirs(struct header_search *hs, struct run *r, size_t t)
{
	strlist names = {0};
	if (!tu_missing_headers(r->tus[t], &names))
		return false;
	struct tu_job *j = &r->in.jobs.v[t];
	bool changed = false;
	for (size_t k = 0; k < names.n; k++) {
		const strlist *c = header_dirs(hs, r, names.v[k]);
		if (c->n != 1)
			continue;
		char *arg = xasprintf("-I%s", c->v[0]);
		bool have = false;
		for (size_t i = 0; i < j->args.n && !have; i++)
			have = strcmp(j->args.v[i], arg) == 0;
		if (have) {
			free(arg);
			continue;
		}
		vec_push(&j->args, arg);
		changed = true;
		log_verbose(1, "%s: -I%s added: '%s' is there (header search)", j->display, c->v[0], names.v[k]);
	}
	strlist_free(&names);
	return changed;
}

/* The files of redo parsed again with their new directories; a file that
 * does not parse better keeps its facts, drops them and is not tried again. */
static void reparse_with_dirs(struct run *r, struct parse_opts *po, const size_t *redo, size_t nredo,
			      const size_t *nargs_before, unsigned char *gave_up)
{
	struct tu_job *sub = xcalloc(nredo, sizeof(*sub));
	for (size_t i = 0; i < nredo; i++)
		sub[i] = r->in.jobs.v[redo[i]]; /* shallow: the jobs stay owned by r->in */
	struct tu_facts **again = parse_all(sub, nredo, po);
	for (size_t i = 0; i < nredo; i++) {
		size_t t = redo[i];
		struct tu_facts *old = r->tus[t];
		if (again[i]->status != TU_FAILED && again[i]->nerrors < old->nerrors) {
			tu_facts_free(old);
			r->tus[t] = again[i];
			continue;
		}
		/* a header of the same name from another library (Ruby's own
		 * node.h is not /usr/include/node/node.h): no better, so not used */
		struct tu_job *j = &r->in.jobs.v[t];
		log_verbose(1,
			    "%s: the directories found for its missing headers do not make it parse better (%u "
			    "errors, %u before): not used",
			    j->display, again[i]->nerrors, old->nerrors);
		while (j->args.n > nargs_before[t])
			free(j->args.v[--j->args.n]);
		gave_up[t] = 1;
		tu_facts_free(again[i]);
	}
	free(again);
	free(sub);
}

/* Buildless: for each `'x/y.h' file not found`, a unique directory D of
 * the gem's tree or the system's include trees with D/x/y.h gets -I D, and
 * the files that missed it are parsed again (twice at most: a found header
 * may include another). Ambiguous and absent headers stay missing; the
 * report names them. */
void resolve_missing_headers(struct run *r, struct parse_opts *po)
{
	struct header_search hs = {0};
	/* test hook: a smaller bound, to see it hit (tests/cli/buildless_includes.sh) */
	const char *maxf = getenv("NOGVL_LINT_HEADER_SEARCH_MAX_FILES");
	if (maxf && *maxf) {
		char *end = NULL;
		unsigned long v = strtoul(maxf, &end, 10);
		if (end && !*end && v > 0 && v < HEADER_SEARCH_MAX_FILES)
			hs.hi.max_files = (unsigned)v;
	}
	size_t *nargs_before = xcalloc(r->ntus ? r->ntus : 1, sizeof(size_t));
	unsigned char *gave_up = xcalloc(r->ntus ? r->ntus : 1, 1);
	for (unsigned round = 0; round < 2; round++) {
		VEC(size_t) redo = {0};
		for (size_t t = 0; t < r->ntus; t++) {
			if (r->tus[t]->status == TU_FAILED || gave_up[t])
				continue;
			nargs_before[t] = r->in.jobs.v[t].args.n;
			if (add_found_dirs(&hs, r, t))
				vec_push(&redo, t);
		}
		if (redo.n)
			reparse_with_dirs(r, po, redo.v, redo.n, nargs_before, gave_up);
		bool again = redo.n > 0;
		vec_free(&redo);
		if (!again)
			break;
	}
	free(nargs_before);
	free(gave_up);
	hmap_foreach(&hs.answers, e)
	{
		strlist_free(e->val);
		free(e->val);
	}
	hmap_free(&hs.answers);
	strlist_free(&hs.keys);
	header_index_free(&hs.hi);
}

/* ---- what could not be read (issue 14) ---- */

struct counted_name {
	char *name;
	size_t n;
};

static int counted_name_cmp(const void *a, const void *b)
{
	const struct counted_name *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The first release wrapper of names that tu's main file spells outside
 * comments and strings, or NULL. */
static const char *spelled_wrapper(const struct tu_facts *tu, const struct hmap *names)
{
	size_t len = 0;
	char *text = read_file(tu->path, &len, MAX_SOURCE_BYTES);
	if (!text)
		return NULL;
	spelling_vec v = {0};
	scan_spellings(tu->path, text, len, false, names, &v);
	free(text);
	const char *found = NULL;
	for (size_t i = 0; i < v.n && !found; i++)
		if (hmap_get(names, v.v[i].api))
			found = v.v[i].api;
	spellings_free(&v);
	return found;
}

/* Is the run's first input configured with allow_incomplete: true? */
static bool incomplete_allowed(const struct options *o, struct run *r)
{
	if (o->allow_incomplete)
		return true;
	const char *first = o->compile_commands ? o->compile_commands : o->paths.n ? o->paths.v[0] : ".";
	char *abs = path_absolute(first);
	int v = config_allow_incomplete(config_for_path(&r->cfg, abs, path_is_dir(abs)));
	free(abs);
	return v == 1;
}

/* Does a function taking a function pointer reach a release site within a
 * few calls (direct, or through a library call that runs its argument, such
 * as rb_protect)? ruby-oci8's oci8_call_without_gvl(svcctx, func, data)
 * stores func in a struct and releases the GVL in the rb_protect body: not a
 * wrapper the linker recognises, but its callers hand it their callbacks. */
static bool fnptr_reaches_release(const struct model *m, uint32_t id, const uint8_t *releases, uint8_t *seen,
				  unsigned depth)
{
	if (releases[id])
		return true;
	if (depth == 0 || seen[id])
		return false;
	seen[id] = 1;
	const struct mfunc *mf = &m->fns.v[id];
	for (uint32_t e = mf->edge_begin; e < mf->edge_end; e++) {
		const struct edge *ed = &m->edges.v[e];
		if (ed->to >= 0 && (ed->kind == EDGE_DIRECT || ed->kind == EDGE_FNARG) &&
		    fnptr_reaches_release(m, (uint32_t)ed->to, releases, seen, depth - 1))
			return true;
	}
	/* a function of the gem handed to a call (rb_protect(body, ...)) */
	struct handed_walk h;
	for (handed_walk_init(&h, m, mf, NULL); handed_walk_next(&h);)
		if (fnptr_reaches_release(m, h.fn->id, releases, seen, depth - 1))
			return true;
	return false;
}

/* The names of the project's release wrappers another file could call: the
 * linker's wrappers, and functions with a function-pointer parameter that
 * reach a release site within three calls (external, or in a header). */
static void collect_release_wrappers(const struct model *m, struct hmap *names)
{
	for (size_t i = 0; i < m->wrappers.n; i++) {
		const struct func *f = m->fns.v[m->wrappers.v[i].fn].f;
		if (f->name && (!(f->flags & FN_STATIC) || (f->flags & FN_IN_HEADER)))
			hmap_put(names, f->name, (void *)f->name);
	}
	if (!m->fns.n)
		return;
	uint8_t *releases = xcalloc(m->fns.n, 1), *seen = xcalloc(m->fns.n, 1);
	for (size_t i = 0; i < m->sites.n; i++)
		releases[m->sites.v[i].fn] = 1;
	for (uint32_t id = 0; id < m->fns.n; id++) {
		const struct mfunc *mf = &m->fns.v[id];
		const struct func *f = mf->f;
		if (!f->name || ((f->flags & FN_STATIC) && !(f->flags & FN_IN_HEADER)))
			continue;
		bool fnptr = false;
		for (uint32_t k = 0; k < f->nparams && !fnptr; k++) {
			const struct var *v = mf_var(mf, f->params[k]);
			fnptr = v && (v->flags & VF_FNPTR);
		}
		if (!fnptr)
			continue;
		memset(seen, 0, m->fns.n);
		if (fnptr_reaches_release(m, id, releases, seen, 3))
			hmap_put(names, f->name, (void *)f->name);
	}
	free(releases);
	free(seen);
}

/* Missing headers, files that release the GVL without an analysed site,
 * sources libclang cannot read, and the spellings in project headers and
 * macro bodies (for the -v counter). */
/* What assess_incomplete knows across the files of a run: each file's
 * release spellings (scanned once) and the project's release wrappers. */
struct spell_scan {
	struct hmap scanned; /* path -> (void *)(1 + number of spellings) */
	strlist keys;
	struct hmap wrapper_names; /* the project's release wrappers a file could call */
	struct hmap wrapper_in;    /* path -> the first of them it spells (scanned files) */
};

/* Scans file i of tu for release spellings (into r->header_sp) and the
 * project's wrappers, once per file: 1 + the number of its spellings. */
static uintptr_t scan_file_once(struct run *r, struct spell_scan *sc, const struct tu_facts *tu, size_t i)
{
	const char *p = tu->files.v[i].path;
	uintptr_t n = (uintptr_t)hmap_get(&sc->scanned, p);
	if (!n) {
		size_t len = 0;
		char *text = read_file(p, &len, MAX_SOURCE_BYTES);
		size_t before = r->header_sp.n;
		char *key = xstrdup(p);
		vec_push(&sc->keys, key);
		if (text) {
			spelling_vec v = {0};
			/* one scan for the release APIs and the project's wrappers */
			scan_spellings(p, text, len, false, sc->wrapper_names.n ? &sc->wrapper_names : NULL, &v);
			for (size_t k = 0; k < v.n; k++) {
				const char *w = hmap_get(&sc->wrapper_names, v.v[k].api);
				if (w && !hmap_has(&sc->wrapper_in, key))
					hmap_put(&sc->wrapper_in, key, (void *)w);
				/* a wrapper's name is not a release spelling; a main file's
				 * calls are the token scan's, its #define bodies are counted here */
				if (!gvl_api_find(v.v[k].api) || (tu->files.v[i].is_main && !v.v[k].in_define)) {
					free(v.v[k].file);
					continue;
				}
				vec_push(&r->header_sp, v.v[k]);
			}
			vec_free(&v);
		}
		free(text);
		n = 1 + (r->header_sp.n - before);
		hmap_put(&sc->scanned, key, (void *)n);
	}
	return n;
}

typedef VEC(size_t) count_vec;

/* A missing header the gem's build makes: a template of the same name
 * (name.tmpl, name.in, name.erb) in the directory of the file that misses
 * it. Noted once in sum->generated_files. */
static void note_generated(struct summary *sum, const char *name, const char *tu_path)
{
	static const char *const ext[] = {".tmpl", ".in", ".erb"};
	if (strstr(name, "..") || name[0] == '/')
		return;
	for (size_t i = 0; i < sum->generated_files.n; i++)
		if (strcmp(sum->generated_files.v[i], name) == 0)
			return;
	char *dir = path_dirname(tu_path);
	for (size_t k = 0; k < ARRAY_SIZE(ext); k++) {
		char *base = xasprintf("%s%s", name, ext[k]);
		char *t = path_join(dir, base);
		free(base);
		if (path_is_file(t)) {
			char *d = display_path(t);
			vec_push(&sum->generated_files, xstrdup(name));
			vec_push(&sum->generated_from, xstrdup(d));
			log_verbose(1, "'%s' is made by the gem's build (%s is its template)", name, d);
			free(d);
			free(t);
			break;
		}
		free(t);
	}
	free(dir);
}

/* Counts the missing headers names of one file into sum (and count). */
static void count_missing(struct summary *sum, const strlist *names, count_vec *missing_count)
{
	for (size_t i = 0; i < names->n; i++) {
		size_t k = 0;
		while (k < sum->missing_headers.n && strcmp(sum->missing_headers.v[k], names->v[i]) != 0)
			k++;
		if (k == sum->missing_headers.n) {
			vec_push(&sum->missing_headers, xstrdup(names->v[i]));
			vec_push(missing_count, 0);
		}
		missing_count->v[k]++;
	}
}

/* The -v line of a file with missing headers, and whether it is incomplete:
 * it spells a release (or calls the project's wrapper) but no release site
 * of it was analysed. */
static void judge_missing(struct run *r, struct spell_scan *sc, const struct tu_facts *tu, const strlist *names,
			  bool spells)
{
	struct summary *sum = &r->sum;
	bool site = false;
	for (size_t i = 0; i < r->model->sites.n && !site; i++)
		site = r->model->sites.v[i].tu == tu && !r->model->sites.v[i].token_only;
	/* a call of the project's release wrapper (defined in a file that
	 * parsed) the parse may have lost: ruby-oci8's files call
	 * oci8_call_without_gvl from oci8lib.c */
	const char *wrapper = NULL;
	if (!spells && !site && sc->wrapper_names.n)
		wrapper = hmap_has(&sc->scanned, tu->path) ? hmap_get(&sc->wrapper_in, tu->path)
							   : spelled_wrapper(tu, &sc->wrapper_names);
	if (wrapper) {
		sum->files_incomplete++;
		log_verbose(1,
			    "%s: calls the release wrapper '%s', but no release site was analysed: '%s'%s not "
			    "found",
			    tu->display, wrapper, names->v[0], names->n > 1 ? " and more headers" : "");
	} else if (spells && !site) {
		sum->files_incomplete++;
		log_verbose(1,
			    "%s: releases the GVL (spelled here or in a project header it includes), but no "
			    "release "
			    "site was analysed: '%s'%s not found",
			    tu->display, names->v[0], names->n > 1 ? " and more headers" : "");
	} else {
		log_verbose(1, "%s: '%s'%s not found", tu->display, names->v[0],
			    names->n > 1 ? " and more headers" : "");
	}
}

/* the header most files miss first (ruby-oci8: 'oci.h', missed by 20
 * files, before the 1-file Windows and macOS headers), then by name */
static void sort_missing(struct summary *sum, const count_vec *missing_count)
{
	struct counted_name *cn = xcalloc(sum->missing_headers.n + 1, sizeof(*cn));
	for (size_t i = 0; i < sum->missing_headers.n; i++)
		cn[i] = (struct counted_name){sum->missing_headers.v[i], missing_count->v[i]};
	xqsort(cn, sum->missing_headers.n, sizeof(*cn), counted_name_cmp);
	for (size_t i = 0; i < sum->missing_headers.n; i++)
		sum->missing_headers.v[i] = cn[i].name;
	free(cn);
}

/* The sources of $objs the gem's build makes (inputs: in->generated): -v,
 * and the summary. */
static void note_generated_sources(struct run *r)
{
	for (size_t i = 0; i < r->in.generated.n; i++) {
		const char *g = r->in.generated.v[i];
		log_verbose(1, "%.*s: not analysed: the gem's build makes it (from %s)", (int)(strchr(g, '\t') - g), g,
			    strchr(g, '\t') + 1);
		vec_push(&r->sum.generated_files, xstrndup(g, (size_t)(strchr(g, '\t') - g)));
		vec_push(&r->sum.generated_from, xstrdup(strchr(g, '\t') + 1));
	}
}

/* sources in other languages: named, their spellings counted */
static void scan_foreign(struct run *r)
{
	for (size_t i = 0; i < r->in.foreign.n; i++) {
		const char *f = r->in.foreign.v[i];
		size_t len = 0;
		char *text = read_file(f, &len, MAX_SOURCE_BYTES);
		size_t before = r->foreign_sp.n;
		if (text)
			scan_spellings(f, text, len, true, NULL, &r->foreign_sp);
		free(text);
		char *d = display_path(f);
		log_verbose(1, "%s: not analysed (%s; libclang reads only C and C++): %zu GVL-release spelling%s", d,
			    inputs_foreign_language(f), r->foreign_sp.n - before,
			    r->foreign_sp.n - before == 1 ? "" : "s");
		for (size_t k = before; k < r->foreign_sp.n; k++)
			log_verbose(1, "%s:%u: %s spelled in a source that was not analysed", d,
				    r->foreign_sp.v[k].line, r->foreign_sp.v[k].api);
		free(d);
	}
}

void assess_incomplete(const struct options *o, struct run *r)
{
	struct summary *sum = &r->sum;
	/* spellings per project header, each file scanned once */
	struct spell_scan sc = {0};
	size_t usable = 0, clean = 0;
	count_vec missing_count = {0}; /* files missing each of sum->missing_headers */
	collect_release_wrappers(r->model, &sc.wrapper_names);
	for (size_t t = 0; t < r->ntus; t++) {
		struct tu_facts *tu = r->tus[t];
		if (tu->status == TU_FAILED)
			continue;
		usable++;
		bool header_spells = false;
		for (size_t i = 0; i < tu->files.n; i++)
			if (scan_file_once(r, &sc, tu, i) > 1)
				header_spells = true;
		bool spells = header_spells;
		for (size_t i = 0; i < tu->token_sites.n && !spells; i++)
			spells = !tu->token_sites.v[i].inactive && gvl_api_find(tu->token_sites.v[i].api);
		strlist names = {0};
		if (!tu_missing_headers(tu, &names)) {
			clean++;
			continue;
		}
		sum->files_missing_headers++;
		count_missing(sum, &names, &missing_count);
		for (size_t i = 0; i < names.n; i++)
			note_generated(sum, names.v[i], tu->path);
		judge_missing(r, &sc, tu, &names, spells);
		strlist_free(&names);
	}
	sort_missing(sum, &missing_count);
	vec_free(&missing_count);
	hmap_free(&sc.wrapper_names);
	hmap_free(&sc.wrapper_in);
	hmap_free(&sc.scanned);
	strlist_free(&sc.keys);
	scan_foreign(r);
	note_generated_sources(r);
	sum->foreign_files = r->in.foreign.n;
	sum->foreign_spellings = r->foreign_sp.n;
	sum->incomplete = sum->files_incomplete || sum->foreign_files || r->in.generated.n || (usable && !clean);
	sum->incomplete_allowed = incomplete_allowed(o, r);
	if (sum->foreign_files)
		log_warning("%zu source file%s of an extension in a language libclang does not read (such as %s) not "
			    "analysed; %zu GVL-release spelling%s in them",
			    sum->foreign_files, sum->foreign_files == 1 ? "" : "s", path_basename(r->in.foreign.v[0]),
			    sum->foreign_spellings, sum->foreign_spellings == 1 ? "" : "s");
}
