/* corpus_runner: runs nogvl-lint's analysis over annotated corpus cases and
 * requires the findings to equal the expectations exactly.
 *
 *   corpus_runner [--bless] DIR...
 *
 * A case is a source file directly inside a group directory
 * (corpus/<group>/case.c) or a subdirectory holding several files
 * (corpus/<group>/<case>/, analysed as one gem). Expectations are comments on
 * the offending line:
 *
 *     rb_raise(rb_eIOError, "x");   // expect: ruby-api-without-gvl
 *     foo(RSTRING_PTR(s));          /+ expect: a-slug, other-slug +/  (with *)
 *
 * Each slug listed is one finding of that rule on that line (list a slug twice
 * for two). Where the column or the severity matters, a slug may say it:
 *
 *     x = RSTRING_LEN(s);           /+ expect: value-access-without-gvl@9 +/
 *     rb_nogvl(cb, &a, 0, 0, 0);    /+ expect: offload-candidate:note +/
 *     ...                           /+ expect: some-rule@5:warning +/
 *
 * Other expectations on a line:
 *
 *     expect-msg: text    a finding on this line has text in its headline, or in
 *                         a note at the same line (where the why and the fix of
 *                         a long message go)
 *     expect-note: text   a finding (on any line) has a note on this line whose
 *                         message contains text: the call chain, a macro note
 *
 * (both run to the end of their comment). A case may pass options to the
 * analysis with a directive comment:
 *
 *     /+ nogvl-lint-test: --enable debug-release-site +/   (with *)
 *
 * and may be marked known to fail, with the reason (an issue, a limit):
 *
 *     /+ nogvl-lint-test-xfail: the engine does not follow longjmp yet +/
 *
 * A known failure is reported as "xfail" and does not fail the group; the
 * same case passing fails it ("xpass": remove the marker). --bless rewrites
 * the expectation comments of failing cases to what the tool reports (a
 * column or severity written on a slug that still matches is kept), for
 * review with git diff.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "isolate.h"
#include "facts_io.h"
#include "cli.h"
#include "compdb.h"
#include "log.h"
#include "report.h"
#include "rule.h"
#include "run.h"
#include "util.h"

static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		int n = *p < 0x80             ? 0
			: (*p & 0xE0) == 0xC0 ? 1
			: (*p & 0xF0) == 0xE0 ? 2
			: (*p & 0xF8) == 0xF0 ? 3
					      : -1;
		if (n < 0)
			return false;
		p++;
		for (int i = 0; i < n; i++, p++)
			if ((*p & 0xC0) != 0x80)
				return false;
	}
	return true;
}

struct expect {
	char *file; /* absolute */
	uint32_t line;
	char *slug;   /* NULL for a message or note expectation */
	char *token;  /* the slug as written, with @column and :severity */
	uint32_t col; /* 0: any */
	int severity; /* -1: any */
	char *msg;    /* expect-msg: a finding on the line has a message containing this */
	char *note;   /* expect-note: a note on the line has a message containing this */
	bool matched;
};

typedef VEC(struct expect) expect_vec;

static bool is_case_file(const char *name)
{
	const char *e = path_ext(name);
	return strcmp(e, ".c") == 0 || strcmp(e, ".cc") == 0 || strcmp(e, ".cpp") == 0 || strcmp(e, ".h") == 0;
}

static void parse_expectations(const char *file, const char *text, expect_vec *out, strlist *directives, bool *xfail)
{
	uint32_t line = 1;
	const char *p = text;
	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *l = xstrndup(p, len);
		char *d = strstr(l, "nogvl-lint-test:");
		if (d) {
			d += strlen("nogvl-lint-test:");
			char *end = strstr(d, "*/");
			if (end)
				*end = '\0';
			shell_split(d, directives);
		}
		if (strstr(l, "nogvl-lint-test-xfail:"))
			*xfail = true;
		static const char *const texts[] = {"expect-msg:", "expect-note:"};
		for (size_t k = 0; k < ARRAY_SIZE(texts); k++) {
			char *mx;
			while ((mx = strstr(l, texts[k])) != NULL) {
				/* the text runs to the end of its comment; blank it out so an
				 * expect: comment after it on the line is still seen */
				char *start = mx;
				mx += strlen(texts[k]);
				while (*mx == ' ')
					mx++;
				char *end = strstr(mx, "*/");
				size_t n = end ? (size_t)(end - mx) : strlen(mx);
				while (n && (mx[n - 1] == ' ' || mx[n - 1] == '\t'))
					n--;
				struct expect e = {xstrdup(file), line, NULL, NULL, 0, -1, NULL, NULL, false};
				*(k == 0 ? &e.msg : &e.note) = xstrndup(mx, n);
				vec_push(out, e);
				char *stop = end ? end : mx + strlen(mx);
				memset(start, ' ', (size_t)(stop - start));
			}
		}
		char *x = strstr(l, "expect:");
		if (x && (strstr(l, "//") || strstr(l, "/*"))) {
			x += strlen("expect:");
			char *end = strstr(x, "*/");
			if (end)
				*end = '\0';
			char *save = NULL;
			for (char *t = strtok_r(x, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
				struct expect e = {xstrdup(file), line, NULL, xstrdup(t), 0, -1, NULL, NULL, false};
				/* slug[@column][:severity] */
				char *sev = strchr(t, ':');
				if (sev) {
					*sev++ = '\0';
					e.severity = severity_parse(sev);
					if (e.severity < 0)
						e.severity = -2; /* never matches: reported missing */
				}
				char *col = strchr(t, '@');
				if (col) {
					*col++ = '\0';
					e.col = (uint32_t)strtoul(col, NULL, 10);
				}
				e.slug = xstrdup(t);
				vec_push(out, e);
			}
		}
		free(l);
		line++;
		if (!eol)
			break;
		p = eol + 1;
	}
}

static void collect_files(const char *path, strlist *out)
{
	if (!path_is_dir(path)) {
		vec_push(out, path_absolute(path));
		return;
	}
	DIR *d = opendir(path);
	if (!d)
		return;
	strlist names = {0};
	struct dirent *de;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			vec_push(&names, xstrdup(de->d_name));
	closedir(d);
	for (size_t i = 0; i < names.n; i++) {
		char *p = path_join(path, names.v[i]);
		if (path_is_dir(p))
			collect_files(p, out);
		else if (is_case_file(p))
			vec_push(out, path_absolute(p));
		free(p);
	}
	strlist_free(&names);
}

/* Writes line l with its expect: comment replaced by want ("" for none);
 * other comments (expect-msg:, directives) stay. */
static void bless_line(struct strbuf *sb, const char *l, const char *want)
{
	const char *x = strstr(l, "/* expect:");
	const char *after = NULL;
	if (x) {
		const char *e = strstr(x, "*/");
		after = e ? e + 2 : x + strlen(x);
	} else if ((x = strstr(l, "// expect:")) != NULL) {
		after = x + strlen(x);
	}
	if (!x) {
		/* a new expect: comment goes before an expect-msg: comment */
		const char *m = *want ? strstr(l, "/* expect-msg:") : NULL;
		if (m) {
			sb_add(sb, l, (size_t)(m - l));
			sb_puts(sb, want);
			sb_putc(sb, ' ');
			sb_puts(sb, m);
			return;
		}
		sb_puts(sb, l);
		if (*want) {
			sb_putc(sb, ' ');
			sb_puts(sb, want);
		}
		return;
	}
	size_t keep = (size_t)(x - l);
	while (keep && (l[keep - 1] == ' ' || l[keep - 1] == '\t'))
		keep--;
	sb_add(sb, l, keep);
	if (*want) {
		sb_putc(sb, ' ');
		sb_puts(sb, want);
	}
	sb_puts(sb, after); /* keeps its own leading blank */
}

struct got {
	char *file;
	uint32_t line, col;
	int severity;
	const char *slug;
	char *msg;
	const char *token; /* the expectation it matched, as written */
	bool matched;
};

/* A note of a finding: where and what. */
struct got_note {
	char *file;
	uint32_t line;
	char *msg;
};

static int run_case(const char *casepath, bool bless, unsigned *nfail_out)
{
	strlist files = {0};
	collect_files(casepath, &files);
	expect_vec exp = {0};
	strlist directives = {0};
	bool xfail = false;
	for (size_t i = 0; i < files.n; i++) {
		char *text = read_file(files.v[i], NULL, 0);
		if (text) {
			parse_expectations(files.v[i], text, &exp, &directives, &xfail);
			free(text);
		}
	}

	/* options: the case path plus directives */
	VEC(char *) argv = {0};
	vec_push(&argv, "nogvl-lint");
	vec_push(&argv, "--jobs");
	vec_push(&argv, "1");
	for (size_t i = 0; i < directives.n; i++)
		vec_push(&argv, directives.v[i]);
	vec_push(&argv, (char *)casepath);
	struct options o;
	options_init(&o);
	FILE *devnull = fopen("/dev/null", "w");
	int rc = options_parse(&o, (int)argv.n, argv.v, stderr);
	int failed = 0;
	if (rc != 0) {
		printf("FAIL %s: bad directive\n", casepath);
		failed = 1;
	} else {
		log_stream = devnull;
		struct run r;
		rc = run_analysis(&o, &r);
		log_stream = NULL;
		VEC(struct got) got = {0};
		VEC(struct got_note) notes = {0};
		if (rc != 0) {
			printf("FAIL %s: analysis did not run (status %d)\n", casepath, rc);
			failed = 1;
		} else {
			for (size_t i = 0; i < r.findings.v.n; i++) {
				const struct finding *f = r.findings.v.v[i];
				if (f->suppressed)
					continue;
				/* every headline (debug rules keep theirs whole) is short (rule_report: at most 140 bytes plus
				 * " ...") and valid UTF-8, whatever the analysed names */
				if ((strlen(f->msg) > 164 && !(f->rule->flags & RULE_DEBUG)) || !utf8_valid(f->msg)) {
					if (!failed)
						printf("FAIL %s\n", casepath);
					failed = 1;
					printf("  headline too long or not UTF-8 (%zu bytes): %s\n", strlen(f->msg),
					       f->msg);
				}
				/* expect-msg matches the headline or the note at the finding's
				 * own place that carries the rest of a long message */
				char *text = xstrdup(f->msg);
				for (size_t n = 0; n < f->notes.n; n++) {
					const struct note *nt = &f->notes.v[n];
					if (nt->loc.line != f->loc.line || !nt->loc.file || !f->loc.file ||
					    strcmp(nt->loc.file, f->loc.file) != 0)
						continue;
					char *t = xasprintf("%s\n%s", text, nt->msg);
					free(text);
					text = t;
				}
				struct got g = {xstrdup(f->loc.file ? f->loc.file : ""),
						f->loc.line,
						f->loc.col,
						f->severity,
						f->rule->slug,
						text,
						NULL,
						false};
				vec_push(&got, g);
				for (size_t k = 0; k < f->notes.n; k++) {
					const struct note *n = &f->notes.v[k];
					struct got_note gn = {xstrdup(n->loc.file ? n->loc.file : ""), n->loc.line,
							      xstrdup(n->msg)};
					vec_push(&notes, gn);
				}
			}
		}
		run_free(&r);
		if (rc == 0) {
			/* exact expectations (a column, a severity) first, so that a
			 * plain slug on the same line takes what is left */
			for (int pass = 0; pass < 2; pass++)
				for (size_t i = 0; i < exp.n; i++) {
					struct expect *x = &exp.v[i];
					if (x->msg) {
						for (size_t k = 0; k < got.n && !pass; k++)
							if (got.v[k].line == x->line &&
							    strcmp(got.v[k].file, x->file) == 0 &&
							    strstr(got.v[k].msg, x->msg))
								x->matched = true;
						continue;
					}
					if (x->note) {
						for (size_t k = 0; k < notes.n && !pass; k++)
							if (notes.v[k].line == x->line &&
							    strcmp(notes.v[k].file, x->file) == 0 &&
							    strstr(notes.v[k].msg, x->note))
								x->matched = true;
						continue;
					}
					bool exact = x->col || x->severity != -1;
					if (exact != (pass == 0))
						continue;
					for (size_t k = 0; k < got.n; k++) {
						struct got *g = &got.v[k];
						if (g->matched || g->line != x->line || strcmp(g->slug, x->slug) != 0 ||
						    strcmp(g->file, x->file) != 0 || (x->col && g->col != x->col) ||
						    (x->severity != -1 && g->severity != x->severity))
							continue;
						g->matched = x->matched = true;
						if (exact)
							g->token = x->token;
						break;
					}
				}
			for (size_t i = 0; i < exp.n; i++) {
				if (exp.v[i].matched)
					continue;
				if (!failed)
					printf("FAIL %s\n", casepath);
				failed = 1;
				if (exp.v[i].slug)
					printf("  missing: %s:%u: %s\n", path_basename(exp.v[i].file), exp.v[i].line,
					       exp.v[i].token);
				else if (exp.v[i].msg)
					printf("  missing message: %s:%u: ...%s...\n", path_basename(exp.v[i].file),
					       exp.v[i].line, exp.v[i].msg);
				else
					printf("  missing note: %s:%u: ...%s...\n", path_basename(exp.v[i].file),
					       exp.v[i].line, exp.v[i].note);
			}
			for (size_t k = 0; k < got.n; k++) {
				if (got.v[k].matched)
					continue;
				if (!failed)
					printf("FAIL %s\n", casepath);
				failed = 1;
				printf("  unexpected: %s:%u:%u: %s (%s): %s\n", path_basename(got.v[k].file),
				       got.v[k].line, got.v[k].col, got.v[k].slug, severity_name(got.v[k].severity),
				       got.v[k].msg);
			}
			if (failed && bless) {
				/* rewrite expectation comments per file/line */
				for (size_t fi = 0; fi < files.n; fi++) {
					char *text = read_file(files.v[fi], NULL, 0);
					if (!text)
						continue;
					struct strbuf sb = {0};
					uint32_t line = 1;
					const char *p = text;
					while (*p) {
						const char *eol = strchr(p, '\n');
						size_t len = eol ? (size_t)(eol - p) : strlen(p);
						char *l = xstrndup(p, len);
						struct strbuf want = {0};
						for (size_t k = 0; k < got.n; k++) {
							if (got.v[k].line != line ||
							    strcmp(got.v[k].file, files.v[fi]) != 0)
								continue;
							sb_puts(&want, want.len ? ", " : "/* expect: ");
							sb_puts(&want, got.v[k].token ? got.v[k].token : got.v[k].slug);
						}
						if (want.len)
							sb_puts(&want, " */");
						bless_line(&sb, l, sb_str(&want));
						sb_free(&want);
						free(l);
						if (eol)
							sb_putc(&sb, '\n');
						line++;
						if (!eol)
							break;
						p = eol + 1;
					}
					FILE *w = fopen(files.v[fi], "w");
					if (w) {
						fputs(sb_str(&sb), w);
						fclose(w);
					}
					sb_free(&sb);
					free(text);
				}
				printf("  blessed\n");
			}
		}
		for (size_t k = 0; k < got.n; k++) {
			free(got.v[k].file);
			free(got.v[k].msg);
		}
		vec_free(&got);
		for (size_t k = 0; k < notes.n; k++) {
			free(notes.v[k].file);
			free(notes.v[k].msg);
		}
		vec_free(&notes);
	}
	if (xfail) {
		/* a known failure: what fails is printed above, and does not count */
		if (failed) {
			printf("xfail %s (known to fail)\n", casepath);
			failed = 0;
		} else {
			printf("XPASS %s: passes but is marked nogvl-lint-test-xfail: remove the marker\n", casepath);
			failed = 1;
		}
	} else if (!failed) {
		printf("ok   %s (%zu expectation%s)\n", casepath, exp.n, exp.n == 1 ? "" : "s");
	}
	*nfail_out += (unsigned)failed;
	fclose(devnull);
	options_free(&o);
	vec_free(&argv);
	strlist_free(&directives);
	for (size_t i = 0; i < exp.n; i++) {
		free(exp.v[i].file);
		free(exp.v[i].slug);
		free(exp.v[i].token);
		free(exp.v[i].msg);
		free(exp.v[i].note);
	}
	vec_free(&exp);
	strlist_free(&files);
	source_cache_clear();
	return failed;
}

static int str_sort(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Cases of a group directory (or the case itself when given a file or a case dir). */
static void cases_of(const char *dir, strlist *cases)
{
	if (!path_is_dir(dir)) {
		vec_push(cases, xstrdup(dir));
		return;
	}
	char *marker = path_join(dir, "extconf.rb");
	bool is_case_dir = path_is_file(marker);
	free(marker);
	if (is_case_dir) {
		vec_push(cases, xstrdup(dir));
		return;
	}
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	strlist local = {0};
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *p = path_join(dir, de->d_name);
		const char *e = path_ext(p);
		if (path_is_dir(p) || strcmp(e, ".c") == 0 || strcmp(e, ".cc") == 0 || strcmp(e, ".cpp") == 0)
			vec_push(&local, p);
		else
			free(p);
	}
	closedir(d);
	xqsort(local.v, local.n, sizeof(char *), str_sort);
	for (size_t i = 0; i < local.n; i++)
		vec_push(cases, local.v[i]);
	vec_free(&local);
}

int main(int argc, char **argv)
{
	/* files are parsed in worker processes: this program re-executed (isolate.h) */
	if (argc == 2 && strcmp(argv[1], "--internal-parse-worker") == 0)
		return isolate_worker_main();
	isolate_enable();
	facts_io_init();
	bool bless = false;
	strlist cases = {0};
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--bless") == 0)
			bless = true;
		else
			cases_of(argv[i], &cases);
	}
	if (!cases.n) {
		fprintf(stderr, "usage: corpus_runner [--bless] DIR...\n");
		return 2;
	}
	unsigned nfail = 0;
	for (size_t i = 0; i < cases.n; i++)
		run_case(cases.v[i], bless, &nfail);
	printf("%zu passed, %u failed\n", cases.n - nfail, nfail);
	strlist_free(&cases);
	return nfail ? 1 : 0;
}
