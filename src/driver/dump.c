/* dump.c: --dump-commands and --dump-facts (run.h). */
#include "run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_text.h"

/* ---- --dump-commands ---- */

int dump_commands(FILE *out, const struct run *r)
{
	char cwd[4096];
	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	json_t *db = json_array();
	for (size_t i = 0; i < r->in.jobs.n; i++) {
		const struct tu_job *j = &r->in.jobs.v[i];
		json_t *e = json_object();
		json_object_set_new(e, "directory", json_text(j->directory && *j->directory ? j->directory : cwd));
		json_object_set_new(e, "file", json_text(j->file));
		json_t *args = json_array();
		json_array_append_new(args, json_string(j->cxx ? "clang++" : "clang"));
		for (size_t k = 0; k < j->args.n; k++)
			json_array_append_new(args, json_text(j->args.v[k]));
		json_array_append_new(args, json_text(j->file));
		json_object_set_new(e, "arguments", args);
		/* the stand-in extconf.h lives in memory, in this directory */
		json_object_set_new(e, "nogvl_lint_virtual_dir", json_text(r->in.virtual_dir));
		json_array_append_new(db, e);
	}
	int rc = json_dumpf(db, out, JSON_INDENT(2));
	json_decref(db);
	if (rc == 0 && fputc('\n', out) == EOF)
		rc = -1;
	return rc;
}

/* ---- --dump-facts ---- */

static const char *ev_kind_name(int k)
{
	switch (k) {
	case EV_CALL:
		return "call";
	case EV_ASSIGN:
		return "assign";
	case EV_ACCESS:
		return "access";
	case EV_RETURN:
		return "return";
	default:
		return "?";
	}
}

static void dump_ref(FILE *out, const struct tu_facts *tu, const struct ref *r)
{
	const struct var *v = tu_var(tu, r->var);
	fprintf(out, "%s%s%s%s%s%s", r->addr ? "&" : "", v ? v->name : "?", r->path && *r->path ? "." : "",
		r->path ? r->path : "", r->deref ? "(deref)" : "", r->ptr_deref ? "(ptr)" : "");
}

void dump_facts(FILE *out, struct run *r)
{
	for (size_t t = 0; t < r->ntus; t++) {
		const struct tu_facts *tu = r->tus[t];
		fprintf(out, "TU %s status=%d errors=%u degraded=%d stubs=%u\n", tu->display, tu->status, tu->nerrors,
			tu->degraded, tu->nstubs);
		for (size_t i = 0; i < tu->funcs.n; i++) {
			const struct func *f = &tu->funcs.v[i];
			fprintf(out, " fn %s %s:%u\n", f->name, path_basename(f->loc.file ? f->loc.file : "?"),
				f->loc.line);
			for (uint32_t k = 0; k < f->nevents; k++) {
				const struct event *e = &f->events[k];
				fprintf(out, "  [%u] %u:%u %s%s%s%s rg=%d ", k, e->loc.line, e->loc.col,
					ev_kind_name(e->kind), e->macro ? " macro=" : "", e->macro ? e->macro : "",
					e->in_macro_arg ? "(arg)" : "", e->region);
				if (e->gvl_guard)
					fputs("GUARD ", out);
				switch (e->kind) {
				case EV_CALL:
					fprintf(out, "%s%s origin=%d nargs=%u parent=%d",
						e->u.call->indirect ? "*" : "", e->u.call->name, e->u.call->origin,
						e->u.call->nargs, e->u.call->parent);
					if (e->u.call->callee.exact)
						fprintf(out, " spelled=[%u,%u)+%u", e->u.call->callee.begin,
							e->u.call->callee.end, e->u.call->rparen);
					for (uint32_t a = 0; a < e->u.call->nargs; a++)
						fprintf(out, " |%s| k%d%s", e->u.call->args[a].text,
							e->u.call->args[a].kind,
							e->u.call->args[a].has_ival ? "=" : "");
					if (e->u.call->result.var >= 0) {
						fputs(" -> ", out);
						dump_ref(out, tu, &e->u.call->result);
					}
					break;
				case EV_ASSIGN:
					dump_ref(out, tu, &e->u.assign->lhs);
					fprintf(out, " = |%s| k%d%s%s", e->u.assign->rhs.text, e->u.assign->rhs.kind,
						e->u.assign->whole_init ? " whole" : "",
						e->u.assign->is_init ? " init" : "");
					break;
				case EV_ACCESS:
					dump_ref(out, tu, &e->u.access->ref);
					fprintf(out, " mode=%d%s rec=%s", e->u.access->mode,
						e->u.access->atomic_op ? " atomic" : "",
						e->u.access->ref.record ? e->u.access->ref.record : "");
					break;
				case EV_RETURN:
					fprintf(out, "|%s|", e->u.ret->text);
					break;
				}
				fputc('\n', out);
			}
		}
		for (size_t i = 0; i < tu->bindings.n; i++)
			fprintf(out, " binding %s.%s = %s\n", tu->bindings.v[i].record ? tu->bindings.v[i].record : "",
				tu->bindings.v[i].field, tu->bindings.v[i].fn_name);
		for (size_t i = 0; i < tu->token_sites.n; i++)
			fprintf(out, " token %s line %u inactive=%d in_ast=%d cb=%s\n", tu->token_sites.v[i].api,
				tu->token_sites.v[i].loc.line, tu->token_sites.v[i].inactive,
				tu->token_sites.v[i].in_ast,
				tu->token_sites.v[i].callback ? tu->token_sites.v[i].callback : "");
	}
}
