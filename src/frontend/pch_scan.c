/* pch_scan.c: pch_eligible (pch.h), the scan of a file's lines before
 * ruby.h. Moved from pch.c unchanged. */
#include "pch.h"
#include "pch_scan.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- eligibility ---- */

static bool is_ruby_h(const char *name)
{
	return strcmp(name, "ruby.h") == 0 || strcmp(name, "ruby/ruby.h") == 0;
}

/* Resolves a quoted include like the preprocessor: the including file's
 * directory (when dir is given), then -iquote/-I directories. */
static char *resolve_quoted(const char *name, const char *dir, const char *const *args, size_t nargs)
{
	char *p = NULL;
	if (dir) {
		p = path_join(dir, name);
		if (path_is_file(p))
			return p;
		free(p);
	}
	for (size_t i = 0; i < nargs; i++) {
		const char *d = NULL;
		if (str_starts(args[i], "-I") && args[i][2])
			d = args[i] + 2;
		else if (str_starts(args[i], "-iquote") && args[i][7])
			d = args[i] + 7;
		if (!d)
			continue;
		p = path_join(d, name);
		if (path_is_file(p))
			return p;
		free(p);
	}
	return NULL;
}

/* Removes comments, keeping newlines. */
static char *strip_comments(const char *t, size_t n)
{
	char *o = xmalloc(n + 1);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
			i += 2;
			while (i + 1 < n && !(t[i] == '*' && t[i + 1] == '/')) {
				if (t[i] == '\n')
					o[w++] = '\n';
				i++;
			}
			i++;
			o[w++] = ' ';
			continue;
		}
		if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
			while (i < n && t[i] != '\n')
				i++;
			if (i < n)
				o[w++] = '\n';
			continue;
		}
		if (t[i] == '"' || t[i] == '\'') {
			/* a quote before ruby.h means code: stop copying cleanly */
			o[w++] = t[i];
			continue;
		}
		o[w++] = t[i];
	}
	o[w] = '\0';
	return o;
}

/* Adds the identifiers of s (all of them, or only the first) to l. */
static void add_ids(strlist *l, const char *s, bool first_only)
{
	for (const char *p = s; *p;) {
		if (!id_start(*p) || (p > s && id_char(p[-1]))) {
			p++;
			continue;
		}
		const char *e = p;
		while (id_char(*e))
			e++;
		if ((size_t)(e - p) != 7 || strncmp(p, "defined", 7) != 0)
			vec_push(l, xstrndup(p, (size_t)(e - p)));
		if (first_only)
			return;
		p = e;
	}
}

static const char *after_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(line, word, n) != 0 || id_char(line[n]))
		return NULL;
	return line + n;
}

/* The lines right after a project header's #include <ruby.h> that only
 * include system headers (found on no -I directory of the arguments: not the
 * project's) or Ruby's, with balanced conditionals around them; up to the
 * first other line. NULL when there is no system header among them. */
static char *system_block(const char *rest, const char *const *args, size_t nargs)
{
	struct strbuf b = {0};
	size_t good = 0;     /* length of b at the last point outside every conditional */
	bool system = false; /* a system header before good */
	bool pending = false;
	int nest = 0;
	const char *p = rest;
	while (*p) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char *line = xstrndup(p, n);
		p = e ? e + 1 : p + n;
		char *l = line;
		while (*l == ' ' || *l == '\t' || *l == '\r')
			l++;
		size_t ln = strlen(l);
		while (ln && (l[ln - 1] == ' ' || l[ln - 1] == '\t' || l[ln - 1] == '\r'))
			l[--ln] = '\0';
		if (!*l) {
			free(line);
			continue;
		}
		bool keep = false;
		if (*l == '#' && !strchr(l, '\\')) {
			const char *d = l + 1;
			while (*d == ' ' || *d == '\t')
				d++;
			const char *r;
			if ((r = after_word(d, "include")) != NULL) {
				while (*r == ' ' || *r == '\t')
					r++;
				const char *end = *r == '<' ? strchr(r, '>') : NULL;
				if (end && end[1] == '\0') {
					char *name = xstrndup(r + 1, (size_t)(end - r - 1));
					char *hp = str_starts(name, "ruby/") ? NULL
									     : resolve_quoted(name, NULL, args, nargs);
					keep = !hp && *name;
					pending = pending || (keep && !str_starts(name, "ruby/"));
					free(hp);
					free(name);
				}
			} else if (after_word(d, "ifdef") || after_word(d, "ifndef") || after_word(d, "if")) {
				nest++;
				keep = true;
			} else if (after_word(d, "elif") || after_word(d, "else")) {
				keep = nest > 0;
			} else if (after_word(d, "endif")) {
				keep = nest > 0;
				nest -= keep;
			}
		}
		if (keep) {
			sb_printf(&b, "%s\n", l);
			if (nest == 0) {
				good = b.len;
				system = system || pending;
			}
		}
		free(line);
		if (!keep)
			break;
	}
	char *r = NULL;
	if (system && good) {
		b.len = good;
		b.buf[good] = '\0';
		r = xstrdup(b.buf);
	}
	sb_free(&b);
	return r;
}

static int scan(const char *text, size_t len, const char *path, const char *dir, const char *const *args, size_t nargs,
		unsigned depth, struct prefix *pre);

/* scan() of the header at hp (NULL: 0). */
static int scan_header(const char *hp, const char *const *args, size_t nargs, unsigned depth, struct prefix *pre)
{
	if (!hp)
		return 0;
	size_t hl = 0;
	char *ht = read_file(hp, &hl, 4u * 1024 * 1024);
	char *hd = path_dirname(hp);
	int r = ht ? scan(ht, hl, hp, hd, args, nargs, depth + 1, pre) : 0;
	free(ht);
	free(hd);
	return r;
}

/* An include of Ruby's headers (or extconf.h) before ruby.h, for the head
 * (pch_scan.h); one in a conditional cannot go there. */
static void head_add(struct prefix *pre, int nest, const char *line)
{
	if (nest > 0)
		pre->cond_first = true;
	else
		sb_printf(&pre->head_lines, "%s\n", line);
}

/* An #include line before ruby.h (line: after the word) at line lineno of
 * path (NULL: the file itself): true to read on, false to stop with *result
 * (scan's 1 or 0). */
static bool scan_include(char *line, const char *path, unsigned lineno, const char *dir, const char *const *args,
			 size_t nargs, unsigned depth, struct prefix *pre, int nest, int *result)
{
	while (*line == ' ' || *line == '\t')
		line++;
	char open = *line;
	char close = open == '<' ? '>' : open == '"' ? '"' : 0;
	if (!close) {
		/* mkmf's extconf.h, which ruby.h includes first thing too */
		if (!after_word(line, "RUBY_EXTCONF_H"))
			return false; /* #include MACRO */
		head_add(pre, nest, "#include RUBY_EXTCONF_H");
		return true;
	}
	char *end = strchr(line + 1, close);
	if (!end)
		return false;
	*end = '\0';
	const char *name = line + 1;
	if (is_ruby_h(name)) {
		*result = nest == 0; /* not when it might not be included */
		pre->ruby_depth = depth + 1;
		return false;
	}
	if (str_starts(name, "ruby/")) {
		/* a piece of Ruby's headers: guarded, and ruby.h comes below */
		char *l = xasprintf("#include %c%s%c", open, name, close);
		head_add(pre, nest, l);
		free(l);
		return true;
	}
	/* In a conditional (#ifdef _WIN32): the conditional tests no macro of
	 * the preamble (pch.c), so it is skipped with the preamble as without,
	 * and the parse with the preamble is kept only if it skipped this line
	 * (pch_prefix_skipped) */
	if (nest > 0) {
		struct cond_include ci = {path ? xstrdup(path) : NULL, lineno};
		vec_push(&pre->cond_incs, ci);
		return true;
	}
	char *hp = resolve_quoted(name, open == '"' ? dir : NULL, args, nargs);
	if (!hp && open == '<') {
		/* a system header (not on the -I directories) before ruby.h is
		 * read before ruby/config.h's feature macros (_GNU_SOURCE)
		 * without the preamble: glibc's features.h is read once, so a
		 * preamble with ruby.h first would declare other functions
		 * (accept4) and types (connect's __SOCKADDR_ARG). It goes into
		 * the head, with the includes before it, unless one of those is
		 * in a conditional (the order could differ) */
		if (pre->cond_first)
			return false;
		char *l = xasprintf("#include <%s>", name);
		head_add(pre, nest, l);
		free(l);
		pre->head_system = true;
		return true;
	}
	/* the first project header ("ossl.h", or <sqlite3_ruby.h> found
	 * through -I) decides: it must reach ruby.h first */
	*result = scan_header(hp, args, nargs, depth, pre);
	free(hp);
	return false;
}

/* 1: reaches ruby.h first; 0: something else comes first; depth-limited.
 * Conditionals, #define and #undef before ruby.h are allowed; what they name
 * goes to pre, for pch_for to check against the preamble's own macros. */
static int scan(const char *text, size_t len, const char *path, const char *dir, const char *const *args, size_t nargs,
		unsigned depth, struct prefix *pre)
{
	if (depth > 3)
		return 0;
	bool header = path != NULL;
	char *t = strip_comments(text, len);
	char *lines = xstrdup(t); /* t's newlines, before strtok_r cuts it */
	size_t counted = 0;       /* lines counted up to this offset */
	unsigned lineno = 1;
	int result = 0;
	int nest = 0; /* #if nesting, without the include guard */
	char guard[128] = "";
	int directives = 0;
	char *save = NULL;
	for (char *line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		for (size_t off = (size_t)(line - t); counted < off; counted++)
			lineno += lines[counted] == '\n';
		while (*line == ' ' || *line == '\t' || *line == '\r')
			line++;
		if (!*line)
			continue;
		if (*line != '#')
			break; /* code before ruby.h */
		line++;
		while (*line == ' ' || *line == '\t')
			line++;
		if (strchr(line, '\\'))
			break; /* a continued line */
		const char *rest;
		if (header && (rest = after_word(line, "pragma")) != NULL && strstr(rest, "once"))
			continue;
		directives++;
		if ((rest = after_word(line, "ifndef")) || (rest = after_word(line, "ifdef")) ||
		    (rest = after_word(line, "if"))) {
			nest++;
			add_ids(&pre->conds, rest, false);
			/* a header's include guard: #ifndef X or #if !defined(X), then #define X */
			if (header && directives == 1 && pre->conds.n) {
				const char *g = pre->conds.v[pre->conds.n - 1];
				bool neg = after_word(line, "ifndef") ||
					   (after_word(line, "if") && strchr(rest, '!') && strstr(rest, "defined"));
				if (neg && strlen(g) < sizeof(guard))
					strcpy(guard, g);
			}
			continue;
		}
		if ((rest = after_word(line, "elif")) != NULL) {
			add_ids(&pre->conds, rest, false);
			continue;
		}
		if (after_word(line, "else"))
			continue;
		if (after_word(line, "endif")) {
			if (nest > 0)
				nest--;
			continue;
		}
		if ((rest = after_word(line, "define")) || (rest = after_word(line, "undef"))) {
			add_ids(&pre->defs, rest, true);
			if (directives == 2 && *guard && after_word(line, "define") &&
			    strcmp(pre->defs.v[pre->defs.n - 1], guard) == 0)
				nest--; /* the guard is not a condition on what follows */
			continue;
		}
		if (!(rest = after_word(line, "include")))
			break; /* #error, #pragma, #line ... */
		if (!scan_include((char *)rest, path, lineno, dir, args, nargs, depth, pre, nest, &result))
			break;
	}
	if (result == 1 && header && pre->ruby_depth == depth + 1 && !pre->block && save)
		pre->block = system_block(save, args, nargs);
	free(lines);
	free(t);
	return result;
}

static void prefix_clear(struct prefix *x)
{
	strlist_free(&x->conds);
	strlist_free(&x->defs);
	free(x->block);
	free(x->head);
	sb_free(&x->head_lines);
	for (size_t i = 0; i < x->cond_incs.n; i++)
		free(x->cond_incs.v[i].file);
	vec_free(&x->cond_incs);
}

struct pch_prefix *pch_eligible(const char *text, size_t len, const char *dir, const char *const *args, size_t nargs)
{
	struct prefix pre = {0};
	if (scan(text, len, NULL, dir, args, nargs, 0, &pre) != 1) {
		prefix_clear(&pre);
		return NULL;
	}
	if (pre.head_system)
		pre.head = xstrdup(sb_str(&pre.head_lines));
	sb_free(&pre.head_lines);
	struct prefix *r = xmalloc(sizeof(*r));
	*r = pre;
	return (struct pch_prefix *)r;
}

void pch_prefix_free(struct pch_prefix *p)
{
	struct prefix *x = (struct prefix *)p;
	if (!x)
		return;
	prefix_clear(x);
	free(x);
}

/* Whether the preprocessor skipped line of file in tu (inside an inactive
 * branch: between the lines of its #if and its #else/#endif). */
static bool skipped_in(CXTranslationUnit tu, const char *file, unsigned line)
{
	CXFile f = clang_getFile(tu, file);
	CXSourceRangeList *rl = f ? clang_getSkippedRanges(tu, f) : NULL;
	bool skipped = false;
	for (unsigned i = 0; rl && i < rl->count && !skipped; i++) {
		unsigned l1 = 0, l2 = 0;
		clang_getSpellingLocation(clang_getRangeStart(rl->ranges[i]), NULL, &l1, NULL, NULL);
		clang_getSpellingLocation(clang_getRangeEnd(rl->ranges[i]), NULL, &l2, NULL, NULL);
		skipped = l1 < line && line < l2;
	}
	if (rl)
		clang_disposeSourceRangeList(rl);
	return skipped;
}

bool pch_prefix_skipped(const struct pch_prefix *p, CXTranslationUnit tu, const char *main_file)
{
	const struct prefix *x = (const struct prefix *)p;
	for (size_t i = 0; x && i < x->cond_incs.n; i++)
		if (!skipped_in(tu, x->cond_incs.v[i].file ? x->cond_incs.v[i].file : main_file,
				x->cond_incs.v[i].line))
			return false;
	return true;
}
