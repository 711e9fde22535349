/* report.c: findings, call-chain notes, text output. */
#include "report.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rule.h"
#include "invariant.h"

const char *severity_name(int sev)
{
	switch (sev) {
	case SEV_NOTE:
		return "note";
	case SEV_WARNING:
		return "warning";
	case SEV_ERROR:
		return "error";
	default:
		return "none";
	}
}

int severity_parse(const char *s)
{
	if (!s)
		return -1;
	if (strcmp(s, "note") == 0 || strcmp(s, "info") == 0)
		return SEV_NOTE;
	if (strcmp(s, "warning") == 0)
		return SEV_WARNING;
	if (strcmp(s, "error") == 0)
		return SEV_ERROR;
	if (strcmp(s, "none") == 0)
		return SEV_NONE;
	return -1;
}

struct finding *finding_add(struct findings *fs, const struct rule_desc *r, int severity, const struct loc *loc,
			    const char *function, const char *msg)
{
	struct finding *f = xcalloc(1, sizeof(*f));
	f->rule = r;
	f->severity = severity;
	f->loc = *loc;
	f->function = function;
	f->msg = xstrdup(msg);
	vec_push(&fs->v, f);
	return f;
}

void finding_note(struct finding *f, const struct loc *loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct note n = {*loc, xvasprintf(fmt, ap)};
	va_end(ap);
	vec_push(&f->notes, n);
}

void finding_fix(struct finding *f, const char *file, uint32_t off, uint32_t len, uint32_t line, uint32_t col,
		 const char *text)
{
	struct fix x = {file, off, len, line, col, xstrdup(text)};
	vec_push(&f->fixes, x);
}

void finding_macro_note(struct finding *f, const struct event *ev)
{
	if (ev->macro && !ev->in_macro_arg) {
		f->macro = ev->macro;
		/* RSTRING_LEN is `#define RSTRING_LEN RSTRING_LEN`: naming it again says nothing */
		char *quoted = xasprintf("'%s'", ev->macro);
		bool named = strstr(f->msg, quoted) != NULL;
		free(quoted);
		if (named)
			return;
		finding_note(f, &ev->loc, "expanded from macro '%s'", ev->macro);
	}
}

static bool loc_same(const struct loc *a, const struct loc *b)
{
	return a->line == b->line && a->col == b->col && str_eq(a->file, b->file);
}

/* The finding already says which macro (headline or a note). */
static bool macro_named(const struct finding *f, const char *macro)
{
	char *quoted = xasprintf("'%s'", macro);
	bool named = strstr(f->msg, quoted) != NULL;
	for (size_t i = 0; i < f->notes.n && !named; i++)
		named = strstr(f->notes.v[i].msg, "expanded from macro") && strstr(f->notes.v[i].msg, quoted);
	free(quoted);
	return named;
}

void findings_macro_evidence(struct findings *fs, const struct model *m)
{
	for (size_t i = 0; i < fs->v.n; i++) {
		struct finding *f = fs->v.v[i];
		if (f->macro || !f->loc.file)
			continue;
		const char *macro = NULL;
		/* a finding at a release site written through a macro */
		for (size_t k = 0; k < m->sites.n && !macro; k++)
			if (m->sites.v[k].macro && loc_same(&m->sites.v[k].loc, &f->loc))
				macro = m->sites.v[k].macro;
		/* a finding at a call or access that a macro body made */
		for (size_t fi = 0; fi < m->fns.n && !macro && f->function; fi++) {
			const struct func *fn = m->fns.v[fi].f;
			if (!str_eq(fn->name, f->function))
				continue;
			for (uint32_t e = 0; e < fn->nevents && !macro; e++)
				if (fn->events[e].macro && !fn->events[e].in_macro_arg &&
				    loc_same(&fn->events[e].loc, &f->loc))
					macro = fn->events[e].macro;
		}
		if (!macro)
			continue;
		f->macro = macro;
		if (!macro_named(f, macro))
			finding_note(f, &f->loc, "expanded from macro '%s'", macro);
	}
}

static bool loc_within(const struct loc *l, const struct func *fn)
{
	if (!str_eq(l->file, fn->loc.file) || l->line < fn->loc.line || l->line > fn->end.line)
		return false;
	return l->line != fn->end.line || l->col <= fn->end.col;
}

void findings_unreachable_evidence(struct findings *fs, const struct model *m)
{
	for (size_t i = 0; i < fs->v.n; i++) {
		struct finding *f = fs->v.v[i];
		if (!f->function || !f->loc.file || (f->rule->flags & RULE_DEBUG))
			continue;
		for (size_t fi = 0; fi < m->fns.n; fi++) {
			const struct mfunc *mf = &m->fns.v[fi];
			if (!mf->unreachable || !str_eq(mf->f->name, f->function) || !loc_within(&f->loc, mf->f))
				continue;
			f->unreachable = 1;
			finding_note(
				f, &mf->f->loc,
				"'%s' is static and nothing in the gem refers to it: this code does not run as the "
				"gem stands (fix it, or delete the function)",
				mf->f->name);
			break;
		}
	}
}

/* The branches of the #if group branch ci belongs to: first (the #if) and
 * their count; a branch starts right after the previous one ends. */
static int32_t pp_group_first(const struct tu_facts *tu, int32_t ci, unsigned *nbranches)
{
	int32_t first = ci;
	for (unsigned guard = 0; guard < 256; guard++) {
		const struct pp_cond *c = &tu->pp_conds.v[first];
		if (!str_eq(c->directive, "else") && !str_eq(c->directive, "elif"))
			break;
		int32_t prev = -1;
		for (size_t i = 0; i < tu->pp_conds.n && prev < 0; i++)
			if (tu->pp_conds.v[i].parent == c->parent && tu->pp_conds.v[i].line_end + 2 == c->line_begin)
				prev = (int32_t)i;
		if (prev < 0)
			break;
		first = prev;
	}
	unsigned n = 1;
	int32_t cur = first;
	for (unsigned guard = 0; guard < 256 && !tu->pp_conds.v[cur].closed_by_endif; guard++) {
		int32_t next = -1;
		for (size_t i = 0; i < tu->pp_conds.n && next < 0; i++)
			if (tu->pp_conds.v[i].parent == tu->pp_conds.v[cur].parent &&
			    tu->pp_conds.v[i].line_begin == tu->pp_conds.v[cur].line_end + 2)
				next = (int32_t)i;
		if (next < 0)
			break;
		cur = next;
		n++;
	}
	*nbranches = n;
	return first;
}

/* A condition as written, without a trailing comment, at most 120 bytes. */
static int cond_len(const char *cond)
{
	if (!cond)
		return 0;
	size_t n = strlen(cond);
	for (size_t i = 0; i + 1 < n; i++)
		if (cond[i] == '/' && (cond[i + 1] == '*' || cond[i + 1] == '/')) {
			n = i;
			break;
		}
	while (n && (cond[n - 1] == ' ' || cond[n - 1] == '\t'))
		n--;
	return (int)(n > 120 ? 120 : n);
}

/* "#else of #ifdef HAVE_X" / "#elif X > 2" / "#if X" for branch ci. */
static char *pp_branch_text(const struct tu_facts *tu, int32_t ci, int32_t first)
{
	const struct pp_cond *c = &tu->pp_conds.v[ci], *o = &tu->pp_conds.v[first];
	if (str_eq(c->directive, "else"))
		return xasprintf("#else of #%s %.*s", o->directive, cond_len(o->cond), o->cond ? o->cond : "");
	return xasprintf("#%s %.*s", c->directive, cond_len(c->cond), c->cond ? c->cond : "");
}

void finding_branch_note(struct finding *f, const struct model *m, uint32_t fn)
{
	const struct mfunc *mf = &m->fns.v[fn];
	const struct tu_facts *tu = mf->tu;
	const struct func *fd = mf->f;
	if (!tu || !str_eq(fd->loc.file, tu->path))
		return;
	/* the definition sits in one branch of a group that has others */
	int32_t inner = -1;
	for (size_t i = 0; i < tu->pp_conds.n; i++) {
		const struct pp_cond *c = &tu->pp_conds.v[i];
		if (fd->loc.line >= c->line_begin && fd->loc.line <= c->line_end &&
		    (inner < 0 || c->line_begin >= tu->pp_conds.v[inner].line_begin))
			inner = (int32_t)i;
	}
	for (int32_t ci = inner; ci >= 0; ci = tu->pp_conds.v[ci].parent) {
		unsigned nb = 0;
		int32_t first = pp_group_first(tu, ci, &nb);
		if (nb < 2)
			continue;
		char *t = pp_branch_text(tu, ci, first);
		struct loc at = {tu->path, tu->pp_conds.v[ci].line_begin > 1 ? tu->pp_conds.v[ci].line_begin - 1 : 1, 1,
				 0};
		finding_note(f, &at,
			     "this judges the '%s' defined under %s, the branch this configuration compiled; the "
			     "group has %u branches and the others were not analysed",
			     fd->name, t, nb);
		free(t);
		break;
	}
	/* a group inside the body: say which branch was compiled when events tell */
	for (size_t i = 0; i < tu->pp_conds.n; i++) {
		const struct pp_cond *c = &tu->pp_conds.v[i];
		if (c->line_begin <= fd->loc.line || c->line_end >= fd->end.line || str_eq(c->directive, "else") ||
		    str_eq(c->directive, "elif"))
			continue;
		/* outermost within the body only */
		if (c->parent >= 0 && tu->pp_conds.v[c->parent].line_begin > fd->loc.line)
			continue;
		unsigned nb = 0;
		pp_group_first(tu, (int32_t)i, &nb);
		int32_t compiled = -1, cur = (int32_t)i;
		for (unsigned b = 0; b < nb && cur >= 0; b++) {
			const struct pp_cond *bc = &tu->pp_conds.v[cur];
			for (uint32_t e = 0; e < fd->nevents && compiled < 0; e++)
				if (str_eq(fd->events[e].loc.file, tu->path) &&
				    fd->events[e].loc.line >= bc->line_begin && fd->events[e].loc.line <= bc->line_end)
					compiled = cur;
			int32_t next = -1;
			for (size_t k = 0; k < tu->pp_conds.n && next < 0 && !bc->closed_by_endif; k++)
				if (tu->pp_conds.v[k].parent == bc->parent &&
				    tu->pp_conds.v[k].line_begin == bc->line_end + 2)
					next = (int32_t)k;
			cur = next;
		}
		struct loc at = {tu->path, c->line_begin > 1 ? c->line_begin - 1 : 1, 1, 0};
		if (compiled >= 0) {
			char *t = pp_branch_text(tu, compiled, (int32_t)i);
			finding_note(f, &at, "'%s' was judged on its %s branch (the one this configuration compiled)",
				     fd->name, t);
			free(t);
		} else {
			finding_note(f, &at,
				     "'%s' has code under #%s %.*s that this configuration may not compile: it was "
				     "judged without it",
				     fd->name, c->directive, cond_len(c->cond), c->cond ? c->cond : "");
		}
	}
}

static const char *ctx_verb(enum ctx_kind ctx)
{
	switch (ctx) {
	case CTX_UBF:
		return "as the unblocking function of";
	case CTX_WITHGVL:
		return "to";
	default:
		return "to";
	}
}

void finding_site_note(struct finding *f, const struct model *m, const struct msite *s, enum ctx_kind ctx,
		       const char *fname)
{
	const char *what = s->inner >= 0 ? "wrapper" : NULL;
	if (what) {
		const struct msite *in = &m->sites.v[s->inner];
		while (in->inner >= 0)
			in = &m->sites.v[in->inner];
		finding_note(f, &s->loc, "'%s' passed %s '%s' here, which releases the GVL with %s", fname,
			     ctx_verb(ctx), s->called, in->api ? in->api->name : "?");
	} else {
		finding_note(f, &s->loc, "'%s' passed %s %s here", fname, ctx_verb(ctx), s->called);
	}
	if (s->macro)
		finding_note(f, &s->loc, "expanded from macro '%s'", s->macro);
}

void finding_chain_set(struct finding *f, const struct model *m, const struct reach *by_fn, uint32_t fn,
		       enum ctx_kind ctx)
{
	uint32_t cur = fn;
	unsigned guard = 0;
	while (guard++ < 256) {
		const struct reach *r = &by_fn[cur];
		if (!r->reached || r->pred_fn < 0)
			return;
		const struct mfunc *me = &m->fns.v[cur];
		if (r->edge_kind == 0) {
			/* a root: the release site or the with-gvl call */
			if (ctx == CTX_WITHGVL) {
				const struct mfunc *caller = &m->fns.v[r->pred_fn];
				const struct event *ev = &caller->f->events[r->pred_ev];
				finding_note(f, &ev->loc, "'%s' passed to rb_thread_call_with_gvl here", me->f->name);
				return;
			}
			if (r->site >= 0)
				finding_site_note(f, m, &m->sites.v[r->site], ctx, me->f->name);
			return;
		}
		const struct mfunc *caller = &m->fns.v[r->pred_fn];
		const struct event *ev = &caller->f->events[r->pred_ev];
		const char *how = r->edge_kind == EDGE_POINTER || r->edge_kind == EDGE_PARAM
					  ? "called through a function pointer here from"
				  : r->edge_kind == EDGE_FNARG ? "passed to a library call here from"
				  : r->edge_kind == EDGE_LIBCB
					  ? "run as a registered handler by the library call here from"
					  : "called here from";
		finding_note(f, &ev->loc, "'%s' %s '%s'", me->f->name, how, caller->f->name);
		cur = (uint32_t)r->pred_fn;
	}
}

void finding_chain(struct finding *f, const struct model *m, enum ctx_kind ctx, uint32_t fn)
{
	INVARIANT(m->reach[ctx]); /* model_link computes every context */
	finding_chain_set(f, m, m->reach[ctx], fn, ctx);
}

/* ---- sorting ---- */

static int finding_cmp(const void *a, const void *b)
{
	const struct finding *x = *(const struct finding *const *)a, *y = *(const struct finding *const *)b;
	int c = str_cmp(x->loc.file, y->loc.file);
	if (c)
		return c;
	if (x->loc.line != y->loc.line)
		return x->loc.line < y->loc.line ? -1 : 1;
	if (x->loc.col != y->loc.col)
		return x->loc.col < y->loc.col ? -1 : 1;
	c = strcmp(x->rule->slug, y->rule->slug);
	if (c)
		return c;
	return strcmp(x->msg, y->msg);
}

static void finding_free(struct finding *f)
{
	free(f->msg);
	for (size_t i = 0; i < f->notes.n; i++)
		free(f->notes.v[i].msg);
	vec_free(&f->notes);
	for (size_t i = 0; i < f->fixes.n; i++)
		free(f->fixes.v[i].text);
	vec_free(&f->fixes);
	free(f->fix_desc);
	free(f);
}

void findings_sort(struct findings *fs)
{
	xqsort(fs->v.v, fs->v.n, sizeof(*fs->v.v), finding_cmp);
	size_t w = 0;
	for (size_t i = 0; i < fs->v.n; i++) {
		if (w && finding_cmp(&fs->v.v[w - 1], &fs->v.v[i]) == 0) {
			finding_free(fs->v.v[i]);
			continue;
		}
		fs->v.v[w++] = fs->v.v[i];
	}
	fs->v.n = w;
}

void findings_filter(struct findings *fs, bool (*keep)(const struct finding *f, void *ctx), void *ctx)
{
	size_t w = 0;
	for (size_t i = 0; i < fs->v.n; i++) {
		if (keep(fs->v.v[i], ctx))
			fs->v.v[w++] = fs->v.v[i];
		else
			finding_free(fs->v.v[i]);
	}
	fs->v.n = w;
}

void findings_free(struct findings *fs)
{
	for (size_t i = 0; i < fs->v.n; i++)
		finding_free(fs->v.v[i]);
	vec_free(&fs->v);
}

/* ---- paths and source lines ---- */

char *display_path(const char *abs)
{
	if (!abs)
		return xstrdup("<unknown>");
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)) && strcmp(cwd, "/") != 0)
		return path_relative(abs, cwd);
	return xstrdup(abs);
}

struct src_file {
	char *text;
	size_t len;
	struct line_index li;
};

static struct hmap src_cache;
static pthread_mutex_t src_lock = PTHREAD_MUTEX_INITIALIZER;

const char *source_line(const char *file, uint32_t line)
{
	if (!file)
		return NULL;
	pthread_mutex_lock(&src_lock);
	struct src_file *sf = hmap_get(&src_cache, file);
	if (!sf) {
		sf = xcalloc(1, sizeof(*sf));
		sf->text = read_file(file, &sf->len, 256u * 1024 * 1024);
		if (sf->text)
			line_index_build(&sf->li, sf->text, sf->len);
		hmap_put(&src_cache, xstrdup(file), sf);
	}
	pthread_mutex_unlock(&src_lock);
	if (!sf->text || line == 0 || line > sf->li.n)
		return NULL;
	static _Thread_local char *buf;
	static _Thread_local size_t cap;
	uint32_t b = sf->li.start[line - 1];
	uint32_t e = line < sf->li.n ? sf->li.start[line] : (uint32_t)sf->len;
	while (e > b && (sf->text[e - 1] == '\n' || sf->text[e - 1] == '\r'))
		e--;
	size_t n = e - b;
	if (n + 1 > cap) {
		cap = n + 1;
		buf = xrealloc(buf, cap);
	}
	memcpy(buf, sf->text + b, n);
	buf[n] = '\0';
	return buf;
}

void source_cache_clear(void)
{
	pthread_mutex_lock(&src_lock);
	hmap_foreach(&src_cache, e)
	{
		struct src_file *sf = e->val;
		free(sf->text);
		line_index_free(&sf->li);
		free(sf);
		free((char *)e->key);
	}
	hmap_free(&src_cache);
	pthread_mutex_unlock(&src_lock);
}

/* ---- text output ---- */

/* Writes s with control characters made visible, so file contents and names
 * cannot move the cursor or change colours of the terminal. */
static void put_safe(FILE *out, const char *s)
{
	fput_visible(s, out);
}

static void print_loc(FILE *out, const struct loc *l)
{
	char *p = display_path(l->file);
	put_safe(out, p);
	fprintf(out, ":%u:%u: ", l->line, l->col);
	free(p);
}

void report_text(FILE *out, const struct findings *fs, bool color)
{
	const char *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
	for (size_t i = 0; i < fs->v.n; i++) {
		const struct finding *f = fs->v.v[i];
		if (f->suppressed)
			continue;
		const char *sc = !color                       ? ""
				 : f->severity == SEV_ERROR   ? "\033[1;31m"
				 : f->severity == SEV_WARNING ? "\033[1;35m"
							      : "\033[1;36m";
		fputs(bold, out);
		print_loc(out, &f->loc);
		fprintf(out, "%s%s%s: %s", sc, severity_name(f->severity), reset, bold);
		put_safe(out, f->msg);
		fprintf(out, " [%s]%s\n", f->rule->slug, reset);
		const char *src = source_line(f->loc.file, f->loc.line);
		if (src) {
			fputs(" ", out);
			put_safe(out, src);
			fputs("\n ", out);
			for (uint32_t c = 1; c < f->loc.col && src[c - 1]; c++)
				fputc(src[c - 1] == '\t' ? '\t' : ' ', out);
			fprintf(out, "%s^%s\n", color ? "\033[1;32m" : "", reset);
		}
		for (size_t k = 0; k < f->notes.n; k++) {
			print_loc(out, &f->notes.v[k].loc);
			fputs("note: ", out);
			put_safe(out, f->notes.v[k].msg);
			fputc('\n', out);
		}
		if (f->fixes.n && f->fix_desc) {
			print_loc(out, &f->loc);
			fputs("note: fix available: ", out);
			put_safe(out, f->fix_desc);
			fputs(" (apply with --fix)\n", out);
		}
	}
}

void summary_line(FILE *out, const struct summary *s)
{
	size_t total = s->errors + s->warnings + s->notes;
	size_t analysed = s->files - s->files_failed;
	fprintf(out, "%zu file%s analysed (%zu with parse errors", analysed, analysed == 1 ? "" : "s",
		s->files_with_errors);
	if (s->files_missing_headers)
		fprintf(out, ", %zu with missing headers", s->files_missing_headers);
	if (s->files_degraded)
		fprintf(out, ", %zu recovered with stubs", s->files_degraded);
	fputc(')', out);
	if (s->files_failed)
		fprintf(out, ", %zu could not be analysed", s->files_failed);
	fprintf(out, ", %zu finding%s (%zu error%s, %zu warning%s, %zu note%s)", total, total == 1 ? "" : "s",
		s->errors, s->errors == 1 ? "" : "s", s->warnings, s->warnings == 1 ? "" : "s", s->notes,
		s->notes == 1 ? "" : "s");
	if (s->suppressed)
		fprintf(out, ", %zu suppressed", s->suppressed);
	if (s->baselined)
		fprintf(out, ", %zu in the baseline", s->baselined);
	fputc('\n', out);
	if (s->files_missing_headers) {
		fprintf(out, "incomplete: %zu file%s could not be read completely", s->files_missing_headers,
			s->files_missing_headers == 1 ? "" : "s");
		if (s->files_incomplete)
			fprintf(out,
				" (%zu of them spell%s a GVL release, directly or through a project header, and no "
				"release site was analysed there)",
				s->files_incomplete, s->files_incomplete == 1 ? "s" : "");
		fprintf(out, ": missing header%s ", s->missing_headers.n == 1 ? "" : "s");
		for (size_t i = 0; i < s->missing_headers.n && i < 5; i++) {
			fputs(i ? ", '" : "'", out);
			put_safe(out, s->missing_headers.v[i]);
			fputc('\'', out);
		}
		if (s->missing_headers.n > 5)
			fprintf(out, " and %zu more", s->missing_headers.n - 5);
		fputc('\n', out);
		fputs("hint: install the library's -dev package, add -I DIR, or use -p with a compile database\n", out);
	}
	for (size_t i = 0; i < s->generated_files.n && i < 3; i++) {
		fputs("not read: '", out);
		put_safe(out, s->generated_files.v[i]);
		fputs("' is made by the gem's build (from ", out);
		put_safe(out, s->generated_from.v[i]);
		fputs("); build the gem once (bear -- make) and use -p with its compile database\n", out);
	}
	if (s->generated_files.n > 3)
		fprintf(out, "not read: %zu more files the gem's build makes (-v lists them)\n",
			s->generated_files.n - 3);
	if (s->foreign_files)
		fprintf(out,
			"not analysed: %zu source file%s in a language libclang does not read (Rust, Go, Zig), "
			"with %zu GVL-release spelling%s (-v lists them)\n",
			s->foreign_files, s->foreign_files == 1 ? "" : "s", s->foreign_spellings,
			s->foreign_spellings == 1 ? "" : "s");
	if (s->incomplete && s->incomplete_allowed)
		fputs("the analysis is incomplete; --allow-incomplete (or allow_incomplete: true) makes that a "
		      "warning\n",
		      out);
}
