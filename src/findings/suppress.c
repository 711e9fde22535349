/* suppress.c: see suppress.h. */
#include "suppress.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "rule.h"

#define DIRECTIVE_PREFIX "nogvl-lint:"

struct comment {
	uint32_t line, col, end_line;
	uint32_t b, e;    /* content offsets (without the delimiters) */
	bool code_before; /* code on the start line before the comment */
	bool code_after;  /* code on the end line after the comment */
};

typedef VEC(struct comment) comment_vec;
typedef VEC(uint8_t) byte_vec;

static void mark_code(byte_vec *code, uint32_t line)
{
	while (code->n <= line)
		vec_push(code, 0);
	code->v[line] = 1;
}

/* Collects comments and the lines that hold code. A small lexer: strings,
 * character literals, line splices and both comment styles. */
static void lex(const char *t, size_t len, comment_vec *cs, byte_vec *code)
{
	enum {
		CODE,
		LINE_C,
		BLOCK_C,
		STR,
		CHR
	} st = CODE;
	uint32_t line = 1, col = 1;
	size_t pending = 0; /* comments ending on this line whose code_after is open */
	struct comment cur = {0};
	for (size_t i = 0; i < len; i++) {
		char c = t[i], nx = i + 1 < len ? t[i + 1] : '\0';
		switch (st) {
		case CODE:
			if (c == '/' && nx == '/') {
				cur = (struct comment){
					line, col, line, (uint32_t)(i + 2), 0, code->n > line && code->v[line], false};
				st = LINE_C;
				i++, col++;
			} else if (c == '/' && nx == '*') {
				cur = (struct comment){
					line, col, line, (uint32_t)(i + 2), 0, code->n > line && code->v[line], false};
				st = BLOCK_C;
				i++, col++;
			} else if (c == '"' || c == '\'') {
				mark_code(code, line);
				st = c == '"' ? STR : CHR;
			} else if (!isspace((unsigned char)c)) {
				if (c == '\\' && (nx == '\n' || nx == '\r'))
					break; /* a line splice is not code */
				mark_code(code, line);
				for (size_t k = pending; k < cs->n; k++)
					if (cs->v[k].end_line == line)
						cs->v[k].code_after = true;
			}
			break;
		case STR:
		case CHR:
			if (c == '\\' && nx) {
				if (nx == '\n') {
					line++;
					col = 0;
					mark_code(code, line);
				}
				i++, col++;
			} else if ((st == STR && c == '"') || (st == CHR && c == '\'') || c == '\n') {
				st = CODE;
			}
			break;
		case LINE_C:
			if (c == '\\' && nx == '\n') {
				/* the comment continues on the next line */
				i++;
				line++;
				col = 1;
				continue;
			}
			if (c == '\n') {
				cur.e = (uint32_t)i;
				cur.end_line = line;
				vec_push(cs, cur);
				st = CODE;
			}
			break;
		case BLOCK_C:
			if (c == '*' && nx == '/') {
				cur.e = (uint32_t)i;
				cur.end_line = line;
				vec_push(cs, cur);
				st = CODE;
				i++, col++;
			}
			break;
		}
		if (c == '\n') {
			line++;
			col = 1;
			pending = cs->n;
		} else {
			col++;
		}
	}
	if (st == LINE_C || st == BLOCK_C) {
		cur.e = (uint32_t)len;
		cur.end_line = line;
		vec_push(cs, cur);
	}
	mark_code(code, line + 1); /* size the vector; the line past the end is not code */
	code->v[line + 1] = 0;
}

static void warn(struct suppress_file *sf, uint32_t line, uint32_t col, const char *fmt, ...) PRINTF_LIKE(4, 5);
static void warn(struct suppress_file *sf, uint32_t line, uint32_t col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *m = xvasprintf(fmt, ap);
	va_end(ap);
	vec_push(&sf->warnings, xasprintf("%u:%u: %s", line, col, m));
	free(m);
}

static char *trimmed(const char *b, const char *e)
{
	while (b < e && (isspace((unsigned char)*b) || *b == '*'))
		b++;
	while (e > b && (isspace((unsigned char)e[-1]) || e[-1] == '*'))
		e--;
	return xstrndup(b, (size_t)(e - b));
}

struct open_block {
	struct suppression s;
};

/* Parses "[a, b] reason" after the directive word; returns false on a
 * malformed list (warned). */
static bool parse_list(struct suppress_file *sf, const struct comment *cm, const char *p, struct suppression *s,
		       bool required, const char *word)
{
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != '[') {
		if (required) {
			warn(sf, cm->line, cm->col, "'%s' needs a list of rules: %s[rule-slug,...]", word, word);
			return false;
		}
		s->reason = xstrdup(p);
		return true;
	}
	const char *close = strchr(p, ']');
	if (!close) {
		warn(sf, cm->line, cm->col, "'%s[' without a closing ']'", word);
		return false;
	}
	char *list = xstrndup(p + 1, (size_t)(close - p - 1));
	char *save = NULL;
	for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *slug = trimmed(tok, tok + strlen(tok));
		const struct rule_desc *rd = *slug ? rule_find(slug) : NULL;
		const char *hint = rd || !*slug ? NULL : rule_suggest(slug);
		if (!rd && hint && strcmp(hint, "all") != 0)
			warn(sf, cm->line, cm->col, "unknown rule '%s' in a suppression; did you mean '%s'?", slug,
			     hint);
		else if (!rd)
			warn(sf, cm->line, cm->col, "unknown rule '%s' in a suppression (see nogvl-lint --list-rules)",
			     slug);
		else if (s->nslugs < SUPPRESS_MAX_SLUGS)
			s->slugs[s->nslugs++] = rd->slug;
		free(slug);
	}
	free(list);
	if (required && !s->nslugs) {
		if (close == p + 1)
			warn(sf, cm->line, cm->col, "'%s[]' names no rule", word);
		return false;
	}
	s->reason = xstrdup(close + 1);
	return true;
}

static bool same_slugs(const struct suppression *a, const struct suppression *b)
{
	if (a->nslugs != b->nslugs)
		return false;
	for (unsigned i = 0; i < a->nslugs; i++) {
		bool found = false;
		for (unsigned k = 0; k < b->nslugs; k++)
			found = found || a->slugs[i] == b->slugs[k];
		if (!found)
			return false;
	}
	return true;
}

void suppress_scan(const char *path, const char *text, size_t len, struct suppress_file *sf)
{
	comment_vec cs = {0};
	byte_vec code = {0};
	lex(text, len, &cs, &code);
	VEC(struct suppression) open = {0};
	for (size_t i = 0; i < cs.n; i++) {
		const struct comment *cm = &cs.v[i];
		char *body = trimmed(text + cm->b, text + cm->e);
		char *p = body;
		while (*p == '/' || *p == '!' || *p == '<')
			p++; /* ///, //!, //< doc comments */
		while (isspace((unsigned char)*p))
			p++;
		if (strncmp(p, DIRECTIVE_PREFIX, strlen(DIRECTIVE_PREFIX)) != 0) {
			free(body);
			continue;
		}
		p += strlen(DIRECTIVE_PREFIX);
		while (*p == ' ' || *p == '\t')
			p++;
		const char *w = p;
		while (*p && (isalnum((unsigned char)*p) || *p == '-' || *p == '_'))
			p++;
		char *word = xstrndup(w, (size_t)(p - w));
		struct suppression s = {0};
		s.file = path;
		s.line = cm->line;
		s.col = cm->col;
		if (strcmp(word, "ignore") == 0) {
			if (parse_list(sf, cm, p, &s, true, word)) {
				if (cm->code_before || cm->code_after) {
					s.first = cm->line;
					s.last = cm->end_line;
				} else {
					uint32_t l = cm->end_line + 1;
					while (l < code.n && !code.v[l])
						l++;
					if (l >= code.n) {
						warn(sf, cm->line, cm->col,
						     "suppression at the end of the file covers no line");
						l = cm->end_line;
					}
					s.first = s.last = l;
				}
				vec_push(&sf->v, s);
			} else {
				free(s.reason);
			}
		} else if (strcmp(word, "ignore-begin") == 0) {
			if (parse_list(sf, cm, p, &s, true, word)) {
				s.block = 1;
				s.first = cm->line;
				vec_push(&open, s);
			} else {
				free(s.reason);
			}
		} else if (strcmp(word, "ignore-end") == 0) {
			if (parse_list(sf, cm, p, &s, false, word)) {
				size_t k = open.n;
				if (s.nslugs) {
					while (k > 0 && !same_slugs(&open.v[k - 1], &s))
						k--;
				}
				if (k == 0) {
					warn(sf, cm->line, cm->col, "ignore-end without a matching ignore-begin");
				} else {
					struct suppression b = open.v[k - 1];
					memmove(&open.v[k - 1], &open.v[k], (open.n - k) * sizeof(open.v[0]));
					open.n--;
					b.last = cm->end_line;
					vec_push(&sf->v, b);
				}
			}
			free(s.reason);
		} else {
			warn(sf, cm->line, cm->col,
			     "unknown nogvl-lint directive '%s' (ignore, ignore-begin, ignore-end)", word);
		}
		free(word);
		free(body);
	}
	for (size_t k = 0; k < open.n; k++) {
		struct suppression b = open.v[k];
		warn(sf, b.line, b.col, "ignore-begin without ignore-end: it covers the rest of the file");
		b.last = UINT32_MAX;
		vec_push(&sf->v, b);
	}
	vec_free(&open);
	vec_free(&cs);
	vec_free(&code);
}

void suppress_file_free(struct suppress_file *sf)
{
	for (size_t i = 0; i < sf->v.n; i++)
		free(sf->v.v[i].reason);
	vec_free(&sf->v);
	strlist_free(&sf->warnings);
	free(sf->continued);
	free(sf->path);
}

/* Which lines end with a backslash (sf->continued). */
static void mark_continued(struct suppress_file *sf, const char *text, size_t len)
{
	struct line_index li;
	line_index_build(&li, text, len);
	sf->nlines = li.n;
	sf->continued = xcalloc(li.n / 8 + 1, 1);
	for (uint32_t line = 1; line < li.n; line++) {
		uint32_t b = li.start[line - 1], e = li.start[line];
		while (e > b && (text[e - 1] == '\n' || text[e - 1] == '\r'))
			e--;
		if (e > b && text[e - 1] == '\\')
			sf->continued[line / 8] |= (uint8_t)(1u << (line % 8));
	}
	line_index_free(&li);
}

void suppress_file_load(struct suppress_file *sf, const char *text, size_t len)
{
	sf->readable = true;
	mark_continued(sf, text, len);
	suppress_scan(sf->path, text, len, sf);
}

struct suppress_file *suppress_get(struct suppress_set *ss, const char *abs_path)
{
	if (!abs_path)
		return NULL;
	struct suppress_file *sf = hmap_get(&ss->files, abs_path);
	if (sf)
		return sf;
	sf = xcalloc(1, sizeof(*sf));
	sf->path = xstrdup(abs_path);
	size_t len = 0;
	char *text = read_file(abs_path, &len, 256u * 1024 * 1024);
	if (text) {
		suppress_file_load(sf, text, len);
		free(text);
		char *dp = display_path(abs_path);
		for (size_t i = 0; i < sf->warnings.n; i++)
			log_warning("%s:%s", dp, sf->warnings.v[i]);
		free(dp);
	}
	hmap_put(&ss->files, sf->path, sf);
	return sf;
}

void suppress_set_free(struct suppress_set *ss)
{
	hmap_foreach(&ss->files, e)
	{
		suppress_file_free(e->val);
		free(e->val);
	}
	hmap_free(&ss->files);
}

static struct suppression *covering(struct suppress_file *sf, const char *slug, uint32_t line, unsigned *which)
{
	if (!sf)
		return NULL;
	for (size_t i = 0; i < sf->v.n; i++) {
		struct suppression *s = &sf->v.v[i];
		if (line < s->first || line > s->last)
			continue;
		for (unsigned k = 0; k < s->nslugs; k++)
			if (strcmp(s->slugs[k], slug) == 0) {
				*which = k;
				return s;
			}
	}
	return NULL;
}

/* The #define of macro `name` in the project, with its last line (after
 * backslash continuations). */
static const struct macro_def *find_macro_def(const struct model *m, const char *name)
{
	if (!m || !name)
		return NULL;
	for (size_t t = 0; t < m->ntus; t++) {
		const struct tu_facts *tu = m->tus[t];
		for (size_t i = 0; i < tu->macro_defs.n; i++)
			if (strcmp(tu->macro_defs.v[i].name, name) == 0 && tu->macro_defs.v[i].loc.file)
				return &tu->macro_defs.v[i];
	}
	return NULL;
}

static uint32_t def_last_line(const struct suppress_file *sf, uint32_t line)
{
	if (!sf->readable)
		return line;
	while (line >= 1 && line < sf->nlines && (sf->continued[line / 8] & (1u << (line % 8))))
		line++;
	return line;
}

void suppress_apply(struct suppress_set *ss, struct findings *fs, const struct model *m)
{
	for (size_t i = 0; i < fs->v.n; i++) {
		struct finding *f = fs->v.v[i];
		if (f->suppressed)
			continue;
		unsigned which = 0;
		struct suppression *s = covering(suppress_get(ss, f->loc.file), f->rule->slug, f->loc.line, &which);
		if (!s && f->macro) {
			const struct macro_def *d = find_macro_def(m, f->macro);
			struct suppress_file *df = d ? suppress_get(ss, d->loc.file) : NULL;
			if (df) {
				uint32_t last = def_last_line(df, d->loc.line);
				for (uint32_t l = d->loc.line; l <= last && !s; l++)
					s = covering(df, f->rule->slug, l, &which);
			}
		}
		if (s) {
			s->used[which]++;
			f->suppressed = 1;
			f->suppressed_by = s;
		}
	}
}

void suppress_report_unused(struct suppress_set *ss, struct findings *fs, const struct rule_desc *unused_rule,
			    int severity, bool (*evaluated)(const char *slug, const char *file, void *ctx), void *ctx)
{
	hmap_foreach(&ss->files, e)
	{
		struct suppress_file *sf = e->val;
		for (size_t i = 0; i < sf->v.n; i++) {
			const struct suppression *s = &sf->v.v[i];
			for (unsigned k = 0; k < s->nslugs; k++) {
				if (s->used[k] || (evaluated && !evaluated(s->slugs[k], s->file, ctx)))
					continue;
				struct loc l = {s->file, s->line, s->col, 0};
				char *msg;
				if (s->block && s->last == UINT32_MAX)
					msg = xasprintf("unused suppression: no '%s' finding from line %u to the end "
							"of the file; "
							"remove '%s' from it",
							s->slugs[k], s->first, s->slugs[k]);
				else if (s->block)
					msg = xasprintf(
						"unused suppression: no '%s' finding in lines %u-%u of this block; "
						"remove '%s' from it",
						s->slugs[k], s->first, s->last, s->slugs[k]);
				else
					msg = xasprintf(
						"unused suppression: no '%s' finding on line %u; remove '%s' from the "
						"comment",
						s->slugs[k], s->first, s->slugs[k]);
				finding_add(fs, unused_rule, severity, &l, NULL, msg);
				free(msg);
			}
		}
	}
}
