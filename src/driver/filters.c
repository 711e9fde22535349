/* filters.c: what the configurations, suppressions and baseline make of the
 * findings, after the rules. Part of the driver (run.c). */
#include "run.h"

#include <stdlib.h>
#include <string.h>

#include "fingerprint.h"
#include "invariant.h"
#include "log.h"
#include "rule.h"
#include "run_parts.h"

/* ---- which rules the command line enables (run.h) ---- */

bool rule_cli_disabled(const struct options *o, const struct rule_desc *rd)
{
	for (size_t i = 0; i < o->disable.n; i++)
		if (strcmp(o->disable.v[i], rd->slug) == 0 || strcmp(o->disable.v[i], "all") == 0)
			return true;
	return false;
}

bool rule_cli_enabled(const struct options *o, const struct rule_desc *rd)
{
	for (size_t i = 0; i < o->enable.n; i++)
		if (strcmp(o->enable.v[i], rd->slug) == 0)
			return true;
	return false;
}

bool rule_enabled(const struct options *o, const struct rule_desc *rd)
{
	if (rule_cli_disabled(o, rd))
		return false;
	if (rd->flags & RULE_DEBUG)
		return rule_cli_enabled(o, rd);
	return true;
}

bool run_in_report_scope(const struct inputs *in, const char *file)
{
	if (!in->report_only.n)
		return true;
	for (size_t i = 0; file && i < in->report_only.n; i++)
		if (path_is_below(file, in->report_only.v[i]))
			return true;
	return false;
}

/* ---- configuration, suppressions, baseline (after the rules) ---- */

/* rd's place in rule_list (rd is one of the list's). */
static int rule_index(const struct rule_desc *rd)
{
	unsigned i = 0;
	while (i < rule_count && rule_list[i] != rd)
		i++;
	INVARIANT(i < rule_count);
	return (int)i;
}

/* Applies each finding's .nogvl-lint.yml: excluded files, rules switched off
 * there, severities. The command line wins. */
void apply_configs(const struct options *o, struct run *r)
{
	size_t w = 0;
	for (size_t i = 0; i < r->findings.v.n; i++) {
		struct finding *f = r->findings.v.v[i];
		const struct config *c = config_for_path(&r->cfg, f->loc.file, false);
		bool keep = !config_excludes(c, f->loc.file);
		int sev = f->severity;
		bool on = config_rule_enabled(c, f->rule->slug, !(f->rule->flags & RULE_DEBUG), &sev);
		if (keep && !on && !rule_cli_enabled(o, f->rule))
			keep = false;
		if (!keep) {
			struct findings one = {0};
			vec_push(&one.v, f);
			findings_free(&one);
			continue;
		}
		f->severity = sev;
		r->findings.v.v[w++] = f;
	}
	r->findings.v.n = w;
}

struct unused_ctx {
	const struct options *o;
	struct run *r;
};

static bool suppression_evaluated(const char *slug, const char *file, void *vctx)
{
	struct unused_ctx *u = vctx;
	const struct rule_desc *rd = rule_find(slug);
	int ri = rd ? rule_index(rd) : -1;
	if (ri < 0 || !u->r->ran[ri])
		return false;
	const struct config *c = config_for_path(&u->r->cfg, file, false);
	if (config_excludes(c, file))
		return false;
	if (!u->o->report_unused_suppressions && config_report_unused(c) != 1)
		return false;
	if (!rule_cli_enabled(u->o, rule_find("unused-suppression")) &&
	    !config_rule_enabled(c, "unused-suppression", true, NULL))
		return false;
	return rule_cli_enabled(u->o, rd) || config_rule_enabled(c, slug, !(rd->flags & RULE_DEBUG), NULL);
}

void apply_suppressions(const struct options *o, struct run *r)
{
	/* every project file, so that mistakes in comments are reported even
	 * where nothing was found */
	for (size_t t = 0; t < r->ntus; t++) {
		const struct tu_facts *tu = r->tus[t];
		if (tu->status == TU_FAILED)
			continue;
		for (size_t i = 0; i < tu->files.n; i++)
			if (!config_excludes(config_for_path(&r->cfg, tu->files.v[i].path, false), tu->files.v[i].path))
				suppress_get(&r->sup, tu->files.v[i].path);
	}
	suppress_apply(&r->sup, &r->findings, r->model);
	const struct rule_desc *unused = rule_find("unused-suppression");
	if (unused && !rule_cli_disabled(o, unused)) {
		struct unused_ctx u = {o, r};
		suppress_report_unused(&r->sup, &r->findings, unused, unused->severity, suppression_evaluated, &u);
		/* the config's severity for it */
		for (size_t i = 0; i < r->findings.v.n; i++) {
			struct finding *f = r->findings.v.v[i];
			if (f->rule == unused)
				config_rule_enabled(config_for_path(&r->cfg, f->loc.file, false), unused->slug, true,
						    &f->severity);
		}
	}
	findings_sort(&r->findings);
}

/* Read before the analysis, so that a bad file costs no time. */
int read_baseline(const struct options *o, struct run *r)
{
	if (!o->baseline)
		return 0;
	r->baseline = xcalloc(1, sizeof(*r->baseline));
	char *err = NULL;
	if (baseline_read(o->baseline, r->baseline, &err) != 0) {
		log_error("%s", err);
		free(err);
		return -1;
	}
	return 0;
}

int apply_baseline(const struct options *o, struct run *r)
{
	if (!o->baseline || !r->baseline)
		return 0;
	if (strcmp(r->baseline->tool_version, NOGVL_VERSION) != 0)
		log_verbose(1, "%s was written by nogvl-lint %s (this is %s)", o->baseline, r->baseline->tool_version,
			    NOGVL_VERSION);
	/* files analysed in this run, as the baseline names them */
	struct hmap analysed = {0}, roots = {0};
	strlist keys = {0};
	for (size_t t = 0; t < r->ntus; t++) {
		const struct tu_facts *tu = r->tus[t];
		if (tu->status == TU_FAILED)
			continue;
		for (size_t i = 0; i < tu->files.n; i++) {
			if (!run_in_report_scope(&r->in, tu->files.v[i].path))
				continue; /* analysed for context only: its findings are not reported */
			char *rel = fingerprint_relpath(&roots, tu->files.v[i].path);
			if (hmap_has(&analysed, rel)) {
				free(rel);
				continue;
			}
			vec_push(&keys, rel);
			hmap_put(&analysed, rel, (void *)1);
		}
	}
	baseline_apply(r->baseline, &r->findings, &analysed);
	hmap_free(&analysed);
	strlist_free(&keys);
	fingerprint_cache_free(&roots);
	return 0;
}
