/* c_scan.c: see c_scan.h. */
#include "c_scan.h"

#include <string.h>

static bool ident_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Past the comment at text + i ("/" "*" or "//"): the offset after it. */
static size_t skip_comment(const char *text, size_t len, size_t i, unsigned *line)
{
	if (text[i + 1] == '/') {
		while (i < len && text[i] != '\n')
			i++;
		return i;
	}
	i += 2;
	while (i + 1 < len && !(text[i] == '*' && text[i + 1] == '/')) {
		if (text[i] == '\n')
			(*line)++;
		i++;
	}
	return i + 2;
}

/* Past the literal opened by the quote at text + i: after its closing quote,
 * or (a C literal left open) at the end of its line. */
static size_t skip_literal(const char *text, size_t len, size_t i, bool multiline, unsigned *line)
{
	char q = text[i++];
	while (i < len && text[i] != q) {
		if (text[i] == '\\' && i + 1 < len) {
			if (text[i + 1] == '\n')
				(*line)++;
			i += 2;
			continue;
		}
		if (text[i] == '\n') {
			if (!multiline)
				return i;
			(*line)++;
		}
		i++;
	}
	return i + 1;
}

void c_scan_idents(const char *text, size_t len, unsigned flags, void (*fn)(const struct c_ident *id, void *arg),
		   void *arg)
{
	bool rust = flags & C_SCAN_RUST;
	struct c_ident id = {0};
	id.line = 1;
	bool line_start = true;
	size_t i = 0;
	while (i < len) {
		char c = text[i];
		if (c == '\n') {
			/* a directive goes on after a backslash-newline */
			if (!(i > 0 && text[i - 1] == '\\'))
				id.in_directive = id.in_define = false;
			id.line++;
			line_start = true;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		/* a comment is a space: it leaves a directive's '#' first on its line */
		if (c == '/' && i + 1 < len && (text[i + 1] == '*' || text[i + 1] == '/')) {
			i = skip_comment(text, len, i, &id.line);
			continue;
		}
		if (!rust && line_start && c == '#') {
			size_t k = i + 1;
			while (k < len && (text[k] == ' ' || text[k] == '\t'))
				k++;
			id.in_directive = true;
			id.in_define = len - k >= 6 && strncmp(text + k, "define", 6) == 0;
		}
		line_start = false;
		if (c == '"' || (!rust && c == '\'')) {
			i = skip_literal(text, len, i, rust && c == '"', &id.line);
		} else if (!id.in_directive && (c == '{' || c == '}')) {
			if (c == '{')
				id.depth++;
			else if (id.depth > 0)
				id.depth--;
			i++;
		} else if (c >= '0' && c <= '9') {
			while (i < len && ident_char(text[i]))
				i++;
		} else if (ident_char(c)) {
			size_t b = i;
			while (i < len && ident_char(text[i]))
				i++;
			id.s = text + b;
			id.n = i - b;
			id.end = i;
			fn(&id, arg);
		} else {
			i++;
		}
	}
}
