/* offload-candidate: every offload gate holds and the call lacks
 * RB_NOGVL_OFFLOAD_SAFE: suggest it, with a ready patch. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "offload.h"
#include "rule.h"

#define FLAG "RB_NOGVL_OFFLOAD_SAFE"

static bool file_has_fallback(const struct tu_facts *tu)
{
	for (size_t i = 0; i < tu->pp_defines.n; i++)
		if (strcmp(tu->pp_defines.v[i].name, FLAG) == 0)
			return true;
	return false;
}

/* The outermost preprocessor group holding line, or -1. */
static int32_t outer_cond(const struct tu_facts *tu, uint32_t line)
{
	int32_t best = -1;
	for (size_t i = 0; i < tu->pp_conds.n; i++) {
		const struct pp_cond *c = &tu->pp_conds.v[i];
		if (line >= c->line_begin && line <= c->line_end && c->parent < 0)
			best = (int32_t)i;
	}
	return best;
}

/* Offset of the end of the #endif line of the group branch ci belongs to. */
static bool group_end(const struct tu_facts *tu, int32_t ci, uint32_t *off)
{
	for (unsigned guard = 0; ci >= 0 && guard < 64; guard++) {
		const struct pp_cond *c = &tu->pp_conds.v[ci];
		if (c->closed_by_endif) {
			*off = c->close_off;
			return c->close_off > 0;
		}
		int32_t next = -1; /* the branch that starts right after this one */
		for (size_t i = 0; i < tu->pp_conds.n; i++)
			if (tu->pp_conds.v[i].parent == c->parent && tu->pp_conds.v[i].line_begin == c->line_end + 2)
				next = (int32_t)i;
		ci = next;
	}
	return false;
}

/* Where the fallback define goes: after ruby/thread.h (which defines the flag
 * on Ruby 3.4+, so the fallback must come after it), or when the file does not
 * include it itself, after the last #include before the first function. An
 * include inside #if...#endif puts it after that #endif. */
static bool fallback_anchor(const struct tu_facts *tu, uint32_t *off, uint32_t *line)
{
	uint32_t first_fn = UINT32_MAX;
	for (size_t i = 0; i < tu->funcs.n; i++)
		if (tu->funcs.v[i].loc.file == tu->path && tu->funcs.v[i].loc.line < first_fn)
			first_fn = tu->funcs.v[i].loc.line;
	const struct include_dir *chosen = NULL;
	for (size_t i = 0; i < tu->includes.n; i++) {
		const struct include_dir *in = &tu->includes.v[i];
		if (in->loc.line >= first_fn)
			continue;
		if (strstr(in->spelled, "ruby/thread.h")) {
			chosen = in;
			break;
		}
		chosen = in;
	}
	if (!chosen)
		return false;
	int32_t ci = outer_cond(tu, chosen->loc.line);
	if (ci < 0) {
		*off = chosen->end_off;
		*line = chosen->loc.line;
		return true;
	}
	if (!group_end(tu, ci, off))
		return false;
	*line = chosen->loc.line;
	return true;
}

/* ---- Ruby < 2.6: rb_nogvl may be absent ---- */

/* The call sits in the #ifdef HAVE_RB_NOGVL (or #if defined(HAVE_RB_NOGVL))
 * branch of a conditional. */
static bool under_have_rb_nogvl(const struct tu_facts *tu, uint32_t line)
{
	for (size_t i = 0; i < tu->pp_conds.n; i++) {
		const struct pp_cond *c = &tu->pp_conds.v[i];
		if (line < c->line_begin || line > c->line_end || !c->cond || !strstr(c->cond, "HAVE_RB_NOGVL"))
			continue;
		if (str_eq(c->directive, "ifdef") ||
		    ((str_eq(c->directive, "if") || str_eq(c->directive, "elif")) && !strchr(c->cond, '!')))
			return true;
	}
	return false;
}

/* "required_ruby_version = '>= 2.7'" (or ~> 3.0, Gem::Requirement.new(">= 3")):
 * the lowest version it allows is 2.6 or later. */
static bool gemspec_needs_26(const char *text)
{
	for (const char *p = strstr(text, "required_ruby_version"); p; p = strstr(p + 1, "required_ruby_version")) {
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		for (size_t i = 0; i + 1 < n; i++) {
			bool ge = (p[i] == '>' && p[i + 1] == '=') || (p[i] == '~' && p[i + 1] == '>');
			if (!ge)
				continue;
			size_t j = i + 2;
			while (j < n && (p[j] == ' ' || p[j] == '\t'))
				j++;
			int major = 0, minor = 0;
			if (j < n && sscanf(p + j, "%d.%d", &major, &minor) >= 1)
				return major > 2 || (major == 2 && minor >= 6);
		}
	}
	return false;
}

/* A *.gemspec in the file's directory or up to four levels above that
 * requires Ruby 2.6 or later. */
static bool gemspec_requires_26(const char *file)
{
	char *dir = path_dirname(file);
	bool found = false;
	for (int up = 0; up < 5 && dir && !found; up++) {
		DIR *d = opendir(dir);
		struct dirent *de;
		unsigned seen = 0;
		while (d && (de = readdir(d)) && !found && seen++ < 4096) {
			if (!str_ends(de->d_name, ".gemspec"))
				continue;
			char *path = path_join(dir, de->d_name);
			size_t len = 0;
			char *text = read_file(path, &len, 256u * 1024);
			found = text && gemspec_needs_26(text);
			free(text);
			free(path);
		}
		if (d)
			closedir(d);
		char *parent = path_dirname(dir);
		if (!parent || str_eq(parent, dir)) {
			free(parent);
			break;
		}
		free(dir);
		dir = parent;
	}
	free(dir);
	return found;
}

#define OLD_RUBY_MACROS                                                                                                \
	"\n#ifdef HAVE_RB_NOGVL\n"                                                                                     \
	"#define NOGVL_OFFLOAD_WITHOUT_GVL(f, d, u, ud) rb_nogvl((f), (d), (u), (ud), " FLAG ")\n"                     \
	"#define NOGVL_OFFLOAD_WITHOUT_GVL2(f, d, u, ud) rb_nogvl((f), (d), (u), (ud), RB_NOGVL_INTR_FAIL | " FLAG     \
	")\n"                                                                                                          \
	"#else /* Ruby < 2.6 has no rb_nogvl: the original calls */\n"                                                 \
	"#define NOGVL_OFFLOAD_WITHOUT_GVL(f, d, u, ud) rb_thread_call_without_gvl((f), (d), (u), (ud))\n"             \
	"#define NOGVL_OFFLOAD_WITHOUT_GVL2(f, d, u, ud) rb_thread_call_without_gvl2((f), (d), (u), (ud))\n"           \
	"#endif"

/* Builds the rewrite; returns a reason when no automatic fix is possible. */
static const char *build_fix(const struct model *m, const struct msite *s, struct finding *f)
{
	if (s->inner >= 0)
		return "the GVL is released inside the wrapper function: add the flag there if every caller's callback "
		       "qualifies";
	if (s->macro)
		return "the call is written inside a macro: add the flag in the macro";
	const struct mfunc *mf = &m->fns.v[s->fn];
	const struct call *c = mf->f->events[s->ev].u.call;
	if (!c->callee.exact || !c->rparen || s->loc.file != s->tu->path)
		return "the call is not spelled out in the main file";
	/* what is spelled where the call is must be the call itself: a call made
	 * by a header macro named as another macro's argument
	 * (`FOR_EACH_OP(DEFINE_STUB)`) has its file location on that argument */
	if (!c->callee.text || !c->name || strcmp(c->callee.text, c->name) != 0)
		return "the call is written inside a macro: add the flag in the macro if every release site it makes "
		       "qualifies";
	const char *file = s->tu->path;
	/* rewriting to rb_nogvl: keep the gem building where rb_nogvl is absent
	 * (Ruby < 2.6) unless the call is already under HAVE_RB_NOGVL or a
	 * gemspec next to the extension requires 2.6+ */
	bool old_ruby = (s->api->kind == API_WITHOUT_GVL || s->api->kind == API_WITHOUT_GVL2) &&
			!under_have_rb_nogvl(s->tu, s->loc.line) && !gemspec_requires_26(file);
	if (old_ruby) {
		uint32_t off = 0, line = 0;
		if (!fallback_anchor(s->tu, &off, &line))
			return "rb_nogvl may be absent (Ruby < 2.6) and there is no #include to put the HAVE_RB_NOGVL "
			       "fallback after";
		finding_fix(f, file, c->callee.begin, c->callee.end - c->callee.begin, s->loc.line, s->loc.col,
			    s->api->kind == API_WITHOUT_GVL2 ? "NOGVL_OFFLOAD_WITHOUT_GVL2"
							     : "NOGVL_OFFLOAD_WITHOUT_GVL");
		finding_fix(f, file, off, 0, line, 1,
			    file_has_fallback(s->tu) ? OLD_RUBY_MACROS
						     : "\n#ifndef " FLAG "\n#define " FLAG
						       " 0\n#endif" OLD_RUBY_MACROS);
		finding_note(
			f, &s->loc,
			"rb_nogvl is Ruby 2.6+ and nothing here requires it: the patch keeps the original call under "
			"#else of #ifdef HAVE_RB_NOGVL; extconf.rb needs have_func(\"rb_nogvl\", \"ruby/thread.h\") to "
			"define HAVE_RB_NOGVL (without it the original call stays on every Ruby)");
		f->fix_desc = xasprintf("rewrite the call to %s(...): rb_nogvl(..., %s%s) where HAVE_RB_NOGVL, the "
					"original call otherwise",
					s->api->kind == API_WITHOUT_GVL2 ? "NOGVL_OFFLOAD_WITHOUT_GVL2"
									 : "NOGVL_OFFLOAD_WITHOUT_GVL",
					s->api->kind == API_WITHOUT_GVL2 ? "RB_NOGVL_INTR_FAIL | " : "", FLAG);
		return NULL;
	}
	switch (s->api->kind) {
	case API_NOGVL: {
		const struct expr *fl = s->flags_expr;
		if (!fl || !fl->exact)
			return "the flags argument is not spelled out";
		char *text = fl->has_ival && fl->ival == 0 ? xstrdup(FLAG) : xasprintf("%s | " FLAG, fl->text);
		finding_fix(f, file, fl->begin, fl->end - fl->begin, fl->loc.line, fl->loc.col, text);
		free(text);
		break;
	}
	case API_WITHOUT_GVL:
		finding_fix(f, file, c->callee.begin, c->callee.end - c->callee.begin, s->loc.line, s->loc.col,
			    "rb_nogvl");
		finding_fix(f, file, c->rparen, 0, s->loc.line, s->loc.col, ", " FLAG);
		break;
	case API_WITHOUT_GVL2:
		finding_fix(f, file, c->callee.begin, c->callee.end - c->callee.begin, s->loc.line, s->loc.col,
			    "rb_nogvl");
		finding_fix(f, file, c->rparen, 0, s->loc.line, s->loc.col, ", RB_NOGVL_INTR_FAIL | " FLAG);
		break;
	default:
		return "this API takes no flags";
	}
	if (!file_has_fallback(s->tu)) {
		uint32_t off = 0, line = 0;
		if (fallback_anchor(s->tu, &off, &line))
			finding_fix(f, file, off, 0, line, 1, "\n#ifndef " FLAG "\n#define " FLAG " 0\n#endif");
		else
			finding_note(f, &s->loc,
				     "also add `#ifndef " FLAG " / #define " FLAG " 0 / #endif` after the "
				     "includes so the gem still builds on Ruby < 3.4");
	}
	return NULL;
}

static void run(struct rule_ctx *rc)
{
	const struct model *m = rc->m;
	for (uint32_t i = 0; i < m->sites.n; i++) {
		const struct site_verdict *oi = site_verdict_of(m, i);
		if (!oi || oi->verdict != OV_CANDIDATE || oi->withheld_by)
			continue; /* withheld: -v, --explain-callback and the JSON say which finding to fix first */
		const struct msite *s = &m->sites.v[i];
		const char *cbname = m->fns.v[s->cb.targets[0]].f->name;
		struct finding *f = rule_report(
			rc, &s->loc, m->fns.v[s->fn].f->name,
			"'%s' can take RB_NOGVL_OFFLOAD_SAFE: every offload gate holds (no Ruby API, no thread state, "
			"inputs owned and kept alive, no shared state), so a fiber scheduler's worker pool may run it "
			"off the event loop",
			cbname);
		finding_branch_note(f, m, s->cb.targets[0]);
		const char *why_not = build_fix(m, s, f);
		if (why_not)
			finding_note(f, &s->loc, "no automatic fix: %s", why_not);
		else if (!f->fix_desc)
			f->fix_desc = xasprintf("rewrite the call to rb_nogvl(..., %s%s)",
						s->api->kind == API_WITHOUT_GVL2 ? "RB_NOGVL_INTR_FAIL | " : "", FLAG);
		if (s->macro)
			finding_note(f, &s->loc, "expanded from macro '%s'", s->macro);
	}
}

const struct rule_desc rule_offload_candidate = {
	.slug = "offload-candidate",
	.severity = SEV_NOTE,
	.category = "Offload",
	.summary = "Every offload gate holds for this callback and the call lacks RB_NOGVL_OFFLOAD_SAFE: it can "
		   "take the flag.",
	.rationale = "Since Ruby 3.4, rb_nogvl(..., RB_NOGVL_OFFLOAD_SAFE) lets a fiber scheduler with a worker pool "
		     "run the callback on another thread, so the event loop keeps serving other fibers (bcrypt-ruby "
		     "measured 3.95x throughput and event-loop stalls falling from 380 ms to 0.8 ms). The flag is "
		     "only safe when the callback does not depend on the calling thread: the verdict is given only "
		     "when every gate passes, never on a guess.",
	.fix = "Apply the patch with --fix (or review it with --fix-dry-run): the call becomes rb_nogvl(..., "
	       "RB_NOGVL_OFFLOAD_SAFE), keeping its flags, and a `#ifndef RB_NOGVL_OFFLOAD_SAFE` fallback "
	       "define keeps the gem building on Ruby < 3.4. Then test under an offloading scheduler.",
	.flags = 0,
	.run = run,
};
