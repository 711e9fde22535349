/* extract_scan.c: the text and token scans of a TU that do not need the AST:
 * GVL-release API names in the token stream, preprocessor conditionals and
 * #define lines (extract.h). */
#include "extract_walk.h"

#include <stdlib.h>
#include <string.h>

#include "gvlapi.h"

/* ---- token-level scan ---- */

struct rawtok {
	uint32_t off, line;
	uint8_t kind;
	const char *sp; /* interned */
};

/* End offset of the logical line starting at off (backslash continuations joined). */
static size_t logical_line_end(const char *text, size_t size, size_t off)
{
	size_t i = off;
	for (;;) {
		while (i < size && text[i] != '\n')
			i++;
		size_t j = i;
		while (j > off && (text[j - 1] == '\r' || text[j - 1] == ' ' || text[j - 1] == '\t'))
			j--;
		if (i < size && j > off && text[j - 1] == '\\') {
			i++;
			continue;
		}
		return i;
	}
}

void extract_token_sites(CXTranslationUnit ctu, struct tu_facts *tu)
{
	CXFile f = clang_getFile(ctu, tu->path);
	if (!f)
		return;
	size_t size = 0;
	const char *contents = clang_getFileContents(ctu, f, &size);
	if (!contents)
		return;
	CXSourceRangeList *skipped = clang_getSkippedRanges(ctu, f);
	CXToken *toks = NULL;
	unsigned n = 0;
	clang_tokenize(ctu, whole_file(ctu, f, size), &toks, &n);
	VEC(struct rawtok) rt = {0};
	for (unsigned i = 0; i < n; i++) {
		CXTokenKind k = clang_getTokenKind(toks[i]);
		if (k == CXToken_Comment)
			continue;
		struct rawtok t = {0};
		clang_getFileLocation(clang_getTokenLocation(ctu, toks[i]), NULL, &t.line, NULL, &t.off);
		t.kind = (uint8_t)k;
		CXString s = clang_getTokenSpelling(ctu, toks[i]);
		t.sp = intern(&tu->pool, clang_getCString(s) ? clang_getCString(s) : "");
		clang_disposeString(s);
		vec_push(&rt, t);
	}
	if (toks)
		clang_disposeTokens(ctu, toks, n);

	const char *fn = NULL;              /* function whose body we are in */
	const char *last_call_ident = NULL; /* file scope: identifier followed by '(' */
	int depth = 0;
	uint32_t prev_line = 0;
	for (size_t i = 0; i < rt.n; i++) {
		const struct rawtok *t = &rt.v[i];
		bool first_on_line = t->line != prev_line;
		prev_line = t->line;
		if (first_on_line && t->kind == CXToken_Punctuation && strcmp(t->sp, "#") == 0) {
			/* a preprocessor directive: #define bodies are counted where they expand */
			size_t end = logical_line_end(contents, size, t->off);
			while (i + 1 < rt.n && rt.v[i + 1].off < end)
				i++;
			prev_line = rt.v[i].line;
			continue;
		}
		if (t->kind == CXToken_Punctuation) {
			if (strcmp(t->sp, "{") == 0) {
				if (depth == 0)
					fn = last_call_ident;
				depth++;
			} else if (strcmp(t->sp, "}") == 0 && depth > 0) {
				depth--;
			}
			continue;
		}
		if (t->kind != CXToken_Identifier)
			continue;
		bool next_paren = i + 1 < rt.n && strcmp(rt.v[i + 1].sp, "(") == 0;
		if (depth == 0 && next_paren)
			last_call_ident = t->sp;
		bool needs_call = true;
		if (depth == 0 || !gvl_watch_name(t->sp, &needs_call) || (needs_call && !next_paren))
			continue;
		struct token_site ts = {0};
		ts.api = t->sp;
		ts.function = fn;
		ts.loc.file = intern(&tu->pool, tu->path);
		ts.loc.line = t->line;
		ts.loc.off = t->off;
		ts.loc.col = 1;
		for (uint32_t o = t->off; o > 0 && contents[o - 1] != '\n'; o--)
			ts.loc.col++;
		if (i + 3 < rt.n && rt.v[i + 2].kind == CXToken_Identifier &&
		    (strcmp(rt.v[i + 3].sp, ",") == 0 || strcmp(rt.v[i + 3].sp, ")") == 0))
			ts.callback = rt.v[i + 2].sp;
		for (unsigned r = 0; skipped && r < skipped->count; r++) {
			unsigned o1, o2;
			clang_getFileLocation(clang_getRangeStart(skipped->ranges[r]), NULL, NULL, NULL, &o1);
			clang_getFileLocation(clang_getRangeEnd(skipped->ranges[r]), NULL, NULL, NULL, &o2);
			if (t->off >= o1 && t->off <= o2) {
				ts.inactive = 1;
				break;
			}
		}
		vec_push(&tu->token_sites, ts);
	}
	vec_free(&rt);
	if (skipped)
		clang_disposeSourceRangeList(skipped);
}

/* ---- preprocessor conditional scan (text) ---- */

void scan_pp_conds(struct tu_facts *tu, const char *text, size_t len)
{
	VEC(int32_t) stack = {0};
	uint32_t line = 1;
	size_t i = 0;
	while (i < len) {
		size_t ls = i;
		while (i < len && text[i] != '\n')
			i++;
		size_t le = i;
		/* join continuation lines for the condition text */
		size_t j = ls;
		while (j < le && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j < le && text[j] == '#') {
			j++;
			while (j < le && (text[j] == ' ' || text[j] == '\t'))
				j++;
			size_t ws = j;
			while (j < le && ((text[j] >= 'a' && text[j] <= 'z')))
				j++;
			size_t wl = j - ws;
			const char *d = text + ws;
			while (j < le && (text[j] == ' ' || text[j] == '\t'))
				j++;
			size_t ce = le;
			while (ce > j && (text[ce - 1] == ' ' || text[ce - 1] == '\t' || text[ce - 1] == '\r' ||
					  text[ce - 1] == '\\'))
				ce--;
			const char *cond = intern_n(&tu->pool, text + j, ce - j);
			if (wl == 6 && memcmp(d, "define", 6) == 0) {
				size_t ne = j;
				while (ne < le &&
				       (text[ne] == '_' || (text[ne] >= 'a' && text[ne] <= 'z') ||
					(text[ne] >= 'A' && text[ne] <= 'Z') || (text[ne] >= '0' && text[ne] <= '9')))
					ne++;
				if (ne > j) {
					struct pp_define pd = {intern_n(&tu->pool, text + j, ne - j), tu->path, line,
							       stack.n ? stack.v[stack.n - 1] : -1};
					vec_push(&tu->pp_defines, pd);
				}
			}
			bool opens = (wl == 2 && memcmp(d, "if", 2) == 0) || (wl == 5 && memcmp(d, "ifdef", 5) == 0) ||
				     (wl == 6 && memcmp(d, "ifndef", 6) == 0);
			bool mid = (wl == 4 && memcmp(d, "elif", 4) == 0) || (wl == 4 && memcmp(d, "else", 4) == 0);
			bool closes = wl == 5 && memcmp(d, "endif", 5) == 0;
			if ((mid || closes) && stack.n) {
				int32_t top = stack.v[stack.n - 1];
				tu->pp_conds.v[top].line_end = line - 1;
				tu->pp_conds.v[top].close_off = (uint32_t)le;
				tu->pp_conds.v[top].closed_by_endif = closes;
				stack.n--;
			}
			if (opens || mid) {
				struct pp_cond pc = {0};
				pc.directive = intern_n(&tu->pool, d, wl);
				pc.cond = mid && wl == 4 && memcmp(d, "else", 4) == 0 ? "" : cond;
				pc.line_begin = line + 1;
				pc.line_end = UINT32_MAX;
				pc.parent = stack.n ? stack.v[stack.n - 1] : -1;
				if (mid && tu->pp_conds.n) {
					/* siblings share the parent of the branch they follow */
				}
				vec_push(&tu->pp_conds, pc);
				vec_push(&stack, (int32_t)tu->pp_conds.n - 1);
			}
		}
		/* count the line; continuation lines are counted as they come */
		line++;
		i++;
	}
	vec_free(&stack);
}

void scan_pp_defines(struct tu_facts *tu, const char *file, const char *text, size_t len)
{
	uint32_t line = 1;
	size_t i = 0;
	while (i < len) {
		size_t ls = i;
		while (i < len && text[i] != '\n')
			i++;
		size_t j = ls;
		while (j < i && (text[j] == ' ' || text[j] == '\t'))
			j++;
		if (j < i && text[j] == '#') {
			j++;
			while (j < i && (text[j] == ' ' || text[j] == '\t'))
				j++;
			if (i - j > 7 && memcmp(text + j, "define", 6) == 0 &&
			    (text[j + 6] == ' ' || text[j + 6] == '\t')) {
				j += 7;
				while (j < i && (text[j] == ' ' || text[j] == '\t'))
					j++;
				size_t ne = j;
				while (ne < i &&
				       (text[ne] == '_' || (text[ne] >= 'a' && text[ne] <= 'z') ||
					(text[ne] >= 'A' && text[ne] <= 'Z') || (text[ne] >= '0' && text[ne] <= '9')))
					ne++;
				if (ne > j) {
					struct pp_define pd = {intern_n(&tu->pool, text + j, ne - j), file, line, -1};
					vec_push(&tu->pp_defines, pd);
				}
			}
		}
		line++;
		i++;
	}
}
