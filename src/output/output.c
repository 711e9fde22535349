/* output.c: see output.h. */
#include "output.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "rule.h"

json_t *json_loc(const struct loc *l)
{
	char *p = display_path(l->file);
	json_t *o = json_object();
	json_object_set_new(o, "file", json_text(p));
	json_object_set_new(o, "line", json_integer(l->line));
	json_object_set_new(o, "column", json_integer(l->col));
	free(p);
	return o;
}

char *uri_encode_path(const char *path)
{
	struct strbuf sb = {0};
	sb_puts(&sb, "");
	if (path[0] == '/')
		sb_puts(&sb, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		/* RFC 3986 unreserved characters and the path separator stay */
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
		    *p == '.' || *p == '_' || *p == '~' || *p == '/')
			sb_putc(&sb, (char)*p);
		else
			sb_printf(&sb, "%%%02X", *p);
	}
	return sb_detach(&sb);
}

int output_write_all(const struct options *o, struct run *r)
{
	struct output_spec deflt = {FMT_TEXT, NULL};
	const struct output_spec *outs = o->outputs.n ? o->outputs.v : &deflt;
	size_t nouts = o->outputs.n ? o->outputs.n : 1;
	int rc = 0;
	for (size_t i = 0; i < nouts; i++) {
		const struct output_spec *sp = &outs[i];
		FILE *out = stdout;
		char *tmp = NULL;
		if (sp->file) {
			/* a temporary file renamed over the name: a symlink committed
			 * at the name is replaced, its target never written */
			out = file_replace_open(sp->file, &tmp);
			if (!out) {
				log_error("cannot write %s: %s", sp->file, strerror(errno));
				rc = -1;
				continue;
			}
		}
		int w = 0;
		switch (sp->format) {
		case FMT_JSON:
			w = report_json(out, o, r);
			break;
		case FMT_SARIF:
			w = report_sarif(out, o, r);
			break;
		case FMT_GITHUB:
			w = report_github(out, o, r);
			break;
		case FMT_HTML:
			w = report_html(out, o, r);
			break;
		default: {
			if (o->dump_facts)
				dump_facts(out, r);
			bool color = o->color_mode == 1 ||
				     (o->color_mode < 0 && !sp->file && isatty(1) && getenv("NO_COLOR") == NULL);
			struct findings shown = {0};
			for (size_t k = 0; k < r->findings.v.n; k++)
				if (finding_reported(r->findings.v.v[k]))
					vec_push(&shown.v, r->findings.v.v[k]);
			report_text(out, &shown, color);
			vec_free(&shown.v);
			break;
		}
		}
		if (fflush(out) != 0 || ferror(out))
			w = -1;
		if (sp->file && file_replace_commit(out, tmp, sp->file, w == 0) != 0)
			w = -1;
		if (w != 0) {
			log_error("cannot write %s", sp->file ? sp->file : "to stdout");
			rc = -1;
		}
	}
	return rc;
}
