/* report_github.c: --format github, GitHub Actions workflow commands.
 *
 *   ::error file=ext/x.c,line=12,col=5,title=ruby-api-without-gvl::message%0Anote: ...
 *
 * One line per finding: errors as ::error, warnings as ::warning, notes as
 * ::notice, the call chain as extra lines of the message. Every value is
 * escaped the way the Actions toolkit does (% CR LF in the message, and also
 * : and , in properties), so file names and messages cannot end the command
 * early or start a new one; other control characters (ESC, which the log
 * viewer would render) are shown as ^X.
 */
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "rule.h"

static void put_escaped(FILE *out, const char *s, bool property)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '%':
			fputs("%25", out);
			break;
		case '\r':
			fputs("%0D", out);
			break;
		case '\n':
			fputs("%0A", out);
			break;
		case ':':
			if (property)
				fputs("%3A", out);
			else
				fputc(':', out);
			break;
		case ',':
			if (property)
				fputs("%2C", out);
			else
				fputc(',', out);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				/* other controls (ESC ...) shown, not sent to the log viewer */
				char c[2] = {(char)*p, 0};
				fput_visible(c, out);
			} else {
				fputc(*p, out);
			}
		}
	}
}

int report_github(FILE *out, const struct options *o, const struct run *r)
{
	(void)o;
	for (size_t i = 0; i < r->findings.v.n; i++) {
		const struct finding *f = r->findings.v.v[i];
		if (!finding_reported(f))
			continue;
		const char *cmd = f->severity == SEV_ERROR     ? "error"
				  : f->severity == SEV_WARNING ? "warning"
							       : "notice";
		char *p = display_path(f->loc.file);
		fprintf(out, "::%s file=", cmd);
		put_escaped(out, p, true);
		free(p);
		fprintf(out, ",line=%u,col=%u,title=", f->loc.line, f->loc.col);
		put_escaped(out, f->rule->slug, true);
		fputs("::", out);
		struct strbuf sb = {0};
		sb_puts(&sb, f->msg);
		if (r->in.buildless)
			sb_puts(&sb, " (buildless analysis)");
		for (size_t k = 0; k < f->notes.n; k++) {
			char *np = display_path(f->notes.v[k].loc.file);
			sb_printf(&sb, "\nnote: %s:%u:%u: %s", np, f->notes.v[k].loc.line, f->notes.v[k].loc.col,
				  f->notes.v[k].msg);
			free(np);
		}
		put_escaped(out, sb_str(&sb), false);
		sb_free(&sb);
		fputc('\n', out);
	}
	return ferror(out) ? -1 : 0;
}
