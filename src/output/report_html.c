/* report_html.c: --format html, one self-contained page for reviewers and auditors.
 *
 * The page holds, in this order: what was analysed, a summary table (files,
 * parse problems, release sites, callbacks, findings by severity, offload
 * verdicts) and the findings by rule; then every reported finding with a few
 * source lines around it and its note chain; then the release sites with
 * their offload verdicts; then the files with parse problems and the
 * suppressed findings. A little inline script filters the findings by
 * severity and rule; without script everything is simply shown.
 *
 * Self-contained and inert:
 *   - CSS and JS are inline; a Content-Security-Policy meta tag allows
 *     nothing else (default-src 'none'), so the page cannot load anything
 *     from the network, and only the style and script elements carrying
 *     the page's nonce run;
 *   - every text from the analysed project (file names, messages, source
 *     lines) is escaped: & < > " ' become entities, control characters
 *     become visible Unicode control pictures (an ANSI escape shows as a
 *     visible ESC symbol), and bytes that are not UTF-8 become U+FFFD.
 *
 * Element ids and data attributes the browser test reads:
 *   #sum-files, #sum-parse-failures, #sum-sites, #sum-callbacks,
 *   #sum-errors, #sum-warnings, #sum-notes, #sum-findings,
 *   #sum-offload-candidates, #sum-cannot-verify: the summary counts;
 *   article.finding[data-rule][data-severity]: one per finding;
 *   #shown-count: how many findings the filters show.
 */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "output.h"
#include "rule.h"
#include "sysprobe.h"

#define SNIPPET_BEFORE 2
#define SNIPPET_AFTER 2

/* Length of the valid UTF-8 sequence at p (1-4), or 0 when it is not one:
 * no overlongs, no surrogates, nothing above U+10FFFF. */
static size_t utf8_len(const unsigned char *p)
{
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		return (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (p[0] >= 0xe0 && p[0] <= 0xef) {
		unsigned char lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		unsigned char lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
		return p[1] >= lo && p[1] <= hi && (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80 ? 4 : 0;
	}
	return 0;
}

/* Appends s, escaped for HTML text and attribute values. Tabs stay (the
 * snippets are in <pre>); other control characters become control pictures
 * (U+2400 + c, U+2421 for DEL). */
static void html_esc(struct strbuf *sb, const char *s)
{
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		switch (*p) {
		case '&':
			sb_puts(sb, "&amp;");
			p++;
			continue;
		case '<':
			sb_puts(sb, "&lt;");
			p++;
			continue;
		case '>':
			sb_puts(sb, "&gt;");
			p++;
			continue;
		case '"':
			sb_puts(sb, "&quot;");
			p++;
			continue;
		case '\'':
			sb_puts(sb, "&#39;");
			p++;
			continue;
		case '\t':
			sb_putc(sb, '\t');
			p++;
			continue;
		default:
			break;
		}
		if (*p < 0x20 || *p == 0x7f) {
			unsigned cp = *p == 0x7f ? 0x2421 : 0x2400 + *p;
			sb_printf(sb, "<span class=\"ctl\">&#x%X;</span>", cp);
			p++;
			continue;
		}
		size_t n = utf8_len(p);
		if (n == 0) {
			sb_puts(sb, "&#xFFFD;");
			p++;
			continue;
		}
		sb_add(sb, (const char *)p, n);
		p += n;
	}
}

static void esc_path(struct strbuf *sb, const char *abs)
{
	char *p = display_path(abs);
	html_esc(sb, p);
	free(p);
}

static void esc_loc(struct strbuf *sb, const struct loc *l)
{
	sb_puts(sb, "<span class=\"loc\">");
	esc_path(sb, l->file);
	sb_printf(sb, ":%u:%u</span>", l->line, l->col);
}

/* A few lines around loc, the line itself marked, with a caret under the
 * column (tabs kept, so the caret lines up). */
static void snippet(struct strbuf *sb, const struct loc *l)
{
	if (!l->file || !l->line || !source_line(l->file, l->line))
		return;
	uint32_t first = l->line > SNIPPET_BEFORE ? l->line - SNIPPET_BEFORE : 1;
	uint32_t last = l->line + SNIPPET_AFTER;
	unsigned width = (unsigned)snprintf(NULL, 0, "%u", last);
	sb_puts(sb, "<pre class=\"src\">");
	for (uint32_t ln = first; ln <= last; ln++) {
		const char *text = source_line(l->file, ln);
		if (!text)
			break;
		char *copy = xstrdup(text); /* source_line's buffer is reused */
		bool here = ln == l->line;
		sb_printf(sb, "<span class=\"%s\"><span class=\"ln\">%*u</span> ", here ? "line hit" : "line", width,
			  ln);
		html_esc(sb, copy);
		sb_puts(sb, "\n</span>");
		if (here) {
			sb_printf(sb, "<span class=\"caret\">%*s ", width, "");
			for (uint32_t c = 1; c < l->col && copy[c - 1]; c++)
				sb_putc(sb, copy[c - 1] == '\t' ? '\t' : ' ');
			sb_puts(sb, "^\n</span>");
		}
		free(copy);
	}
	sb_puts(sb, "</pre>\n");
}

static void finding_html(struct strbuf *sb, const struct finding *f, size_t idx, bool buildless)
{
	const char *sev = severity_name(f->severity);
	/* slugs and severities are [a-z-]: safe in attributes; escaped anyway */
	sb_puts(sb, "<article class=\"finding sev-");
	html_esc(sb, sev);
	sb_printf(sb, "\" id=\"f%zu\" data-rule=\"", idx + 1);
	html_esc(sb, f->rule->slug);
	sb_puts(sb, "\" data-severity=\"");
	html_esc(sb, sev);
	sb_puts(sb, "\">\n<h3><span class=\"sev\">");
	html_esc(sb, sev);
	sb_puts(sb, "</span> ");
	esc_loc(sb, &f->loc);
	sb_puts(sb, " <span class=\"rule\">[");
	html_esc(sb, f->rule->slug);
	sb_puts(sb, "]</span>");
	if (f->function && *f->function) {
		sb_puts(sb, " <span class=\"fn\">in ");
		html_esc(sb, f->function);
		sb_puts(sb, "</span>");
	}
	sb_puts(sb, "</h3>\n<p class=\"msg\">");
	html_esc(sb, f->msg);
	if (buildless)
		sb_puts(sb, " <span class=\"tag\">buildless analysis</span>");
	sb_puts(sb, "</p>\n");
	snippet(sb, &f->loc);
	if (f->notes.n) {
		sb_puts(sb, "<ol class=\"chain\">\n");
		for (size_t k = 0; k < f->notes.n; k++) {
			const struct note *n = &f->notes.v[k];
			sb_puts(sb, "<li>");
			esc_loc(sb, &n->loc);
			sb_puts(sb, " <span class=\"note\">note:</span> ");
			html_esc(sb, n->msg);
			const char *src = source_line(n->loc.file, n->loc.line);
			if (src) {
				sb_puts(sb, "<code class=\"srcline\">");
				char *copy = xstrdup(src);
				html_esc(sb, copy);
				free(copy);
				sb_puts(sb, "</code>");
			}
			sb_puts(sb, "</li>\n");
		}
		sb_puts(sb, "</ol>\n");
	}
	if (f->fixes.n && f->fix_desc) {
		sb_puts(sb, "<p class=\"fix\">Fix available: ");
		html_esc(sb, f->fix_desc);
		sb_puts(sb, " (apply with <code>--fix</code>, preview with <code>--fix-dry-run</code>)</p>\n");
	}
	sb_puts(sb, "</article>\n");
}

static void cb_html(struct strbuf *sb, const struct model *m, const struct cbres *cb)
{
	sb_puts(sb, "<code>");
	html_esc(sb, cb->text ? cb->text : "?");
	sb_puts(sb, "</code>");
	if (cb->ntargets || cb->nexternal) {
		sb_puts(sb, " &rarr; ");
		for (uint32_t i = 0; i < cb->ntargets; i++) {
			if (i)
				sb_puts(sb, ", ");
			html_esc(sb, m->fns.v[cb->targets[i]].f->name);
		}
		for (uint32_t i = 0; i < cb->nexternal; i++) {
			if (i || cb->ntargets)
				sb_puts(sb, ", ");
			html_esc(sb, cb->external[i]);
			sb_puts(sb, " (no body)");
		}
	} else if (cb->how != CB_NULL && cb->how != CB_SENTINEL) {
		sb_puts(sb, " <span class=\"unresolved\">unresolved</span>");
	}
}

static bool verdict_cannot_verify(int v)
{
	return v == OV_CANNOT_VERIFY || v == OV_FLAGGED_CANNOT_VERIFY;
}

static void site_row(struct strbuf *sb, const struct model *m, const struct msite *s)
{
	const struct site_verdict *oi = site_verdict_of(m, s->id);
	int v = oi ? oi->verdict : OV_NOT_EVALUATED;
	const char *vname = v == OV_FLAGGED_CANNOT_VERIFY ? "cannot verify" : offload_verdict_name(v);
	sb_puts(sb, "<tr><td>");
	esc_loc(sb, &s->loc);
	sb_puts(sb, "</td><td>");
	html_esc(sb, m->fns.v[s->fn].f->name);
	sb_puts(sb, "</td><td><code>");
	html_esc(sb, s->called ? s->called : s->api ? s->api->name : "?");
	sb_puts(sb, "</code>");
	if (s->inner >= 0 && s->api) {
		sb_puts(sb, " (wraps <code>");
		html_esc(sb, s->api->name);
		sb_puts(sb, "</code>)");
	}
	sb_puts(sb, "</td><td>");
	cb_html(sb, m, &s->cb);
	sb_puts(sb, "</td><td>");
	cb_html(sb, m, &s->ubf);
	sb_puts(sb, "</td><td><code>");
	html_esc(sb, s->flags_expr && s->flags_expr->text ? s->flags_expr->text : "");
	sb_puts(sb, "</code></td><td class=\"verdict\">");
	html_esc(sb, vname);
	if (oi && v != OV_NOT_EVALUATED && v != OV_NOT_APPLICABLE) {
		bool any = false;
		for (int g = 0; g < GATE_COUNT; g++) {
			if (oi->g.state[g] == GATE_PASS)
				continue;
			sb_puts(sb, any ? ", " : "<br><span class=\"gates\">");
			any = true;
			html_esc(sb, gate_name(g));
			sb_puts(sb, oi->g.state[g] == GATE_FAIL ? " (fail)" : " (cannot verify)");
		}
		if (any)
			sb_puts(sb, "</span>");
	}
	sb_puts(sb, "</td></tr>\n");
}

static void count_row(struct strbuf *sb, const char *id, const char *label, size_t n)
{
	sb_printf(sb, "<tr><th scope=\"row\">%s</th><td id=\"%s\">%zu</td></tr>\n", label, id, n);
}

static const char page_css[] =
	":root{color-scheme:light dark;--bg:#fff;--fg:#1b1f23;--mute:#57606a;--line:#d0d7de;--code:#f6f8fa;"
	"--err:#cf222e;--warn:#9a6700;--note:#0969da;--hit:#fff8c5}"
	"@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--mute:#8d96a0;--line:#30363d;"
	"--code:#161b22;--err:#ff7b72;--warn:#d29922;--note:#58a6ff;--hit:#3b2e00}}"
	"body{margin:0 auto;max-width:80rem;padding:1rem 1.5rem;background:var(--bg);color:var(--fg);"
	"font:15px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif}"
	"h1{font-size:1.5rem;margin:.2rem 0}h2{font-size:1.2rem;border-bottom:1px solid var(--line);"
	"padding-bottom:.2rem;margin-top:2rem}h3{font-size:1rem;margin:0 0 .3rem;font-weight:600}"
	".meta{color:var(--mute);margin:.2rem 0}code,pre,.loc{font-family:ui-monospace,'DejaVu Sans Mono',"
	"Menlo,monospace;font-size:.9em}table{border-collapse:collapse;margin:.5rem 0}"
	"th,td{border:1px solid var(--line);padding:.25rem .6rem;text-align:left;vertical-align:top}"
	"table.summary td{text-align:right;font-variant-numeric:tabular-nums}"
	"table.sites{font-size:.9em;width:100%}table.sites td.verdict{min-width:16rem}"
	"table.sites .loc{word-break:break-all}"
	"#filters{position:sticky;top:0;background:var(--bg);padding:.5rem 0;border-bottom:1px solid var(--line);"
	"z-index:1}#filters label{margin-right:1rem}#filters select{margin-left:.3rem}"
	"article.finding{border:1px solid var(--line);border-left:4px solid var(--mute);border-radius:4px;"
	"padding:.6rem .8rem;margin:.8rem 0}article.sev-error{border-left-color:var(--err)}"
	"article.sev-warning{border-left-color:var(--warn)}article.sev-note{border-left-color:var(--note)}"
	".sev{text-transform:uppercase;font-size:.8em;letter-spacing:.04em}"
	".sev-error .sev{color:var(--err)}.sev-warning .sev{color:var(--warn)}.sev-note .sev{color:var(--note)}"
	".rule,.fn{color:var(--mute);font-weight:400}.msg{margin:.2rem 0 .4rem}"
	"pre.src{background:var(--code);padding:.4rem .6rem;overflow-x:auto;margin:.3rem 0;tab-size:8}"
	"pre.src .line,pre.src .caret{display:block}pre.src .hit{background:var(--hit)}pre.src .ln{color:var(--mute);"
	"user-select:none}pre.src .caret{color:var(--err);font-weight:700}"
	"ol.chain{margin:.3rem 0;padding-left:1.6rem}ol.chain li{margin:.15rem 0}"
	".srcline{display:block;color:var(--mute);white-space:pre-wrap}.note{color:var(--note)}"
	".ctl{color:var(--err);font-weight:700}.tag{font-size:.8em;color:var(--mute);border:1px solid var(--line);"
	"border-radius:3px;padding:0 .3rem}.unresolved{color:var(--warn)}.gates{color:var(--mute);font-size:.9em}"
	".fix{color:var(--note)}.empty{color:var(--mute)}tr.rule-row{cursor:pointer}"
	"tr.rule-row:hover{background:var(--code)}details{margin:.5rem 0}";

/* Filtering by severity and rule; clicking a rule in the summary selects it. */
static const char page_js[] =
	"(function(){'use strict';\n"
	"var boxes=document.querySelectorAll('input[data-filter=\"severity\"]');\n"
	"var sel=document.getElementById('rule-filter');\n"
	"var shown=document.getElementById('shown-count');\n"
	"var items=document.querySelectorAll('article.finding');\n"
	"var empty=document.getElementById('none-shown');\n"
	"function apply(){var sev={};var i;\n"
	" for(i=0;i<boxes.length;i++){sev[boxes[i].value]=boxes[i].checked;}\n"
	" var rule=sel?sel.value:'';var n=0;\n"
	" for(i=0;i<items.length;i++){var a=items[i];\n"
	"  var show=sev[a.getAttribute('data-severity')]!==false&&(!rule||a.getAttribute('data-rule')===rule);\n"
	"  a.hidden=!show;if(show){n++;}}\n"
	" if(shown){shown.textContent=String(n);}\n"
	" if(empty){empty.hidden=n!==0||items.length===0;}}\n"
	"for(var i=0;i<boxes.length;i++){boxes[i].addEventListener('change',apply);}\n"
	"if(sel){sel.addEventListener('change',apply);}\n"
	"var rows=document.querySelectorAll('tr.rule-row');\n"
	"for(var k=0;k<rows.length;k++){rows[k].addEventListener('click',function(){\n"
	" if(sel){sel.value=this.getAttribute('data-rule');apply();}\n"
	" var f=document.getElementById('findings');if(f){f.scrollIntoView();}});}\n"
	"document.documentElement.setAttribute('data-js','ready');\n"
	"apply();})();\n";

/* the heading: what was analysed, how, with which Ruby headers */
static void html_header(struct strbuf *sb, const struct options *o, const struct run *r)
{
	bool buildless = r->in.buildless;

	sb_puts(sb, "<header>\n<h1>nogvl-lint report</h1>\n<p class=\"meta\">");
	if (o->paths.n) {
		for (size_t i = 0; i < o->paths.n; i++) {
			if (i)
				sb_puts(sb, " ");
			sb_puts(sb, "<code>");
			html_esc(sb, o->paths.v[i]);
			sb_puts(sb, "</code>");
		}
	} else if (o->compile_commands) {
		sb_puts(sb, "<code>");
		html_esc(sb, o->compile_commands);
		sb_puts(sb, "</code>");
	}
	sb_puts(sb, " &middot; ");
	sb_puts(sb, buildless ? "buildless (no compile database)" : "compile database");
	sb_puts(sb, " &middot; nogvl-lint " NOGVL_VERSION);
	if (r->in.rh.dirs.n) {
		sb_puts(sb, " &middot; Ruby headers <code>");
		html_esc(sb, r->in.rh.dirs.v[r->in.rh.dirs.n - 1]);
		sb_puts(sb, "</code>");
		if (!r->in.rh.has_offload_flag && o->ruby34_view)
			sb_puts(sb, " (analysed as Ruby 3.4+)");
	}
	sb_puts(sb, "</p>\n</header>\n");
}

/* what the summary and the filters count */
struct html_counts {
	size_t candidates, cannot, reported;
	size_t *by_rule; /* per rule_list index */
	size_t by_sev[3];
};

/* the counts of the summary, the filters and the sections */
static void html_count(const struct run *r, struct html_counts *n)
{
	const struct model *m = r->model;
	memset(n, 0, sizeof(*n));
	n->by_rule = xcalloc(rule_count ? rule_count : 1, sizeof(size_t));
	if (m)
		for (size_t i = 0; i < m->sites.n; i++) {
			if (m->sites.v[i].is_template)
				continue;
			const struct site_verdict *oi = site_verdict_of(m, m->sites.v[i].id);
			int v = oi ? oi->verdict : OV_NOT_EVALUATED;
			n->candidates += v == OV_CANDIDATE;
			n->cannot += verdict_cannot_verify(v);
		}
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (!finding_reported(f))
			continue;
		n->reported++;
		if (f->severity >= SEV_NOTE && f->severity <= SEV_ERROR)
			n->by_sev[f->severity]++;
		for (unsigned k = 0; k < rule_count; k++)
			if (rule_list[k] == f->rule)
				n->by_rule[k]++;
	}
}

/* the summary table and the findings by rule */
static void html_summary(struct strbuf *sb, const struct run *r, const struct html_counts *n)
{
	const struct summary *s = &r->sum;

	sb_puts(sb, "<section id=\"summary\">\n<h2>Summary</h2>\n<table class=\"summary\"><tbody>\n");
	count_row(sb, "sum-files", "Files analysed", s->files);
	count_row(sb, "sum-parse-failures", "Files not analysed (parse failed)", s->files_failed);
	count_row(sb, "sum-parse-errors", "Files with parse errors (analysed)", s->files_with_errors);
	count_row(sb, "sum-degraded", "&hellip; of them with recovery stubs", s->files_degraded);
	count_row(sb, "sum-missing-headers", "Files with missing headers (incomplete)", s->files_missing_headers);
	count_row(sb, "sum-incomplete", "&hellip; releasing the GVL, no release site analysed", s->files_incomplete);
	count_row(sb, "sum-not-analysed", "Sources in other languages (not analysed)", s->foreign_files);
	count_row(sb, "sum-sites", "GVL release sites", s->sites);
	count_row(sb, "sum-callbacks", "Callbacks resolved", s->callbacks);
	count_row(sb, "sum-unresolved", "Sites with an unresolved callback", s->unresolved);
	count_row(sb, "sum-findings", "Findings", n->reported);
	count_row(sb, "sum-errors", "&hellip; errors", n->by_sev[SEV_ERROR]);
	count_row(sb, "sum-warnings", "&hellip; warnings", n->by_sev[SEV_WARNING]);
	count_row(sb, "sum-notes", "&hellip; notes", n->by_sev[SEV_NOTE]);
	count_row(sb, "sum-suppressed", "Suppressed findings", s->suppressed);
	if (r->baseline)
		count_row(sb, "sum-baselined", "Findings in the baseline", s->baselined);
	count_row(sb, "sum-offload-candidates", "Offload candidates", n->candidates);
	count_row(sb, "sum-cannot-verify", "Offload: cannot verify", n->cannot);
	sb_puts(sb, "</tbody></table>\n");

	if (n->reported) {
		sb_puts(sb, "<h3>Findings by rule</h3>\n<table class=\"by-rule\"><thead><tr><th>Rule</th>"
			    "<th>Category</th><th>Findings</th></tr></thead><tbody>\n");
		for (unsigned k = 0; k < rule_count; k++) {
			if (!n->by_rule[k])
				continue;
			sb_puts(sb, "<tr class=\"rule-row\" data-rule=\"");
			html_esc(sb, rule_list[k]->slug);
			sb_puts(sb, "\" title=\"");
			html_esc(sb, rule_list[k]->summary);
			sb_puts(sb, "\"><td><code>");
			html_esc(sb, rule_list[k]->slug);
			sb_puts(sb, "</code></td><td>");
			html_esc(sb, rule_list[k]->category);
			sb_printf(sb, "</td><td>%zu</td></tr>\n", n->by_rule[k]);
		}
		sb_puts(sb, "</tbody></table>\n");
	}
	sb_puts(sb, "</section>\n");
}

/* the findings, with their filters */
static void html_findings(struct strbuf *sb, const struct run *r, const struct html_counts *n)
{
	bool buildless = r->in.buildless;

	/* findings */
	sb_printf(sb, "<section id=\"findings\">\n<h2>Findings (%zu)</h2>\n", n->reported);
	if (n->reported) {
		sb_puts(sb, "<form id=\"filters\" autocomplete=\"off\">Severity: ");
		static const int order[] = {SEV_ERROR, SEV_WARNING, SEV_NOTE};
		for (size_t k = 0; k < ARRAY_SIZE(order); k++) {
			const char *name = severity_name(order[k]);
			sb_printf(sb,
				  "<label><input type=\"checkbox\" data-filter=\"severity\" value=\"%s\" checked> %s "
				  "(%zu)</label>",
				  name, name, n->by_sev[order[k]]);
		}
		sb_puts(sb, "<label>Rule:<select id=\"rule-filter\"><option value=\"\">all rules</option>");
		for (unsigned k = 0; k < rule_count; k++) {
			if (!n->by_rule[k])
				continue;
			sb_puts(sb, "<option value=\"");
			html_esc(sb, rule_list[k]->slug);
			sb_puts(sb, "\">");
			html_esc(sb, rule_list[k]->slug);
			sb_printf(sb, " (%zu)</option>", n->by_rule[k]);
		}
		sb_printf(sb, "</select></label> <span id=\"shown-count\">%zu</span> of %zu shown</form>\n",
			  n->reported, n->reported);
		sb_puts(sb, "<p id=\"none-shown\" class=\"empty\" hidden>No finding matches the filters.</p>\n");
		size_t idx = 0;
		for (size_t i = 0; i < r->findings.v.n; i++) {
			const struct finding *f = r->findings.v.v[i];
			if (finding_reported(f))
				finding_html(sb, f, idx++, buildless);
		}
	} else {
		sb_puts(sb, "<p class=\"empty\">No findings.</p>\n");
	}
	sb_puts(sb, "</section>\n");
}

/* the release sites and their verdicts */
static void html_sites(struct strbuf *sb, const struct run *r)
{
	const struct model *m = r->model;
	const struct summary *s = &r->sum;

	/* release sites */
	sb_printf(sb, "<section id=\"sites\">\n<h2>GVL release sites (%zu)</h2>\n", s->sites);
	if (m && s->sites) {
		sb_puts(sb,
			"<table class=\"sites\"><thead><tr><th>Where</th><th>Function</th><th>Call</th>"
			"<th>Callback</th><th>UBF</th><th>Flags</th><th>Offload verdict</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < m->sites.n; i++)
			if (!m->sites.v[i].is_template)
				site_row(sb, m, &m->sites.v[i]);
		sb_puts(sb, "</tbody></table>\n");
	} else {
		sb_puts(sb, "<p class=\"empty\">No GVL release found.</p>\n");
	}
	sb_puts(sb, "</section>\n");
}

/* files with parse problems */
static void html_parse_problems(struct strbuf *sb, const struct run *r)
{
	/* parse problems */
	size_t nproblem = 0;
	for (size_t i = 0; i < r->ntus; i++)
		nproblem += r->tus[i]->status != TU_OK;
	if (nproblem) {
		sb_printf(sb, "<section id=\"parse-problems\">\n<h2>Files with parse problems (%zu)</h2>\n<ul>\n",
			  nproblem);
		for (size_t i = 0; i < r->ntus; i++) {
			const struct tu_facts *tu = r->tus[i];
			if (tu->status == TU_OK)
				continue;
			sb_puts(sb, "<li><span class=\"loc\">");
			html_esc(sb, tu->display);
			sb_puts(sb, "</span>: ");
			if (tu->status == TU_FAILED) {
				sb_puts(sb, "not analysed: ");
				html_esc(sb, tu->fail_reason ? tu->fail_reason : "?");
			} else {
				sb_printf(sb, "%u parse error%s%s", tu->nerrors, tu->nerrors == 1 ? "" : "s",
					  tu->degraded ? ", analysed with recovery stubs" : ", analysed");
				strlist mh = {0};
				tu_missing_headers(tu, &mh);
				for (size_t k = 0; k < mh.n; k++) {
					sb_puts(sb, k ? ", '" : "; missing headers: '");
					html_esc(sb, mh.v[k]);
					sb_puts(sb, "'");
				}
				strlist_free(&mh);
				if (tu->diags.n) {
					sb_puts(sb, "; first: ");
					esc_loc(sb, &tu->diags.v[0].loc);
					sb_puts(sb, " ");
					html_esc(sb, tu->diags.v[0].msg);
				}
			}
			sb_puts(sb, "</li>\n");
		}
		sb_puts(sb, "</ul>\n</section>\n");
	}
}

/* what could not be read */
static void html_incomplete(struct strbuf *sb, const struct run *r)
{
	const struct summary *s = &r->sum;

	/* what could not be read (issue 14) */
	if (s->missing_headers.n || r->in.foreign.n || s->generated_files.n) {
		sb_puts(sb, "<section id=\"incomplete\">\n<h2>Incomplete</h2>\n<ul>\n");
		if (s->missing_headers.n) {
			sb_puts(sb, "<li>Missing headers: ");
			for (size_t k = 0; k < s->missing_headers.n; k++) {
				sb_puts(sb, k ? ", <code>" : "<code>");
				html_esc(sb, s->missing_headers.v[k]);
				sb_puts(sb, "</code>");
			}
			sb_puts(sb, ". Install the library's -dev package, add -I DIR, or use -p with a compile "
				    "database.</li>\n");
		}
		for (size_t i = 0; i < s->generated_files.n; i++) {
			sb_puts(sb, "<li><code>");
			html_esc(sb, s->generated_files.v[i]);
			sb_puts(sb, "</code>: not read, the gem's build makes it (from <span class=\"loc\">");
			html_esc(sb, s->generated_from.v[i]);
			sb_puts(sb, "</span>). Build the gem once and use -p with its compile database.</li>\n");
		}
		for (size_t i = 0; i < r->in.foreign.n; i++) {
			size_t nsp = 0;
			for (size_t k = 0; k < r->foreign_sp.n; k++)
				nsp += strcmp(r->foreign_sp.v[k].file, r->in.foreign.v[i]) == 0;
			char *d = display_path(r->in.foreign.v[i]);
			sb_puts(sb, "<li><span class=\"loc\">");
			html_esc(sb, d);
			free(d);
			sb_printf(sb, "</span>: not analysed (%s), %zu GVL-release spelling%s</li>\n",
				  inputs_foreign_language(r->in.foreign.v[i]), nsp, nsp == 1 ? "" : "s");
		}
		sb_puts(sb, "</ul>\n</section>\n");
	}
}

/* the suppressed findings, folded */
static void html_suppressed(struct strbuf *sb, const struct run *r)
{
	const struct summary *s = &r->sum;

	/* suppressed */
	if (s->suppressed) {
		sb_printf(sb,
			  "<section id=\"suppressed\">\n<details><summary>Suppressed findings (%zu)</summary>\n<ul>\n",
			  s->suppressed);
		for (size_t i = 0; i < r->findings.v.n; i++) {
			const struct finding *f = r->findings.v.v[i];
			if (!f->suppressed || f->baselined)
				continue;
			sb_puts(sb, "<li>");
			esc_loc(sb, &f->loc);
			sb_puts(sb, " <span class=\"rule\">[");
			html_esc(sb, f->rule->slug);
			sb_puts(sb, "]</span> ");
			html_esc(sb, f->msg);
			if (f->suppressed_by && f->suppressed_by->reason && *f->suppressed_by->reason) {
				sb_puts(sb, " &mdash; reason: ");
				html_esc(sb, f->suppressed_by->reason);
			}
			sb_puts(sb, "</li>\n");
		}
		sb_puts(sb, "</ul>\n</details>\n</section>\n");
	}
}

static void body_html(struct strbuf *sb, const struct options *o, const struct run *r)
{
	struct html_counts n;
	html_count(r, &n);
	html_header(sb, o, r);
	html_summary(sb, r, &n);
	html_findings(sb, r, &n);
	free(n.by_rule);
	html_sites(sb, r);
	html_parse_problems(sb, r);
	html_incomplete(sb, r);
	html_suppressed(sb, r);
}

int report_html(FILE *out, const struct options *o, const struct run *r)
{
	struct strbuf body = {0};
	body_html(&body, o, r);
	/* the nonce only has to be unguessable by the analysed text, which is
	 * escaped anyway: a hash of the page body does */
	XXH128_hash_t h = XXH3_128bits(sb_str(&body), body.len);
	char nonce[33];
	snprintf(nonce, sizeof(nonce), "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);

	struct strbuf title = {0};
	sb_puts(&title, "nogvl-lint report");
	for (size_t i = 0; i < o->paths.n && i < 3; i++) {
		sb_puts(&title, i ? " " : ": ");
		html_esc(&title, o->paths.v[i]);
	}
	if (o->paths.n > 3)
		sb_puts(&title, " &hellip;");

	fprintf(out,
		"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'nonce-%s'; "
		"script-src 'nonce-%s'; base-uri 'none'; form-action 'none'\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<meta name=\"generator\" content=\"nogvl-lint %s\">\n<title>%s</title>\n"
		"<style nonce=\"%s\">%s</style>\n</head>\n<body>\n",
		nonce, nonce, NOGVL_VERSION, sb_str(&title), nonce, page_css);
	fputs(sb_str(&body), out);
	fprintf(out, "<script nonce=\"%s\">\n%s</script>\n</body>\n</html>\n", nonce, page_js);
	sb_free(&body);
	sb_free(&title);
	return ferror(out) ? -1 : 0;
}
