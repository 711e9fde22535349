/* report_sarif.c: --format sarif, SARIF 2.1.0 for GitHub code scanning and other viewers.
 *
 * One run. tool.driver.rules holds every rule that is not a debug rule, plus
 * the debug rules that ran, with the descriptor's summary, rationale and fix
 * and the rule's documentation page as help.markdown. Each result carries:
 * the location (artifact URIs relative to %SRCROOT%, the current directory,
 * when the file is below it), the enclosing function as a logical location,
 * the call chain as a codeFlow (release site first, the finding last) and as
 * relatedLocations, partialFingerprints["nogvlLint/v1"] (fingerprint.h: no
 * line numbers), fixes, and properties (rule category, buildless). Suppressed
 * findings and findings in the --baseline are left out (the JSON output keeps
 * suppressed ones); with --baseline the rest are marked baselineState "new".
 * Files that could not be analysed are tool execution notifications.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "invariant.h"
#include "output.h"
#include "ruledoc.h"
#include "rule.h"
#include "sysprobe.h"

static const char *level_of(int sev)
{
	switch (sev) {
	case SEV_ERROR:
		return "error";
	case SEV_WARNING:
		return "warning";
	default:
		return "note";
	}
}

/* "ruby-api-without-gvl" -> "RubyApiWithoutGvl" */
static char *pascal(const char *slug)
{
	struct strbuf sb = {0};
	sb_puts(&sb, "");
	bool up = true;
	for (const char *p = slug; *p; p++) {
		if (*p == '-' || *p == '_') {
			up = true;
			continue;
		}
		sb_putc(&sb, up ? (char)toupper((unsigned char)*p) : *p);
		up = false;
	}
	return sb_detach(&sb);
}

/* SARIF viewers expect sentences. */
static json_t *message(const char *text)
{
	size_t n = text ? strlen(text) : 0;
	char *t = (n && (text[n - 1] == '.' || text[n - 1] == '?' || text[n - 1] == '!'))
			  ? xstrdup(text)
			  : xasprintf("%s.", text ? text : "");
	json_t *o = json_object();
	json_object_set_new(o, "text", json_text(t));
	free(t);
	return o;
}

struct sctx {
	char *cwd;
};

static json_t *artifact(const struct sctx *c, const char *file)
{
	json_t *a = json_object();
	if (!file) {
		json_object_set_new(a, "uri", json_string("unknown"));
		return a;
	}
	if (c->cwd && path_is_below(file, c->cwd) && strcmp(file, c->cwd) != 0) {
		char *rel = path_relative(file, c->cwd);
		char *u = uri_encode_path(rel);
		json_object_set_new(a, "uri", json_text(u));
		json_object_set_new(a, "uriBaseId", json_string("%SRCROOT%"));
		free(u);
		free(rel);
	} else {
		char *u = uri_encode_path(file);
		json_object_set_new(a, "uri", json_text(u));
		free(u);
	}
	return a;
}

static json_t *phys(const struct sctx *c, const struct loc *l, bool snippet)
{
	json_t *p = json_object();
	json_object_set_new(p, "artifactLocation", artifact(c, l->file));
	json_t *reg = json_object();
	json_object_set_new(reg, "startLine", json_integer(l->line ? l->line : 1));
	if (l->col)
		json_object_set_new(reg, "startColumn", json_integer(l->col));
	if (snippet) {
		const char *src = source_line(l->file, l->line);
		if (src) {
			json_t *sn = json_object();
			json_object_set_new(sn, "text", json_text(src));
			json_object_set_new(reg, "snippet", sn);
		}
	}
	json_object_set_new(p, "region", reg);
	return p;
}

static json_t *location(const struct sctx *c, const struct loc *l, const char *msg, const char *function)
{
	json_t *o = json_object();
	json_object_set_new(o, "physicalLocation", phys(c, l, false));
	if (msg)
		json_object_set_new(o, "message", message(msg));
	if (function && *function) {
		json_t *ll = json_array(), *x = json_object();
		json_object_set_new(x, "name", json_text(function));
		json_object_set_new(x, "kind", json_string("function"));
		json_array_append_new(ll, x);
		json_object_set_new(o, "logicalLocations", ll);
	}
	return o;
}

static json_t *rule_json(const struct rule_desc *rd)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(rd->slug));
	char *name = pascal(rd->slug);
	json_object_set_new(o, "name", json_string(name));
	free(name);
	json_object_set_new(o, "shortDescription", message(rd->summary));
	char *full = xasprintf("%s %s", rd->summary, rd->rationale);
	json_object_set_new(o, "fullDescription", message(full));
	free(full);
	json_t *help = json_object();
	char *ht = xasprintf("%s\n\nWhy: %s\n\nHow to fix: %s", rd->summary, rd->rationale, rd->fix);
	json_object_set_new(help, "text", json_text(ht));
	free(ht);
	const char *page = rule_doc_find(rd->slug);
	if (page)
		json_object_set_new(help, "markdown", json_text(page));
	json_object_set_new(o, "help", help);
	/* the rule's page in the repository, at this version's tag */
	char *uri = page ? xasprintf("%s/blob/v%s/rules/docs/%s.md", NOGVL_HOMEPAGE, NOGVL_VERSION, rd->slug)
			 : xasprintf("%s#rule-documentation", NOGVL_HOMEPAGE);
	json_object_set_new(o, "helpUri", json_string(uri));
	free(uri);
	json_t *dc = json_object();
	json_object_set_new(dc, "level", json_string(level_of(rd->severity)));
	json_object_set_new(o, "defaultConfiguration", dc);
	json_t *props = json_object(), *tags = json_array();
	json_array_append_new(tags, json_string("nogvl-lint"));
	json_array_append_new(tags, json_text(rd->category));
	json_object_set_new(props, "tags", tags);
	json_object_set_new(props, "category", json_text(rd->category));
	json_object_set_new(props, "problem.severity",
			    json_string(rd->severity == SEV_ERROR     ? "error"
					: rd->severity == SEV_WARNING ? "warning"
								      : "recommendation"));
	json_object_set_new(props, "debug", json_boolean(rd->flags & RULE_DEBUG));
	json_object_set_new(o, "properties", props);
	return o;
}

static json_t *fixes_json(const struct sctx *c, const struct finding *f)
{
	json_t *fx = json_array();
	json_t *one = json_object();
	json_object_set_new(one, "description", message(f->fix_desc ? f->fix_desc : "Apply the suggested change"));
	json_t *changes = json_array();
	/* one artifactChange per file, in order of appearance */
	for (size_t i = 0; i < f->fixes.n; i++) {
		const struct fix *x = &f->fixes.v[i];
		bool seen = false;
		for (size_t k = 0; k < i; k++)
			seen = seen || str_eq(f->fixes.v[k].file, x->file);
		if (seen)
			continue;
		json_t *ch = json_object(), *reps = json_array();
		json_object_set_new(ch, "artifactLocation", artifact(c, x->file));
		for (size_t k = i; k < f->fixes.n; k++) {
			const struct fix *y = &f->fixes.v[k];
			if (!str_eq(y->file, x->file))
				continue;
			json_t *rep = json_object(), *del = json_object(), *ins = json_object();
			json_object_set_new(del, "charOffset", json_integer(y->off));
			json_object_set_new(del, "charLength", json_integer(y->len));
			json_object_set_new(rep, "deletedRegion", del);
			json_object_set_new(ins, "text", json_text(y->text));
			json_object_set_new(rep, "insertedContent", ins);
			json_array_append_new(reps, rep);
		}
		json_object_set_new(ch, "replacements", reps);
		json_array_append_new(changes, ch);
	}
	json_object_set_new(one, "artifactChanges", changes);
	json_array_append_new(fx, one);
	return fx;
}

static json_t *result_json(const struct sctx *c, const struct finding *f, int rule_index, bool buildless,
			   bool with_baseline)
{
	json_t *o = json_object();
	json_object_set_new(o, "ruleId", json_string(f->rule->slug));
	json_object_set_new(o, "ruleIndex", json_integer(rule_index));
	json_object_set_new(o, "level", json_string(level_of(f->severity)));
	json_object_set_new(o, "message", message(f->msg));
	json_t *locs = json_array(), *pl = json_object();
	json_object_set_new(pl, "physicalLocation", phys(c, &f->loc, true));
	if (f->function && *f->function) {
		json_t *ll = json_array(), *x = json_object();
		json_object_set_new(x, "name", json_text(f->function));
		json_object_set_new(x, "kind", json_string("function"));
		json_array_append_new(ll, x);
		json_object_set_new(pl, "logicalLocations", ll);
	}
	json_array_append_new(locs, pl);
	json_object_set_new(o, "locations", locs);
	json_t *fp = json_object();
	json_object_set_new(fp, "nogvlLint/v1", json_string(f->fingerprint));
	json_object_set_new(o, "partialFingerprints", fp);
	if (f->notes.n) {
		/* the chain: notes run from the finding back to the release site */
		json_t *tfl = json_array();
		for (size_t i = f->notes.n; i-- > 0;) {
			json_t *step = json_object();
			json_object_set_new(step, "location", location(c, &f->notes.v[i].loc, f->notes.v[i].msg, NULL));
			json_object_set_new(step, "importance",
					    json_string(i + 1 == f->notes.n ? "essential" : "important"));
			json_array_append_new(tfl, step);
		}
		json_t *last = json_object();
		json_object_set_new(last, "location", location(c, &f->loc, f->msg, f->function));
		json_object_set_new(last, "importance", json_string("essential"));
		json_array_append_new(tfl, last);
		json_t *tf = json_object(), *tfs = json_array(), *cf = json_object(), *cfs = json_array();
		json_object_set_new(tf, "locations", tfl);
		json_array_append_new(tfs, tf);
		json_object_set_new(cf, "threadFlows", tfs);
		json_object_set_new(cf, "message", message("How the finding is reached from the GVL release"));
		json_array_append_new(cfs, cf);
		json_object_set_new(o, "codeFlows", cfs);
		json_t *rel = json_array();
		for (size_t i = 0; i < f->notes.n; i++) {
			json_t *x = location(c, &f->notes.v[i].loc, f->notes.v[i].msg, NULL);
			json_object_set_new(x, "id", json_integer((json_int_t)i + 1));
			json_array_append_new(rel, x);
		}
		json_object_set_new(o, "relatedLocations", rel);
	}
	if (f->fixes.n)
		json_object_set_new(o, "fixes", fixes_json(c, f));
	if (with_baseline)
		json_object_set_new(o, "baselineState", json_string("new"));
	json_t *props = json_object();
	json_object_set_new(props, "category", json_text(f->rule->category));
	json_object_set_new(props, "buildless", json_boolean(buildless));
	if (f->macro)
		json_object_set_new(props, "macro", json_text(f->macro));
	json_object_set_new(o, "properties", props);
	return o;
}

/* "tool": the driver and its rules (every non-debug rule, and debug rules
 * that ran); index_of[i]: rule_list[i]'s index there, -1 when absent */
static json_t *sarif_tool(const struct run *r, int *index_of)
{
	json_t *rules = json_array();
	int n = 0;
	for (unsigned i = 0; i < rule_count; i++) {
		const struct rule_desc *rd = rule_list[i];
		index_of[i] = -1;
		if ((rd->flags & RULE_DEBUG) && !(r->ran && r->ran[i]))
			continue;
		index_of[i] = n++;
		json_array_append_new(rules, rule_json(rd));
	}
	json_t *driver = json_object();
	json_object_set_new(driver, "name", json_string("nogvl-lint"));
	json_object_set_new(driver, "fullName", json_string("nogvl-lint: GVL-release safety for Ruby C extensions"));
	json_object_set_new(driver, "version", json_string(NOGVL_VERSION));
	json_object_set_new(driver, "semanticVersion", json_string(NOGVL_VERSION));
	json_object_set_new(driver, "informationUri", json_string(NOGVL_HOMEPAGE));
	json_object_set_new(driver, "rules", rules);
	json_t *tool = json_object();
	json_object_set_new(tool, "driver", driver);

	return tool;
}

/* "results": the reported findings */
static json_t *sarif_results(const struct sctx *c, const struct options *o, const struct run *r, const int *index_of)
{
	bool buildless = r->in.buildless;
	json_t *results = json_array();
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (!finding_reported(f))
			continue;
		int ri = -1;
		for (unsigned k = 0; k < rule_count; k++)
			if (rule_list[k] == f->rule)
				ri = index_of[k];
		/* every finding comes from a listed rule, which ran */
		INVARIANT(ri >= 0);
		json_array_append_new(results, result_json(c, f, ri, buildless, o->baseline != NULL));
	}
	return results;
}

/* the notification of a file not read completely */
static json_t *tu_notification(const struct sctx *c, const struct tu_facts *tu)
{
	json_t *nt = json_object();
	json_object_set_new(nt, "level", json_string(tu->status == TU_FAILED ? "error" : "warning"));
	strlist mh = {0};
	tu_missing_headers(tu, &mh);
	struct strbuf hs = {0};
	for (size_t k = 0; k < mh.n; k++)
		sb_printf(&hs, "%s'%s'", k ? ", " : "", mh.v[k]);
	char *msg =
		tu->status == TU_FAILED ? xasprintf("%s could not be analysed: %s", tu->display,
						    tu->fail_reason ? tu->fail_reason : "parse failure")
		: mh.n ? xasprintf("%s could not be read completely: missing header%s %s (install the library's "
				   "-dev package, add -I DIR, or use -p with a compile database)",
				   tu->display, mh.n == 1 ? "" : "s", sb_str(&hs))
		       : xasprintf("%s has %u parse error%s%s", tu->display, tu->nerrors, tu->nerrors == 1 ? "" : "s",
				   tu->degraded ? "; analysed degraded, with recovery stubs" : "");
	sb_free(&hs);
	strlist_free(&mh);
	json_object_set_new(nt, "message", message(msg));
	free(msg);
	struct loc l = {tu->path, 1, 0, 0};
	json_t *locs = json_array();
	json_array_append_new(locs, location(c, &l, NULL, NULL));
	json_object_set_new(nt, "locations", locs);
	return nt;
}

/* the notification of a source in a language libclang does not read */
static json_t *foreign_notification(const struct sctx *c, const struct run *r, const char *f)
{
	size_t nsp = 0;
	for (size_t k = 0; k < r->foreign_sp.n; k++)
		nsp += strcmp(r->foreign_sp.v[k].file, f) == 0;
	json_t *nt = json_object();
	json_object_set_new(nt, "level", json_string("warning"));
	char *d = display_path(f);
	char *msg = xasprintf("%s not analysed (%s; libclang reads only C and C++): %zu GVL-release spelling%s", d,
			      inputs_foreign_language(f), nsp, nsp == 1 ? "" : "s");
	free(d);
	json_object_set_new(nt, "message", message(msg));
	free(msg);
	struct loc l = {f, 1, 0, 0};
	json_t *locs = json_array();
	json_array_append_new(locs, location(c, &l, NULL, NULL));
	json_object_set_new(nt, "locations", locs);
	return nt;
}

int report_sarif(FILE *out, const struct options *o, const struct run *r)
{
	struct sctx c = {0};
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof(cwd)))
		c.cwd = xstrdup(cwd);
	bool buildless = r->in.buildless;
	int *index_of = xcalloc(rule_count, sizeof(int));
	json_t *tool = sarif_tool(r, index_of);
	json_t *results = sarif_results(&c, o, r, index_of);
	free(index_of);
	json_t *notes = json_array();
	for (size_t i = 0; i < r->ntus; i++)
		if (r->tus[i]->status != TU_OK)
			json_array_append_new(notes, tu_notification(&c, r->tus[i]));
	for (size_t i = 0; i < r->in.foreign.n; i++)
		json_array_append_new(notes, foreign_notification(&c, r, r->in.foreign.v[i]));
	json_t *inv = json_object();
	json_object_set_new(inv, "executionSuccessful", json_boolean(r->sum.files_failed < r->sum.files));
	json_object_set_new(inv, "toolExecutionNotifications", notes);
	json_t *invs = json_array();
	json_array_append_new(invs, inv);

	json_t *run = json_object();
	json_object_set_new(run, "tool", tool);
	json_object_set_new(run, "invocations", invs);
	if (c.cwd) {
		json_t *base = json_object(), *root = json_object();
		char *u = uri_encode_path(c.cwd);
		char *slash = xasprintf("%s/", u);
		json_object_set_new(root, "uri", json_text(slash));
		free(slash);
		free(u);
		json_object_set_new(base, "%SRCROOT%", root);
		json_object_set_new(run, "originalUriBaseIds", base);
	}
	json_object_set_new(run, "results", results);
	json_object_set_new(run, "columnKind", json_string("utf16CodeUnits"));
	json_t *rprops = json_object();
	json_object_set_new(rprops, "buildless", json_boolean(buildless));
	json_object_set_new(rprops, "suppressed", json_integer((json_int_t)r->sum.suppressed));
	json_object_set_new(rprops, "baselined", json_integer((json_int_t)r->sum.baselined));
	json_object_set_new(run, "properties", rprops);

	json_t *runs = json_array();
	json_array_append_new(runs, run);
	json_t *root = json_object();
	json_object_set_new(root, "$schema", json_string("https://json.schemastore.org/sarif-2.1.0.json"));
	json_object_set_new(root, "version", json_string("2.1.0"));
	json_object_set_new(root, "runs", runs);
	int rc = json_dumpf(root, out, JSON_INDENT(2));
	json_decref(root);
	free(c.cwd);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}
