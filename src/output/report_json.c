/* report_json.c: --format json, one document for scripts, auditors and the HTML report.
 *
 * Top-level keys (all always present):
 *   tool            name, version, fingerprint_version
 *   inputs          mode (buildless | compile-commands), compile_commands, paths,
 *                   ruby_headers, ruby34_view, files (each TU: status, parse
 *                   errors, degraded, dropped flags)
 *   findings        reported findings (not suppressed, not in the baseline)
 *   suppressed      findings hidden by a nogvl-lint: comment, with the comment
 *   parse_failures  TUs that failed or parsed with errors (analysed degraded)
 *   sites           every GVL-release site with its callback, UBF, flags and
 *                   offload verdict
 *   wrappers        functions that forward a callback to a release API
 *   baseline        null, or what --baseline hid and which entries are fixed
 *   summary         counts, and timing: the wall-clock seconds of the parse,
 *                   link and rules phases (for bench/run; they vary)
 */
#include <stdlib.h>
#include <string.h>

#include "libmodel.h"
#include "sysprobe.h"
#include "json_stream.h"
#include "output.h"
#include "rule.h"

static json_t *jnote_list(const struct finding *f)
{
	json_t *a = json_array();
	for (size_t i = 0; i < f->notes.n; i++) {
		json_t *n = json_loc(&f->notes.v[i].loc);
		json_object_set_new(n, "message", json_text(f->notes.v[i].msg));
		json_array_append_new(a, n);
	}
	return a;
}

static json_t *jfixes(const struct finding *f)
{
	if (!f->fixes.n)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "description", json_text(f->fix_desc));
	json_t *a = json_array();
	for (size_t i = 0; i < f->fixes.n; i++) {
		const struct fix *x = &f->fixes.v[i];
		struct loc l = {x->file, x->line, x->col, x->off};
		json_t *r = json_loc(&l);
		json_object_set_new(r, "offset", json_integer(x->off));
		json_object_set_new(r, "length", json_integer(x->len));
		json_object_set_new(r, "text", json_text(x->text));
		json_array_append_new(a, r);
	}
	json_object_set_new(o, "replacements", a);
	return o;
}

static json_t *jfinding(const struct finding *f, bool buildless)
{
	json_t *o = json_object();
	json_object_set_new(o, "rule", json_string(f->rule->slug));
	json_object_set_new(o, "severity", json_string(severity_name(f->severity)));
	json_object_set_new(o, "category", json_text(f->rule->category));
	json_object_set_new(o, "message", json_text(f->msg));
	json_t *l = json_loc(&f->loc);
	json_object_update(o, l);
	json_decref(l);
	json_object_set_new(o, "function", json_text(f->function));
	json_object_set_new(o, "macro", json_text(f->macro));
	/* in a function nothing in the gem calls (still reported, as its sites are) */
	json_object_set_new(o, "unreachable", json_boolean(f->unreachable));
	json_object_set_new(o, "source", json_text(source_line(f->loc.file, f->loc.line)));
	json_object_set_new(o, "fingerprint", json_string(f->fingerprint));
	/* buildless: analysed without the build's own flags, so lower confidence */
	json_object_set_new(o, "buildless", json_boolean(buildless));
	json_object_set_new(o, "notes", jnote_list(f));
	json_object_set_new(o, "fixes", jfixes(f));
	return o;
}

static const char *status_name(int st)
{
	switch (st) {
	case TU_OK:
		return "ok";
	case TU_ERRORS:
		return "errors";
	default:
		return "failed";
	}
}

static json_t *jtu(const struct tu_facts *tu)
{
	json_t *o = json_object();
	json_object_set_new(o, "file", json_text(tu->display));
	json_object_set_new(o, "status", json_string(status_name(tu->status)));
	json_object_set_new(o, "buildless", json_boolean(tu->buildless));
	json_object_set_new(o, "degraded", json_boolean(tu->degraded));
	json_object_set_new(o, "parse_errors", json_integer(tu->nerrors));
	json_object_set_new(o, "reason", json_text(tu->fail_reason));
	json_t *d = json_array();
	for (size_t i = 0; i < tu->diags.n; i++) {
		json_t *x = json_loc(&tu->diags.v[i].loc);
		json_object_set_new(x, "message", json_text(tu->diags.v[i].msg));
		json_array_append_new(d, x);
	}
	json_object_set_new(o, "diagnostics", d);
	strlist mh = {0};
	tu_missing_headers(tu, &mh);
	json_t *mj = json_array();
	for (size_t i = 0; i < mh.n; i++)
		json_array_append_new(mj, json_text(mh.v[i]));
	strlist_free(&mh);
	json_object_set_new(o, "missing_headers", mj);
	json_t *fl = json_array();
	for (size_t i = 0; i < tu->dropped_flags.n; i++)
		json_array_append_new(fl, json_text(tu->dropped_flags.v[i]));
	json_object_set_new(o, "dropped_flags", fl);
	return o;
}

static json_t *jfunc_ref(const struct model *m, uint32_t id)
{
	const struct mfunc *mf = &m->fns.v[id];
	json_t *o = json_object();
	json_object_set_new(o, "name", json_text(mf->f->name));
	json_t *l = json_loc(&mf->f->loc);
	json_object_update(o, l);
	json_decref(l);
	return o;
}

/* callback / UBF resolution */
static json_t *jcbres(const struct model *m, const struct cbres *cb)
{
	json_t *o = json_object();
	json_object_set_new(o, "text", json_text(cb->text));
	json_object_set_new(o, "how", json_string(cb_how_text(cb->how)));
	json_object_set_new(
		o, "resolved",
		json_boolean(cb->ntargets || cb->nexternal || cb->how == CB_NULL || cb->how == CB_SENTINEL));
	json_object_set_new(o, "partial", json_boolean(cb->partial));
	json_object_set_new(o, "macro", json_text(cb->macro));
	json_t *t = json_array();
	for (uint32_t i = 0; i < cb->ntargets; i++)
		json_array_append_new(t, jfunc_ref(m, cb->targets[i]));
	json_object_set_new(o, "targets", t);
	json_t *x = json_array();
	for (uint32_t i = 0; i < cb->nexternal; i++)
		json_array_append_new(x, json_text(cb->external[i]));
	json_object_set_new(o, "external", x);
	return o;
}

static const char *const flag_names[] = {"RB_NOGVL_INTR_FAIL", "RB_NOGVL_UBF_ASYNC_SAFE", "RB_NOGVL_OFFLOAD_SAFE",
					 "RB_NOGVL_PENDING_INTR_FAIL"};

static json_t *jflags(const struct msite *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "text", json_text(s->flags_expr ? s->flags_expr->text : NULL));
	json_object_set_new(o, "known", json_boolean(s->flags_known));
	json_object_set_new(o, "value", s->flags_known ? json_integer(s->flags) : json_null());
	json_t *names = json_array();
	for (unsigned b = 0; b < ARRAY_SIZE(flag_names); b++)
		if (s->flags_known && (s->flags & (1 << b)))
			json_array_append_new(names, json_string(flag_names[b]));
	json_object_set_new(o, "names", names);
	return o;
}

/* The offload verdict of a site, read from the model (verdict.h): verdict
 * ("candidate", "already flagged", "unsafe", "cannot verify", "not
 * offload-safe", "not applicable", "not evaluated"), evaluated, gates (one
 * entry per gate: {"gate", "state": pass | fail | cannot verify, "evidence":
 * [{file, line, column, message}]}), failed_gates, cannot_verify_gates, and
 * missing_fact: null, or for "cannot verify" the one fact that would decide
 * it ({file, line, column, kind, name, gate, next_step, more}). */
static json_t *joffload(const struct model *m, const struct msite *s)
{
	const struct site_verdict *oi = site_verdict_of(m, s->id);
	json_t *o = json_object();
	int v = oi ? oi->verdict : OV_NOT_EVALUATED;
	/* one of: candidate, already flagged, unsafe, cannot verify, not offload-safe,
	 * not applicable, not evaluated; flag_set says whether the call has the flag */
	const char *name = v == OV_FLAGGED_CANNOT_VERIFY ? "cannot verify" : offload_verdict_name(v);
	json_object_set_new(o, "verdict", json_string(name));
	json_object_set_new(o, "flag_set", json_boolean(oi && oi->flagged));
	json_object_set_new(o, "evaluated", json_boolean(v != OV_NOT_EVALUATED && v != OV_NOT_APPLICABLE));
	json_object_set_new(o, "small_work", json_boolean(oi && oi->small_work));
	json_t *gates = json_array(), *failed = json_array(), *unknown = json_array();
	if (oi && v != OV_NOT_EVALUATED && v != OV_NOT_APPLICABLE) {
		for (int g = 0; g < GATE_COUNT; g++) {
			json_t *jg = json_object();
			json_object_set_new(jg, "gate", json_string(gate_name(g)));
			json_object_set_new(jg, "state", json_string(gate_state_name(oi->g.state[g])));
			json_t *ev = json_array();
			for (size_t k = 0; k < oi->g.ev.n; k++) {
				const struct gate_evidence *e = &oi->g.ev.v[k];
				if (e->gate != g)
					continue;
				json_t *je = json_loc(&e->loc);
				json_object_set_new(je, "state", json_string(gate_state_name(e->state)));
				json_object_set_new(je, "message", json_text(e->msg));
				if (e->fact_name)
					json_object_set_new(je, "missing_fact", json_text(e->fact_name));
				json_array_append_new(ev, je);
			}
			json_object_set_new(jg, "evidence", ev);
			json_array_append_new(gates, jg);
			if (oi->g.state[g] == GATE_FAIL)
				json_array_append_new(failed, json_string(gate_name(g)));
			else if (oi->g.state[g] == GATE_UNKNOWN)
				json_array_append_new(unknown, json_string(gate_name(g)));
		}
	}
	json_object_set_new(o, "gates", gates);
	json_object_set_new(o, "failed_gates", failed);
	json_object_set_new(o, "cannot_verify_gates", unknown);
	/* cannot verify: the one fact that would decide it (verdict.h) */
	json_t *mf = json_null();
	if (oi && oi->missing.kind != FACT_NONE) {
		mf = oi->missing.ev ? json_loc(&oi->missing.ev->loc) : json_object();
		json_object_set_new(mf, "kind", json_string(fact_kind_name(oi->missing.kind)));
		json_object_set_new(mf, "name", oi->missing.name ? json_text(oi->missing.name) : json_null());
		json_object_set_new(mf, "gate", json_string(gate_name(oi->missing.gate)));
		char *t = missing_fact_text(&oi->missing);
		json_object_set_new(mf, "next_step", json_text(t));
		free(t);
		json_object_set_new(mf, "more", json_integer(oi->missing.others));
	}
	json_object_set_new(o, "missing_fact", mf);
	/* the library model entries that decided gates; user_model: the verdict
	 * rests on at least one entry from a user's model file */
	json_t *models = json_array();
	for (size_t k = 0; oi && k < oi->g.basis.n; k++) {
		const struct gate_basis *b = &oi->g.basis.v[k];
		json_t *jm = json_object();
		json_object_set_new(jm, "gate", json_string(gate_name(b->gate)));
		json_object_set_new(jm, "function", json_text(b->lm->name));
		json_object_set_new(jm, "library", json_text(b->lm->library));
		char *where = xasprintf("%s:%u", b->lm->file, b->lm->line);
		json_object_set_new(jm, "model", json_text(where));
		free(where);
		json_object_set_new(jm, "user", json_boolean(b->lm->user));
		json_array_append_new(models, jm);
	}
	json_object_set_new(o, "models", models);
	json_object_set_new(o, "user_model", json_boolean(oi && gate_user_basis(&oi->g)));
	/* a candidate not offered until another finding on the call is fixed */
	if (oi && oi->withheld_by) {
		json_t *w = json_loc(&oi->withheld_loc);
		json_object_set_new(w, "rule", json_string(oi->withheld_by));
		json_object_set_new(o, "withheld", w);
	}
	return o;
}

static json_t *jsite(const struct model *m, const struct msite *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(s->id));
	json_t *l = json_loc(&s->loc);
	json_object_update(o, l);
	json_decref(l);
	json_object_set_new(o, "function", json_text(m->fns.v[s->fn].f->name));
	json_object_set_new(o, "api", json_text(s->api ? s->api->name : NULL));
	json_object_set_new(o, "called", json_text(s->called));
	json_object_set_new(o, "via_wrapper", json_boolean(s->inner >= 0));
	json_object_set_new(o, "macro", json_text(s->macro));
	json_object_set_new(o, "removed_api", json_boolean(s->removed_api));
	/* in a static function nothing in the gem refers to: not a site to fix */
	json_object_set_new(o, "unreachable", json_boolean(s->unreachable));
	json_object_set_new(o, "callback", jcbres(m, &s->cb));
	json_t *u = jcbres(m, &s->ubf);
	json_object_set_new(u, "kind", json_string(ubf_kind_text(s->ubf_kind)));
	json_object_set_new(o, "ubf", u);
	json_object_set_new(o, "data1", json_text(s->data1 ? s->data1->text : NULL));
	json_object_set_new(o, "data2", json_text(s->data2 ? s->data2->text : NULL));
	json_object_set_new(o, "flags", jflags(s));
	json_object_set_new(o, "offload", joffload(m, s));
	json_object_set_new(o, "buildless", json_boolean(s->tu && s->tu->buildless));
	return o;
}

static json_t *jsuppression(const struct suppression *s)
{
	if (!s)
		return json_null();
	struct loc l = {s->file, s->line, s->col, 0};
	json_t *o = json_loc(&l);
	json_object_set_new(o, "kind", json_string(s->block ? "block" : "line"));
	json_object_set_new(o, "reason", json_text(s->reason));
	return o;
}

static json_t *jbaseline(const struct options *o, const struct run *r)
{
	if (!r->baseline)
		return json_null();
	json_t *b = json_object();
	json_object_set_new(b, "file", json_text(o->baseline));
	json_object_set_new(b, "tool_version", json_text(r->baseline->tool_version));
	json_object_set_new(b, "entries", json_integer((json_int_t)r->baseline->v.n));
	json_object_set_new(b, "hidden", json_integer((json_int_t)r->baseline->hidden));
	json_t *fixed = json_array();
	size_t not_checked = 0;
	for (size_t i = 0; i < r->baseline->v.n; i++) {
		const struct baseline_entry *e = &r->baseline->v.v[i];
		not_checked += e->state == BL_NOT_CHECKED;
		if (e->state != BL_FIXED)
			continue;
		json_t *x = json_object();
		json_object_set_new(x, "fingerprint", json_text(e->fingerprint));
		json_object_set_new(x, "rule", json_text(e->rule));
		json_object_set_new(x, "file", json_text(e->file));
		json_object_set_new(x, "function", json_text(e->function));
		json_object_set_new(x, "code", json_text(e->code));
		json_object_set_new(x, "message", json_text(e->message));
		json_array_append_new(fixed, x);
	}
	json_object_set_new(b, "fixed", fixed);
	json_object_set_new(b, "not_checked", json_integer((json_int_t)not_checked));
	return b;
}

/* "tool": name, version, fingerprint version */
static json_t *jtool(void)
{
	json_t *tool = json_object();
	json_object_set_new(tool, "name", json_string("nogvl-lint"));
	json_object_set_new(tool, "version", json_string(NOGVL_VERSION));
	json_object_set_new(tool, "fingerprint_version", json_integer(1));
	return tool;
}

/* "inputs": the mode, the paths, the Ruby headers, every file */
static json_t *jinputs(const struct options *o, const struct run *r)
{
	bool buildless = r->in.buildless;
	json_t *in = json_object();
	json_object_set_new(in, "mode", json_string(buildless ? "buildless" : "compile-commands"));
	json_object_set_new(in, "compile_commands", json_text(o->compile_commands));
	json_t *paths = json_array();
	for (size_t i = 0; i < o->paths.n; i++)
		json_array_append_new(paths, json_text(o->paths.v[i]));
	json_object_set_new(in, "paths", paths);
	json_t *rh = json_object();
	json_t *dirs = json_array();
	for (size_t i = 0; i < r->in.rh.dirs.n; i++)
		json_array_append_new(dirs, json_text(r->in.rh.dirs.v[i]));
	json_object_set_new(rh, "dirs", dirs);
	json_object_set_new(rh, "found_by", json_text(r->in.rh.source));
	json_object_set_new(rh, "has_offload_flag", json_boolean(r->in.rh.has_offload_flag));
	json_object_set_new(in, "ruby_headers", rh);
	json_object_set_new(in, "ruby34_view", json_boolean(o->ruby34_view));
	json_t *files = json_array();
	for (size_t i = 0; i < r->ntus; i++)
		json_array_append_new(files, jtu(r->tus[i]));
	json_object_set_new(in, "files", files);
	return in;
}

/* "findings" and "suppressed" (baselined findings are in neither), one
 * finding at a time */
static void jfindings(struct json_stream *js, const struct run *r, bool suppressed)
{
	bool buildless = r->in.buildless;
	jstream_array_begin(js, suppressed ? "suppressed" : "findings");
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (f->baselined || !f->suppressed != !suppressed)
			continue;
		json_t *j = jfinding(f, buildless);
		if (f->suppressed)
			json_object_set_new(j, "suppression", jsuppression(f->suppressed_by));
		jstream_array_elem(js, j);
	}
	jstream_array_end(js);
}

/* "parse_failures" */
static void jparse_failures(struct json_stream *js, const struct run *r)
{
	jstream_array_begin(js, "parse_failures");
	for (size_t i = 0; i < r->ntus; i++)
		if (r->tus[i]->status != TU_OK)
			jstream_array_elem(js, jtu(r->tus[i]));
	jstream_array_end(js);
}

/* "sites", one site at a time */
static void jsites(struct json_stream *js, const struct run *r)
{
	jstream_array_begin(js, "sites");
	for (size_t i = 0; r->model && i < r->model->sites.n; i++)
		if (!r->model->sites.v[i].is_template)
			jstream_array_elem(js, jsite(r->model, &r->model->sites.v[i]));
	jstream_array_end(js);
}

/* "wrappers" */
static void jwrappers(struct json_stream *js, const struct run *r)
{
	jstream_array_begin(js, "wrappers");
	for (size_t i = 0; r->model && i < r->model->wrappers.n; i++) {
		const struct wrapper *w = &r->model->wrappers.v[i];
		json_t *x = jfunc_ref(r->model, w->fn);
		const struct msite *in_site = &r->model->sites.v[w->site];
		json_object_set_new(x, "releases_with", json_text(in_site->api ? in_site->api->name : NULL));
		json_object_set_new(x, "callback_param", json_integer(w->cb_param));
		json_object_set_new(x, "ubf_param", json_integer(w->ubf_param));
		json_object_set_new(x, "flags_param", json_integer(w->flags_param));
		jstream_array_elem(js, x);
	}
	jstream_array_end(js);
}

/* "not_analysed": sources of extensions in languages libclang does not read */
static json_t *jnot_analysed(const struct run *r)
{
	json_t *na = json_array();
	for (size_t i = 0; i < r->in.foreign.n; i++) {
		const char *f = r->in.foreign.v[i];
		json_t *x = json_object();
		char *d = display_path(f);
		json_object_set_new(x, "file", json_text(d));
		free(d);
		json_object_set_new(x, "language", json_string(inputs_foreign_language(f)));
		json_t *sp = json_array();
		for (size_t k = 0; k < r->foreign_sp.n; k++) {
			if (strcmp(r->foreign_sp.v[k].file, f) != 0)
				continue;
			json_t *y = json_object();
			json_object_set_new(y, "api", json_string(r->foreign_sp.v[k].api));
			json_object_set_new(y, "line", json_integer(r->foreign_sp.v[k].line));
			json_array_append_new(sp, y);
		}
		json_object_set_new(x, "spellings", sp);
		json_array_append_new(na, x);
	}
	return na;
}

/* "summary": the counts, what could not be read, the timing */
static json_t *jsummary(const struct options *o, const struct run *r)
{
	const struct summary *s = &r->sum;
	json_t *sum = json_object();
	json_object_set_new(sum, "files", json_integer((json_int_t)s->files));
	json_object_set_new(sum, "files_failed", json_integer((json_int_t)s->files_failed));
	json_object_set_new(sum, "files_with_errors", json_integer((json_int_t)s->files_with_errors));
	json_object_set_new(sum, "files_degraded", json_integer((json_int_t)s->files_degraded));
	json_object_set_new(sum, "findings", json_integer((json_int_t)(s->errors + s->warnings + s->notes)));
	json_object_set_new(sum, "errors", json_integer((json_int_t)s->errors));
	json_object_set_new(sum, "warnings", json_integer((json_int_t)s->warnings));
	json_object_set_new(sum, "notes", json_integer((json_int_t)s->notes));
	json_object_set_new(sum, "suppressed", json_integer((json_int_t)s->suppressed));
	json_object_set_new(sum, "baselined", json_integer((json_int_t)s->baselined));
	json_object_set_new(sum, "failing", json_integer((json_int_t)run_failing_count(o, r)));
	json_object_set_new(sum, "sites", json_integer((json_int_t)s->sites));
	json_object_set_new(sum, "sites_unreachable", json_integer((json_int_t)s->sites_unreachable));
	json_object_set_new(sum, "findings_unreachable", json_integer((json_int_t)s->findings_unreachable));
	json_object_set_new(sum, "callbacks_resolved", json_integer((json_int_t)s->callbacks));
	json_object_set_new(sum, "callbacks_unresolved", json_integer((json_int_t)s->unresolved));
	/* what could not be read (issue 14) */
	json_object_set_new(sum, "files_missing_headers", json_integer((json_int_t)s->files_missing_headers));
	json_object_set_new(sum, "files_incomplete", json_integer((json_int_t)s->files_incomplete));
	json_t *mh = json_array();
	for (size_t i = 0; i < s->missing_headers.n; i++)
		json_array_append_new(mh, json_text(s->missing_headers.v[i]));
	json_object_set_new(sum, "missing_headers", mh);
	json_t *gh = json_object();
	for (size_t i = 0; i < s->generated_files.n; i++)
		json_object_set_new(gh, s->generated_files.v[i], json_text(s->generated_from.v[i]));
	json_object_set_new(sum, "generated_files", gh);
	json_object_set_new(sum, "incomplete", json_boolean(s->incomplete));
	json_object_set_new(sum, "incomplete_allowed", json_boolean(s->incomplete_allowed));
	json_object_set_new(sum, "not_analysed_sources", json_integer((json_int_t)s->foreign_files));
	json_object_set_new(sum, "not_analysed_spellings", json_integer((json_int_t)s->foreign_spellings));
	/* wall-clock seconds of each phase (they vary from run to run) */
	json_t *tm = json_object();
	json_object_set_new(tm, "parse_seconds", json_real(r->t_parse));
	json_object_set_new(tm, "link_seconds", json_real(r->t_link));
	json_object_set_new(tm, "rules_seconds", json_real(r->t_rules));
	json_object_set_new(tm, "jobs", json_integer(o->jobs ? (json_int_t)o->jobs : (json_int_t)cpu_count()));
	json_object_set_new(sum, "timing", tm);
	return sum;
}

/* Written section by section, the long arrays element by element: the
 * whole document as one jansson tree was the main process's peak. */
int report_json(FILE *out, const struct options *o, const struct run *r)
{
	struct json_stream js;
	jstream_begin(&js, out);
	jstream_member(&js, "tool", jtool());
	jstream_member(&js, "inputs", jinputs(o, r));
	jfindings(&js, r, false);
	jfindings(&js, r, true);
	jparse_failures(&js, r);
	jstream_member(&js, "not_analysed", jnot_analysed(r));
	jsites(&js, r);
	jwrappers(&js, r);
	jstream_member(&js, "baseline", jbaseline(o, r));
	jstream_member(&js, "summary", jsummary(o, r));
	return jstream_end(&js);
}
