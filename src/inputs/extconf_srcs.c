/* extconf_srcs.c: the sources extconf.rb names: those built only under a
 * have_func condition, $srcs/$objs lists and what they leave out
 * (extconf_read.h). */
#include "extconf_read.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- sources built only under a have_func condition ---- */

/* Does t start with the Ruby keyword kw (followed by a non-identifier)? */
bool kw_at(const char *t, const char *kw)
{
	size_t n = strlen(kw);
	return strncmp(t, kw, n) == 0 &&
	       !(isalnum((unsigned char)t[n]) || t[n] == '_' || t[n] == '?' || t[n] == '!' || t[n] == ':');
}

/* Does the (trimmed) line end with the keyword `end` (a one-line block)? */
static bool ends_with_end(const char *t)
{
	size_t n = strlen(t);
	while (n && isspace((unsigned char)t[n - 1]))
		n--;
	return n >= 4 && strncmp(t + n - 3, "end", 3) == 0 && !(isalnum((unsigned char)t[n - 4]) || t[n - 4] == '_');
}

/* The function a condition requires: `have_func("f")`, possibly and-ed with
 * other tests; NULL for anything negated or or-ed, where the source may be
 * built without it. */
static char *probe_of_condition(const char *cond)
{
	if (!only_conjunctions(cond))
		return NULL;
	const char *a = find_call(cond, "have_func");
	if (!a)
		return NULL;
	strlist args = {0};
	literal_args(a, &args);
	char *r = NULL;
	if (args.n && *args.v[0]) {
		char *paren = strchr(args.v[0], '(');
		if (paren)
			*paren = '\0';
		r = xstrdup(args.v[0][0] == '&' ? args.v[0] + 1 : args.v[0]);
	}
	strlist_free(&args);
	return r;
}

/* Opens or closes a Ruby block on this (comment-stripped) line (at: the
 * line in r->text): blocks[] holds, per open block, the function its
 * condition requires or NULL, and whether its current branch is taken here. */
/* else, elsif, when, rescue, ensure: another branch of the innermost block,
 * whose condition no longer holds. */
static void next_branch(const struct reader *r, const char *t, block_vec *blocks)
{
	if (!blocks->n)
		return;
	struct rblock *b = &blocks->v[blocks->n - 1];
	free(b->probe);
	b->probe = NULL;
	if (kw_at(t, "when") && b->bare) {
		/* `case` / `when COND`: the first condition that holds */
		int v = b->taken ? 0 : cond_value(r, t + 4);
		b->fails = v == 0;
		b->taken = b->taken || v == 1;
	} else if (kw_at(t, "when") && (b->plat || b->subject != V_UNKNOWN)) {
		int v = b->taken ? 0 : when_matches(b, t + 4);
		b->fails = v == 0;
		b->taken = b->taken || v == 1;
	} else if (kw_at(t, "rescue") || kw_at(t, "ensure") || kw_at(t, "when")) {
		b->fails = false;
	} else if (b->taken) {
		b->fails = true; /* an earlier branch is taken here */
	} else if (kw_at(t, "elsif")) {
		int v = cond_value(r, t + 5);
		b->fails = v == 0;
		b->taken = v == 1;
	} else {
		b->fails = false;
	}
}

/* `... do`, `... do |x|`, `... {`, `... { |x|` at the end of the line. */
static bool opens_ruby_block(const char *t)
{
	size_t n = strlen(t);
	while (n && isspace((unsigned char)t[n - 1]))
		n--;
	if (n && t[n - 1] == '|') {
		const char *bar = NULL;
		for (size_t k = n - 1; k > 0; k--)
			if (t[k - 1] == '|') {
				bar = t + k - 1;
				break;
			}
		if (bar) {
			n = (size_t)(bar - t);
			while (n && isspace((unsigned char)t[n - 1]))
				n--;
		}
	}
	return (n >= 3 && strncmp(t + n - 2, "do", 2) == 0 && (isspace((unsigned char)t[n - 3]) || t[n - 3] == ')')) ||
	       (n >= 1 && t[n - 1] == '{');
}

bool track_blocks(const struct reader *r, const char *line, const char *at, block_vec *blocks)
{
	const char *t = line;
	while (*t == ' ' || *t == '\t')
		t++;
	if (kw_at(t, "end") || *t == '}') {
		if (blocks->n) {
			free(blocks->v[blocks->n - 1].probe);
			blocks->n--;
		}
		return false;
	}
	if (kw_at(t, "else") || kw_at(t, "elsif") || kw_at(t, "when") || kw_at(t, "rescue") || kw_at(t, "ensure")) {
		next_branch(r, t, blocks);
		return false;
	}
	if (ends_with_end(t))
		return false;
	if (kw_at(t, "if")) {
		struct rblock b = {0};
		b.subject = V_UNKNOWN;
		int v = cond_value(r, t + 2);
		if (v < 0) {
			/* a header absent here with an installed alternative */
			char *h = header_probe_arg(t + 2);
			if (h && !header_here(r, h) && alternative_installed(r, at))
				v = 0;
			free(h);
		}
		b.fails = v == 0;
		b.taken = v == 1;
		b.probe = b.fails ? NULL : probe_of_condition(t + 2);
		vec_push(blocks, b);
		return false;
	}
	if (kw_at(t, "unless")) {
		int v = cond_value(r, t + 6);
		struct rblock b = {NULL, v == 1, v == 0, NULL, V_UNKNOWN, false};
		vec_push(blocks, b);
		return true;
	}
	struct rblock none = {0};
	none.subject = V_UNKNOWN;
	if (kw_at(t, "case")) {
		struct rblock b = none;
		const char *subj = t + 4;
		b.bare = subj[strspn(subj, " \t")] == '\0';
		if (b.bare)
			;
		else if (platform_subject(subj))
			b.plat = platform_string(subj);
		else
			b.subject = name_value(r, subj + strspn(subj, " "));
		vec_push(blocks, b);
		return false;
	}
	static const char *const openers[] = {"while", "until", "begin", "def", "class", "module"};
	for (size_t i = 0; i < ARRAY_SIZE(openers); i++)
		if (kw_at(t, openers[i])) {
			vec_push(blocks, none);
			return false;
		}
	if (strstr(t, "= if ") || strstr(t, "= unless ") || strstr(t, "= case ") || strstr(t, "= begin")) {
		vec_push(blocks, none);
		return false;
	}
	if (opens_ruby_block(t))
		vec_push(blocks, none);
	return false;
}

/* `$srcs << "a.c"`, `$srcs.push(...)`, `$srcs += [...]` under a have_func
 * condition (enclosing, or a trailing `if have_func(...)`). */
void note_cond_srcs(const char *line, const block_vec *blocks, struct extconf_info *out)
{
	const char *s = strstr(line, "$srcs");
	if (!s || !(strstr(s, "<<") || strstr(s, ".push") || strstr(s, "+=") || strstr(s, ".concat") ||
		    strstr(s, ".unshift")))
		return;
	char *probe = NULL;
	const char *mod = strstr(s, " if ");
	if (mod)
		probe = probe_of_condition(mod + 4);
	else if (strstr(s, " unless "))
		return;
	for (size_t i = blocks->n; !probe && i > 0; i--)
		if (blocks->v[i - 1].probe)
			probe = xstrdup(blocks->v[i - 1].probe);
	if (!probe)
		return;
	const char *end = mod ? mod : s + strlen(s);
	for (const char *p = s; p < end && *p; p++) {
		if (*p != '"' && *p != '\'')
			continue;
		char *lit = read_literal(&p);
		if (lit && *lit) {
			vec_push(&out->cond_srcs, lit);
			vec_push(&out->cond_probes, xstrdup(probe));
		} else {
			free(lit);
		}
		if (!*p)
			break;
	}
	free(probe);
}

const char *extconf_build_probe(const struct extconf_info *ei, const char *file)
{
	if (!ei || !ei->cond_srcs.n)
		return NULL;
	char *dir = path_dirname(ei->path);
	const char *found = NULL;
	for (size_t i = 0; i < ei->cond_srcs.n && !found; i++) {
		const char *src = ei->cond_srcs.v[i];
		bool match;
		if (strchr(src, '/')) {
			char *p = path_join(dir, src);
			match = strcmp(p, file) == 0;
			free(p);
		} else {
			/* a bare name, found through $VPATH: any directory below */
			const char *base = strrchr(file, '/');
			match = base && strcmp(base + 1, src) == 0 && path_is_below(file, dir);
		}
		if (match)
			found = ei->cond_probes.v[i];
	}
	free(dir);
	return found;
}

bool is_source_name(const char *t)
{
	return str_ends(t, ".c") || str_ends(t, ".cc") || str_ends(t, ".cpp") || str_ends(t, ".cxx");
}

/* `$objs = %w(a.o b.o)`, `$objs = ["a.o"]`, `$objs += [...]`, `$objs << "a.o"`
 * on one line (and the same of $srcs); anything else makes the list unknown
 * (no source is left out). */
void note_list(const char *line, const char *var, strlist *list, uint8_t *set, uint8_t *unknown)
{
	const char *s = strstr(line, var);
	const char *p = s + strlen(var);
	while (*p == ' ' || *p == '\t')
		p++;
	bool assign = p[0] == '=' && p[1] != '=';
	bool add = (p[0] == '+' && p[1] == '=') || (p[0] == '<' && p[1] == '<') || str_starts(p, ".push") ||
		   str_starts(p, ".concat");
	if (!assign && !add) {
		if (p[0] == '=' || p[0] == '.' || p[0] == '[')
			*unknown = 1; /* $objs.map!, $objs[0] = ..., == */
		return;
	}
	p += assign ? 1 : 2;
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	strlist words = {0};
	bool ok = true;
	const char *after = NULL;
	int pw = percent_words(p, "([{", &words, &after);
	if (pw != 0) {
		ok = pw > 0;
	} else {
		bool bracket = *p == '[';
		if (bracket)
			p++;
		for (;;) {
			while (*p == ' ' || *p == '\t' || *p == ',')
				p++;
			if (*p != '"' && *p != '\'')
				break;
			char *lit = read_literal(&p);
			if (!lit) {
				ok = false;
				break;
			}
			vec_push(&words, lit);
		}
		while (*p == ' ' || *p == '\t')
			p++;
		/* a list going on over the next lines is not read */
		if (bracket && *p != ']')
			ok = false;
		while (*p == ' ' || *p == '\t' || *p == ']' || *p == ')')
			p++;
		/* something else on the line (a method call, a variable, `if ...`
		 * after a complete list is fine) */
		if (!words.n || (*p && !str_starts(p, "if ") && !str_starts(p, "unless ")))
			ok = false;
	}
	if (!ok) {
		*unknown = 1;
		strlist_free(&words);
		return;
	}
	if (assign) {
		strlist_free(list);
		*set = 1;
	}
	for (size_t i = 0; i < words.n; i++) {
		vec_push(list, words.v[i]);
		words.v[i] = NULL;
	}
	vec_free(&words);
}

static bool list_excludes(const strlist *list, const char *file)
{
	const char *base = path_basename(file);
	const char *dot = strrchr(base, '.');
	size_t stem = dot ? (size_t)(dot - base) : strlen(base);
	for (size_t i = 0; i < list->n; i++) {
		const char *o = path_basename(list->v[i]);
		if (strncmp(o, base, stem) == 0 && o[stem] == '.')
			return false;
	}
	return true;
}

bool extconf_objs_exclude(const struct extconf_info *ei, const char *file)
{
	if (!ei || !ei->objs_set || ei->objs_unknown)
		return false;
	return list_excludes(&ei->objs, file);
}

bool extconf_srcs_exclude(const struct extconf_info *ei, const char *file)
{
	if (ei && ei->not_built)
		return true;
	if (!ei || !ei->srcs_set || ei->srcs_unknown || (ei->objs_set && !ei->objs_unknown))
		return false;
	return list_excludes(&ei->srcs, file);
}
